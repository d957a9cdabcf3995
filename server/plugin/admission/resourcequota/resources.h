#pragma once
// Resource lists as kube's quota code handles them (k8s.io/apiserver/pkg/quota/v1/resources.go) over
// resource.Quantity values that remember their format, so that sums print as Go prints them ("1536Mi", "500m").
#include "base/quantity.h"

#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission::quota {

// resource.Quantity, whose format (taken from the text it was parsed from, or the first non-zero addend) decides
// how it prints.
using kapi::Quantity;

inline std::optional<Quantity> parse_quantity(std::string_view text) { return parse_resource_quantity(text); }
// Quantity.String(): the canonical form ("1", "500m", "1Gi", "1536Mi", "2e3").
inline std::string to_string(const Quantity& quantity) { return quantity.to_string(); }
Quantity count(std::int64_t value);  // resource.NewQuantity(value, DecimalSI)
// Quantity.Add / Sub: a zero receiver takes the other's format.
Quantity plus(Quantity a, const Quantity& b);
Quantity minus(Quantity a, const Quantity& b);

using ResourceList = std::map<std::string, Quantity, std::less<>>;

// A ResourceList from JSON (entries that are no quantity are left out, as decoding would refuse them earlier).
ResourceList parse_list(const boost::json::object* list);
boost::json::object to_json(const ResourceList& list);
std::vector<std::string> names(const ResourceList& list);

ResourceList add(const ResourceList& a, const ResourceList& b);
ResourceList subtract_non_negative(const ResourceList& a, const ResourceList& b);
ResourceList mask(const ResourceList& list, const std::vector<std::string>& keep);
ResourceList remove_zeros(const ResourceList& list);
// The names whose value in `a` exceeds the one in `b` (names `b` lacks are not limited).
std::vector<std::string> exceeding(const ResourceList& a, const ResourceList& b);
std::vector<std::string> negative(const ResourceList& list);
// The max of each entry, into `into` (maxResourceList).
void take_max(ResourceList& into, const ResourceList& other);

// prettyPrint: "a=1,b=2Gi" in name order.
std::string pretty(const ResourceList& list);
// prettyPrintResourceNames: the names sorted, joined by ",".
std::string pretty_names(std::vector<std::string> names);

std::vector<std::string> intersection(const std::vector<std::string>& a, const std::vector<std::string>& b);
bool contains(const std::vector<std::string>& names, std::string_view name);

}  // namespace kapi::admission::quota

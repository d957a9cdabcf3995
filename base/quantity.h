#pragma once
// resource.Quantity (k8s.io/apimachinery/pkg/api/resource), exactly, for the sums and comparisons the core
// strategies make (a pod's QoS class, requests against limits), the admission plugins (LimitRanger, ResourceQuota)
// and CEL's quantity library: "500m", "1.5Gi", "2e3", "128974848". The value with the format its suffix chose,
// kube's canonical spelling (String()), and the integer views Value()/MilliValue().
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi {

// A quantity in billionths, the finest scale kube keeps (finer values round up, as kube rounds them).
__extension__ typedef __int128 QuantityNanos;

// std::nullopt when `text` is not a quantity (kube: "quantities must match the regular expression ...").
std::optional<QuantityNanos> parse_quantity(std::string_view text);

enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

struct Quantity {
  QuantityNanos nanos = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;

  // Value(): whole units, a fraction rounded away from zero (as kube's ScaledValue rounds).
  std::int64_t value() const;
  // MilliValue(): thousandths, rounded the same way.
  std::int64_t milli_value() const;
  // String(): "500m", "1Gi", "1e3", "0".
  std::string to_string() const;
  // Quantity.Add: a zero quantity takes the format of what is added to it.
  void add(const Quantity& other);
};

// std::nullopt when `text` is not a quantity.
std::optional<Quantity> parse_resource_quantity(std::string_view text);
// A quantity as an object holds it: a string, or a JSON number (which kube's decoder accepts too).
std::optional<Quantity> quantity_of(const boost::json::value& value);

// resource.MaxMilliValue: the largest value whose MilliValue fits in an int64.
inline constexpr std::int64_t kMaxMilliValue = INT64_MAX / 1000;

}  // namespace kapi

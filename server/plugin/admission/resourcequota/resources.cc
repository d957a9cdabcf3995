// The list operations of k8s.io/apiserver/pkg/quota/v1 (resources.go).
#include "server/plugin/admission/resourcequota/resources.h"

#include <boost/json/string.hpp>

#include <algorithm>

namespace kapi::admission::quota {
namespace {

constexpr QuantityNanos kNanosPerUnit = 1'000'000'000;

}  // namespace

Quantity count(std::int64_t value) {
  return Quantity{static_cast<QuantityNanos>(value) * kNanosPerUnit, QuantityFormat::DecimalSI};
}

Quantity plus(Quantity a, const Quantity& b) {
  a.add(b);
  return a;
}

Quantity minus(Quantity a, const Quantity& b) {
  if (a.nanos == 0) a.format = b.format;
  a.nanos -= b.nanos;
  return a;
}

ResourceList parse_list(const boost::json::object* list) {
  ResourceList out;
  if (!list) return out;
  for (const auto& [name, value] : *list) {
    std::optional<Quantity> quantity;
    if (value.is_string()) quantity = parse_quantity(value.get_string());
    else if (value.is_int64()) quantity = count(value.get_int64());
    if (quantity) out.emplace(std::string(name), *quantity);
  }
  return out;
}

boost::json::object to_json(const ResourceList& list) {
  boost::json::object out;
  for (const auto& [name, quantity] : list) out[name] = to_string(quantity);
  return out;
}

std::vector<std::string> names(const ResourceList& list) {
  std::vector<std::string> out;
  for (const auto& [name, quantity] : list) out.push_back(name);
  return out;
}

ResourceList add(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, quantity] : b) {
    auto [it, inserted] = out.emplace(name, quantity);
    if (!inserted) it->second = plus(it->second, quantity);
  }
  return out;
}

ResourceList subtract_non_negative(const ResourceList& a, const ResourceList& b) {
  const Quantity zero = count(0);
  ResourceList out;
  for (const auto& [name, quantity] : a) {
    Quantity difference = quantity;
    if (auto other = b.find(name); other != b.end()) difference = minus(difference, other->second);
    out[name] = difference.nanos > 0 ? difference : zero;
  }
  for (const auto& [name, quantity] : b) out.emplace(name, zero);
  return out;
}

ResourceList mask(const ResourceList& list, const std::vector<std::string>& keep) {
  ResourceList out;
  for (const auto& [name, quantity] : list)
    if (contains(keep, name)) out.emplace(name, quantity);
  return out;
}

ResourceList remove_zeros(const ResourceList& list) {
  ResourceList out;
  for (const auto& [name, quantity] : list)
    if (quantity.nanos != 0) out.emplace(name, quantity);
  return out;
}

std::vector<std::string> exceeding(const ResourceList& a, const ResourceList& b) {
  std::vector<std::string> out;
  for (const auto& [name, limit] : b)
    if (auto used = a.find(name); used != a.end() && used->second.nanos > limit.nanos) out.push_back(name);
  return out;
}

std::vector<std::string> negative(const ResourceList& list) {
  std::vector<std::string> out;
  for (const auto& [name, quantity] : list)
    if (quantity.nanos < 0) out.push_back(name);
  return out;
}

void take_max(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto [it, inserted] = into.emplace(name, quantity);
    if (!inserted && quantity.nanos > it->second.nanos) it->second = quantity;
  }
}

std::string pretty(const ResourceList& list) {
  std::string out;
  for (const auto& [name, quantity] : list) out += (out.empty() ? "" : ",") + name + "=" + to_string(quantity);
  return out;
}

std::string pretty_names(std::vector<std::string> names) {
  std::ranges::sort(names);
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

std::vector<std::string> intersection(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& name : a)
    if (contains(b, name) && !contains(out, name)) out.push_back(name);
  return out;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::ranges::find(names, name) != names.end();
}

}  // namespace kapi::admission::quota

// Quantity formatting follows k8s.io/apimachinery/pkg/api/resource (quantity.go CanonicalizeBytes, amount.go
// AsCanonicalBytes and AsCanonicalBase1024Bytes, suffix.go); the list operations k8s.io/apiserver/pkg/quota/v1.
#include "server/plugin/admission/resourcequota/resources.h"

#include <boost/json/string.hpp>

#include <algorithm>

namespace kapi::admission::quota {
namespace {

using apis::core::Nanos;
constexpr Nanos kNanosPerUnit = 1'000'000'000;

std::string digits_of(Nanos value) {
  if (value == 0) return "0";
  std::string out;
  for (; value > 0; value /= 10) out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
  return out;
}

std::string decimal(Nanos magnitude, Format format) {
  int exponent = -9;
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  // Go's % keeps the dividend's sign: an exponent of 1 or -2 takes one digit more, 2 or -1 two more.
  switch (exponent % 3) {
    case 1: case -2: magnitude *= 10; exponent -= 1; break;
    case 2: case -1: magnitude *= 100; exponent -= 2; break;
    default: break;
  }
  if (format == Format::DecimalExponent)
    return digits_of(magnitude) + (exponent == 0 ? "" : "e" + std::to_string(exponent));
  while (exponent > 18) {  // beyond "E" kube has no suffix: the mantissa grows instead
    magnitude *= 1000;
    exponent -= 3;
  }
  static constexpr std::string_view kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  return digits_of(magnitude) + std::string(kSuffixes[(exponent + 9) / 3]);
}

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  std::optional<Nanos> value = apis::core::parse_quantity(text);
  if (!value) return std::nullopt;
  const std::size_t suffix = text.find_first_not_of("+-0123456789.");
  Format format = Format::DecimalSI;
  if (suffix != std::string_view::npos) {
    const std::string_view rest = text.substr(suffix);
    if (rest.size() == 2 && rest[1] == 'i') format = Format::BinarySI;
    else if (rest[0] == 'e' || rest[0] == 'E') format = Format::DecimalExponent;
  }
  return Quantity{*value, format};
}

std::string to_string(const Quantity& quantity) {
  if (quantity.value == 0) return "0";
  const bool negative = quantity.value < 0;
  const Nanos magnitude = negative ? -quantity.value : quantity.value;
  const std::string sign = negative ? "-" : "";
  // BinarySI prints as DecimalSI below 1024 and where it would lose a fraction.
  if (quantity.format != Format::BinarySI || magnitude < 1024 * kNanosPerUnit || magnitude % kNanosPerUnit != 0)
    return sign + decimal(magnitude, quantity.format == Format::DecimalExponent ? Format::DecimalExponent
                                                                                : Format::DecimalSI);
  Nanos units = magnitude / kNanosPerUnit;
  int power = 0;
  while (units % 1024 == 0 && power < 6) {
    units /= 1024;
    ++power;
  }
  static constexpr std::string_view kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  return sign + digits_of(units) + std::string(kSuffixes[power]);
}

Quantity count(std::int64_t value) { return Quantity{static_cast<Nanos>(value) * kNanosPerUnit, Format::DecimalSI}; }

Quantity plus(Quantity a, const Quantity& b) {
  if (a.value == 0) a.format = b.format;
  a.value += b.value;
  return a;
}

Quantity minus(Quantity a, const Quantity& b) {
  if (a.value == 0) a.format = b.format;
  a.value -= b.value;
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
    out[name] = difference.value > 0 ? difference : zero;
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
    if (quantity.value != 0) out.emplace(name, quantity);
  return out;
}

std::vector<std::string> exceeding(const ResourceList& a, const ResourceList& b) {
  std::vector<std::string> out;
  for (const auto& [name, limit] : b)
    if (auto used = a.find(name); used != a.end() && used->second.value > limit.value) out.push_back(name);
  return out;
}

std::vector<std::string> negative(const ResourceList& list) {
  std::vector<std::string> out;
  for (const auto& [name, quantity] : list)
    if (quantity.value < 0) out.push_back(name);
  return out;
}

void take_max(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto [it, inserted] = into.emplace(name, quantity);
    if (!inserted && quantity.value > it->second.value) it->second = quantity;
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

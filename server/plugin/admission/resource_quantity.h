#pragma once
// resource.Quantity as kube's admission plugins use it (k8s.io/apimachinery/pkg/api/resource): the value with the
// format its suffix chose, kube's canonical spelling (String()), and the integer views Value()/MilliValue() that
// LimitRanger compares. The value itself is parsed by apis::core::parse_quantity.
#include "server/apis/core/quantity.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::admission {

enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

struct Quantity {
  apis::core::Nanos nanos = 0;
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

}  // namespace kapi::admission

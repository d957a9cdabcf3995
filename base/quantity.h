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
#include <variant>

namespace kapi {

// A quantity in billionths, the finest scale kube keeps (finer values round up, as kube rounds them).
__extension__ typedef __int128 QuantityNanos;
inline constexpr QuantityNanos kNanosPerUnit = 1'000'000'000;

// What kapi holds: up to 36 digits of nanos, just under 10^27 units. kube caps only BinarySI values (at 2^63-1
// units, far inside this) and keeps decimal ones of any size; kapi saturates those beyond it to ±kMaxQuantityNanos
// (see parse_go_quantity). The bound leaves __int128 room for the sums callers make of parsed values.
inline constexpr int kMaxQuantityNanoDigits = 36;
inline constexpr QuantityNanos kMaxQuantityNanos =
    static_cast<QuantityNanos>(1'000'000'000'000'000'000) * 1'000'000'000'000'000'000 - 1;

// ParseQuantity's value in nanos; std::nullopt when kube refuses `text` (parse_go_quantity's errors).
std::optional<QuantityNanos> parse_quantity(std::string_view text);

enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

struct Quantity {
  QuantityNanos nanos = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
  // How kube holds the value, which decides what AsInt64 and AsApproximateFloat64 give: an int64Amount
  // (unscaled × 10^scale, unscaled an int64) on its fast path, an inf.Dec (unscaled × 10^scale, any size) otherwise.
  // Either way unscaled = nanos / 10^(scale + 9); scale is never below -9.
  bool held_as_dec = false;
  std::int32_t scale = -9;

  // Value(): whole units, a fraction rounded away from zero (as kube's ScaledValue rounds).
  std::int64_t value() const;
  // MilliValue(): thousandths, rounded the same way.
  std::int64_t milli_value() const;
  // String(): "500m", "1Gi", "1e3", "0".
  std::string to_string() const;
  // Quantity.Add: a zero quantity takes the format of what is added to it. A sum beyond ±kMaxQuantityNanos, which
  // kube holds exactly, saturates there (held as an inf.Dec, so never an integer, as kube's sum is not either).
  void add(const Quantity& other);
  void sub(const Quantity& other);  // Quantity.Sub, likewise

  int cmp(const Quantity& other) const;  // Quantity.Cmp: -1, 0 or 1
  int sign() const;                      // Quantity.Sign
  // Quantity.AsInt64: whole units rounded away from zero, std::nullopt when kube holds the value as an inf.Dec or
  // it does not fit (kube's isInteger() and asInteger()).
  std::optional<std::int64_t> as_int64() const;
  double as_approximate_float64() const;  // Quantity.AsApproximateFloat64, bit for bit
};

// resource.ParseQuantity exactly, for CEL's quantity(): the value as kube holds it, or kube's error text
// ("quantities must match the regular expression '...'", "unable to parse quantity's suffix", "unable to parse
// numeric part of quantity"). As kube: no limit on digits; ".", "-" and "+" are 0; a BinarySI value above 2^63-1
// units is capped there ("9Ei" is 9223372036854775807), a decimal one is not. One deviation: a decimal value
// beyond ±kMaxQuantityNanos ("1e40", 10^27 units and up), which kube keeps exactly, saturates to
// ±kMaxQuantityNanos held as an inf.Dec, so its String() and AsApproximateFloat64 differ from kube's.
struct QuantityParseError {
  std::string message;
};
std::variant<Quantity, QuantityParseError> parse_go_quantity(std::string_view text);
// resource.NewQuantity(value, DecimalExponent), as CEL's quantity.add(int) builds its operand.
Quantity quantity_from_int64(std::int64_t value);

// parse_go_quantity without the error text: std::nullopt when `text` is not a quantity.
std::optional<Quantity> parse_resource_quantity(std::string_view text);
// A quantity as an object holds it: a string, or a JSON number (which kube's decoder accepts too).
std::optional<Quantity> quantity_of(const boost::json::value& value);

// resource.MaxMilliValue: the largest value whose MilliValue fits in an int64.
inline constexpr std::int64_t kMaxMilliValue = INT64_MAX / 1000;

}  // namespace kapi

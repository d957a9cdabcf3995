// Arithmetic operators of cel-go's standard library (common/stdlib/standard.go; the implementations in
// common/types int.go, uint.go, double.go, string.go, bytes.go, list.go, timestamp.go, duration.go and the
// overflow checks of common/types/overflow.go): integer overflow and division by zero are errors, doubles follow
// IEEE 754, timestamps stay within 0001-01-01..9999-12-31.
#include <limits>

#include "cel/stdlib/builders.h"
#include "cel/stdlib/time_util.h"

namespace kapi::cel::stdlib {
namespace {

using I = std::int64_t;
using U = std::uint64_t;

Value add_int(std::span<const Value> a) {
  I out;
  if (__builtin_add_overflow(a[0].get<I>(), a[1].get<I>(), &out)) return overflow();
  return Value(out);
}
Value sub_int(std::span<const Value> a) {
  I out;
  if (__builtin_sub_overflow(a[0].get<I>(), a[1].get<I>(), &out)) return overflow();
  return Value(out);
}
Value mul_int(std::span<const Value> a) {
  I out;
  if (__builtin_mul_overflow(a[0].get<I>(), a[1].get<I>(), &out)) return overflow();
  return Value(out);
}
Value div_int(std::span<const Value> a) {
  I x = a[0].get<I>(), y = a[1].get<I>();
  if (y == 0) return error(ErrorCode::kDivideByZero, "division by zero");
  if (x == std::numeric_limits<I>::min() && y == -1) return overflow();
  return Value(x / y);
}
Value mod_int(std::span<const Value> a) {
  I x = a[0].get<I>(), y = a[1].get<I>();
  if (y == 0) return error(ErrorCode::kDivideByZero, "modulus by zero");
  if (x == std::numeric_limits<I>::min() && y == -1) return overflow();
  return Value(x % y);
}
Value add_uint(std::span<const Value> a) {
  U out;
  if (__builtin_add_overflow(a[0].get<U>(), a[1].get<U>(), &out)) return uint_overflow();
  return Value(out);
}
Value sub_uint(std::span<const Value> a) {
  U out;
  if (__builtin_sub_overflow(a[0].get<U>(), a[1].get<U>(), &out)) return uint_overflow();
  return Value(out);
}
Value mul_uint(std::span<const Value> a) {
  U out;
  if (__builtin_mul_overflow(a[0].get<U>(), a[1].get<U>(), &out)) return uint_overflow();
  return Value(out);
}
Value div_uint(std::span<const Value> a) {
  if (a[1].get<U>() == 0) return error(ErrorCode::kDivideByZero, "division by zero");
  return Value(a[0].get<U>() / a[1].get<U>());
}
Value mod_uint(std::span<const Value> a) {
  if (a[1].get<U>() == 0) return error(ErrorCode::kDivideByZero, "modulus by zero");
  return Value(a[0].get<U>() % a[1].get<U>());
}

Value add_duration(std::span<const Value> a) {
  I out;
  if (__builtin_add_overflow(a[0].get<Duration>().nanos, a[1].get<Duration>().nanos, &out)) return overflow();
  return Value(Duration{out});
}
Value sub_duration(std::span<const Value> a) {
  I out;
  if (__builtin_sub_overflow(a[0].get<Duration>().nanos, a[1].get<Duration>().nanos, &out)) return overflow();
  return Value(Duration{out});
}

}  // namespace

std::vector<Function> arithmetic_functions() {
  const Type i = Type::int_type(), u = Type::uint_type(), d = Type::double_type(), s = Type::string_type(),
             b = Type::bytes_type(), ts = Type::timestamp(), du = Type::duration();
  std::vector<Function> out;
  out.push_back({"_+_",
                 {global("add_bytes", {b, b}, b,
                         [](std::span<const Value> a) {
                           return Value(Bytes{a[0].get<Bytes>().data + a[1].get<Bytes>().data});
                         }),
                  global("add_double", {d, d}, d,
                         [](std::span<const Value> a) { return Value(a[0].get<double>() + a[1].get<double>()); }),
                  global("add_duration_duration", {du, du}, du, add_duration),
                  global("add_duration_timestamp", {du, ts}, ts,
                         [](std::span<const Value> a) {
                           return add_timestamp_duration(a[1].get<Timestamp>(), a[0].get<Duration>());
                         }),
                  global("add_timestamp_duration", {ts, du}, ts,
                         [](std::span<const Value> a) {
                           return add_timestamp_duration(a[0].get<Timestamp>(), a[1].get<Duration>());
                         }),
                  global("add_int64", {i, i}, i, add_int),
                  global("add_list", {list_of_a(), list_of_a()}, list_of_a(),
                         [](std::span<const Value> a) {
                           const auto& lhs = a[0].get<std::shared_ptr<const List>>();
                           const auto& rhs = a[1].get<std::shared_ptr<const List>>();
                           return Value(lhs->concat(lhs, rhs));
                         }),
                  global("add_string", {s, s}, s,
                         [](std::span<const Value> a) {
                           return Value(a[0].get<std::string>() + a[1].get<std::string>());
                         }),
                  global("add_uint64", {u, u}, u, add_uint)}});
  out.push_back({"_/_",
                 {global("divide_double", {d, d}, d,
                         [](std::span<const Value> a) { return Value(a[0].get<double>() / a[1].get<double>()); }),
                  global("divide_int64", {i, i}, i, div_int), global("divide_uint64", {u, u}, u, div_uint)}});
  out.push_back({"_%_", {global("modulo_int64", {i, i}, i, mod_int), global("modulo_uint64", {u, u}, u, mod_uint)}});
  out.push_back({"_*_",
                 {global("multiply_double", {d, d}, d,
                         [](std::span<const Value> a) { return Value(a[0].get<double>() * a[1].get<double>()); }),
                  global("multiply_int64", {i, i}, i, mul_int), global("multiply_uint64", {u, u}, u, mul_uint)}});
  out.push_back({"-_",
                 {global("negate_double", {d}, d, [](std::span<const Value> a) { return Value(-a[0].get<double>()); }),
                  global("negate_int64", {i}, i, [](std::span<const Value> a) {
                    I x = a[0].get<I>();
                    if (x == std::numeric_limits<I>::min()) return overflow();
                    return Value(-x);
                  })}});
  out.push_back({"_-_",
                 {global("subtract_double", {d, d}, d,
                         [](std::span<const Value> a) { return Value(a[0].get<double>() - a[1].get<double>()); }),
                  global("subtract_duration_duration", {du, du}, du, sub_duration),
                  global("subtract_int64", {i, i}, i, sub_int),
                  global("subtract_timestamp_duration", {ts, du}, ts,
                         [](std::span<const Value> a) {
                           I nanos = a[1].get<Duration>().nanos;
                           if (nanos == std::numeric_limits<I>::min()) return overflow();
                           return add_timestamp_duration(a[0].get<Timestamp>(), Duration{-nanos});
                         }),
                  global("subtract_timestamp_timestamp", {ts, ts}, du,
                         [](std::span<const Value> a) {
                           return subtract_timestamps(a[0].get<Timestamp>(), a[1].get<Timestamp>());
                         }),
                  global("subtract_uint64", {u, u}, u, sub_uint)}});
  return out;
}

}  // namespace kapi::cel::stdlib

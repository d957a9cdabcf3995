// Logical operators, equality and ordering of cel-go's standard library (common/stdlib/standard.go, with the
// Compare methods of common/types and compare.go): numbers order across int, uint and double (the overloads
// cel.CrossTypeNumericComparisons relies on), NaN cannot be ordered. &&, ||, ?:, ==, != and @not_strictly_false
// are declared here and evaluated by the interpreter itself, as cel-go's planner special-cases them.
#include <cmath>
#include <limits>

#include "cel/stdlib/builders.h"

namespace kapi::cel::stdlib {
namespace {

using I = std::int64_t;
using U = std::uint64_t;

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_double_int(double d, I i) {
  if (d < -9223372036854775808.0) return -1;
  if (d > 9223372036854775807.0) return 1;
  return three_way(d, static_cast<double>(i));
}

int compare_double_uint(double d, U u) {
  if (d < 0) return -1;
  if (d > 18446744073709551615.0) return 1;
  return three_way(d, static_cast<double>(u));
}

int compare_int_uint(I i, U u) {
  if (i < 0 || u > static_cast<U>(std::numeric_limits<I>::max())) return -1;
  return three_way(i, static_cast<I>(u));
}

// The ordering of two values of the kinds an overload accepts; an error for NaN.
std::variant<int, Value> compare(const Value& a, const Value& b) {
  const auto nan = [] { return Value::error(ErrorCode::kInvalidArgument, "NaN values cannot be ordered"); };
  if (const auto* x = a.get_if<double>()) {
    if (std::isnan(*x)) return nan();
    if (const auto* y = b.get_if<double>()) return std::isnan(*y) ? std::variant<int, Value>(nan()) : three_way(*x, *y);
    if (const auto* y = b.get_if<I>()) return compare_double_int(*x, *y);
    if (const auto* y = b.get_if<U>()) return compare_double_uint(*x, *y);
  }
  if (const auto* x = a.get_if<I>()) {
    if (const auto* y = b.get_if<double>()) return std::isnan(*y) ? std::variant<int, Value>(nan()) : -compare_double_int(*y, *x);
    if (const auto* y = b.get_if<I>()) return three_way(*x, *y);
    if (const auto* y = b.get_if<U>()) return compare_int_uint(*x, *y);
  }
  if (const auto* x = a.get_if<U>()) {
    if (const auto* y = b.get_if<double>()) return std::isnan(*y) ? std::variant<int, Value>(nan()) : -compare_double_uint(*y, *x);
    if (const auto* y = b.get_if<I>()) return -compare_int_uint(*y, *x);
    if (const auto* y = b.get_if<U>()) return three_way(*x, *y);
  }
  if (a.is<bool>() && b.is<bool>()) return three_way(a.get<bool>(), b.get<bool>());
  if (a.is<std::string>() && b.is<std::string>()) return three_way(a.get<std::string>(), b.get<std::string>());
  if (a.is<Bytes>() && b.is<Bytes>()) return three_way(a.get<Bytes>().data, b.get<Bytes>().data);
  if (a.is<Timestamp>() && b.is<Timestamp>()) return three_way(a.get<Timestamp>(), b.get<Timestamp>());
  if (a.is<Duration>() && b.is<Duration>()) return three_way(a.get<Duration>(), b.get<Duration>());
  return bare_no_such_overload();
}

template <typename Accept>
FunctionImpl relation(Accept accept) {
  return [accept](std::span<const Value> args) -> Value {
    auto result = compare(args[0], args[1]);
    if (auto* error = std::get_if<Value>(&result)) return *error;
    return Value(accept(std::get<int>(result)));
  };
}

Function relation_function(std::string name, std::string id_prefix, FunctionImpl impl) {
  const Type i = Type::int_type(), u = Type::uint_type(), d = Type::double_type();
  const std::vector<std::pair<std::string, std::vector<Type>>> signatures = {
      {"bool", {Type::bool_type(), Type::bool_type()}},
      {"int64", {i, i}},
      {"int64_double", {i, d}},
      {"int64_uint64", {i, u}},
      {"uint64", {u, u}},
      {"uint64_double", {u, d}},
      {"uint64_int64", {u, i}},
      {"double", {d, d}},
      {"double_int64", {d, i}},
      {"double_uint64", {d, u}},
      {"string", {Type::string_type(), Type::string_type()}},
      {"bytes", {Type::bytes_type(), Type::bytes_type()}},
      {"timestamp", {Type::timestamp(), Type::timestamp()}},
      {"duration", {Type::duration(), Type::duration()}},
  };
  Function function{std::move(name), {}};
  for (const auto& [suffix, params] : signatures) {
    function.overloads.push_back(global(id_prefix + "_" + suffix, params, Type::bool_type(), impl));
  }
  return function;
}

}  // namespace

std::vector<Function> logic_functions() {
  const Type b = Type::bool_type(), a = type_param_a();
  auto non_strict = [](Overload o) {
    o.non_strict = true;
    return o;
  };
  std::vector<Function> out;
  out.push_back({"_?_:_", {non_strict(global("conditional", {b, a, a}, a))}});
  out.push_back({"_&&_", {non_strict(global("logical_and", {b, b}, b))}});
  out.push_back({"_||_", {non_strict(global("logical_or", {b, b}, b))}});
  out.push_back({"!_", {global("logical_not", {b}, b,
                               [](std::span<const Value> args) { return Value(!args[0].get<bool>()); })}});
  out.push_back({"@not_strictly_false", {non_strict(global("not_strictly_false", {b}, b))}});
  out.push_back({"_==_", {global("equals", {a, a}, b)}});
  out.push_back({"_!=_", {global("not_equals", {a, a}, b)}});
  return out;
}

std::vector<Function> comparison_functions() {
  std::vector<Function> out;
  out.push_back(relation_function("_<_", "less", relation([](int c) { return c < 0; })));
  out.push_back(relation_function("_<=_", "less_equals", relation([](int c) { return c <= 0; })));
  out.push_back(relation_function("_>_", "greater", relation([](int c) { return c > 0; })));
  out.push_back(relation_function("_>=_", "greater_equals", relation([](int c) { return c >= 0; })));
  return out;
}

}  // namespace kapi::cel::stdlib

// kube's lists library (k8s.io/apiserver/pkg/cel/library/lists.go, version 0 as kube 1.32 enables it):
// isSorted, sum, min, max, indexOf, lastIndexOf.
#include <array>
#include <limits>

#include "cel/ext/ext_util.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

struct NamedType {
  const char* name;
  Type type;
};

std::vector<NamedType> comparable_types() {
  return {{"int", Type::int_type()},       {"uint", Type::uint_type()},           {"double", Type::double_type()},
          {"bool", Type::bool_type()},     {"duration", Type::duration()},        {"timestamp", Type::timestamp()},
          {"string", Type::string_type()}, {"bytes", Type::bytes_type()}};
}

std::vector<NamedType> summable_types() {
  return {{"int", Type::int_type()},
          {"uint", Type::uint_type()},
          {"double", Type::double_type()},
          {"duration", Type::duration()}};
}

Value is_sorted(std::span<const Value> args) {
  const List* list = args[0].as_list();
  if (!list) return Value::no_such_overload("isSorted");
  for (std::size_t i = 1; i < list->size(); ++i) {
    // A comparison that fails (NaN cannot be ordered) is not "greater", as kube reads cel-go's Compare.
    const std::optional<int> order = compare_values(list->at(i - 1), list->at(i));
    if (order && *order > 0) return false;
  }
  return true;
}

// traits.Adder over the list, starting from the element type's zero, with cel-go's overflow errors.
Value add(const Value& a, const Value& b) {
  if (a.is<std::int64_t>() && b.is<std::int64_t>()) {
    std::int64_t out;
    if (__builtin_add_overflow(a.get<std::int64_t>(), b.get<std::int64_t>(), &out))
      return Value::error(ErrorCode::kOverflow, "integer overflow");
    return out;
  }
  if (a.is<std::uint64_t>() && b.is<std::uint64_t>()) {
    std::uint64_t out;
    if (__builtin_add_overflow(a.get<std::uint64_t>(), b.get<std::uint64_t>(), &out))
      return Value::error(ErrorCode::kOverflow, "unsigned integer overflow");
    return out;
  }
  if (a.is<double>() && b.is<double>()) return a.get<double>() + b.get<double>();
  if (a.is<Duration>() && b.is<Duration>()) {
    std::int64_t out;
    if (__builtin_add_overflow(a.get<Duration>().nanos, b.get<Duration>().nanos, &out))
      return Value::error(ErrorCode::kOverflow, "integer overflow");
    return Duration{out};
  }
  return Value::no_such_overload("sum");
}

FunctionImpl sum_from(Value zero) {
  return [zero = std::move(zero)](std::span<const Value> args) -> Value {
    const List* list = args[0].as_list();
    if (!list) return Value::no_such_overload("sum");
    Value total = zero;
    for (std::size_t i = 0; i < list->size(); ++i) {
      total = add(total, list->at(i));
      if (total.is_error()) return total;
    }
    return total;
  };
}

// min keeps the first of equal elements, max likewise, as kube's cmp helper does.
FunctionImpl extreme(const char* name, int prefer) {
  return [name, prefer](std::span<const Value> args) -> Value {
    const List* list = args[0].as_list();
    if (!list) return Value::no_such_overload(name);
    if (list->size() == 0) return error_value(std::string(name) + " called on empty list");
    Value result = list->at(0);
    for (std::size_t i = 1; i < list->size(); ++i) {
      Value next = list->at(i);
      const std::optional<int> order = compare_values(result, next);
      if (order && *order == prefer) result = std::move(next);
    }
    return result;
  };
}

Value index_of(std::span<const Value> args) {
  const List* list = args[0].as_list();
  if (!list) return Value::no_such_overload("indexOf");
  for (std::size_t i = 0; i < list->size(); ++i)
    if (equals(list->at(i), args[1])) return static_cast<std::int64_t>(i);
  return std::int64_t{-1};
}

Value last_index_of(std::span<const Value> args) {
  const List* list = args[0].as_list();
  if (!list) return Value::no_such_overload("lastIndexOf");
  for (std::size_t i = list->size(); i > 0; --i)
    if (equals(list->at(i - 1), args[1])) return static_cast<std::int64_t>(i - 1);
  return std::int64_t{-1};
}

}  // namespace

Library lists_library() {
  Library lib{.name = "kubernetes.lists"};
  Function sorted{"isSorted", {}}, sum{"sum", {}}, max{"max", {}}, min{"min", {}};
  for (const NamedType& t : comparable_types()) {
    const std::string n = t.name;
    sorted.overloads.push_back(
        member_overload("list_" + n + "_is_sorted_bool", {Type::list(t.type)}, Type::bool_type(), is_sorted));
    max.overloads.push_back(
        member_overload("list_" + n + "_max_" + n, {Type::list(t.type)}, t.type, extreme("max", -1)));
    min.overloads.push_back(
        member_overload("list_" + n + "_min_" + n, {Type::list(t.type)}, t.type, extreme("min", 1)));
  }
  for (const NamedType& t : summable_types()) {
    const std::string n = t.name;
    Value zero = n == "int"    ? Value(std::int64_t{0})
                 : n == "uint" ? Value(std::uint64_t{0})
                 : n == "double" ? Value(0.0)
                                 : Value(Duration{0});
    sum.overloads.push_back(member_overload("list_" + n + "_sum_" + n, {Type::list(t.type)}, t.type, sum_from(zero)));
  }
  const Type a = Type::type_param("A");
  lib.functions = {std::move(sorted), std::move(sum), std::move(max), std::move(min),
                   Function{"indexOf", {member_overload("list_a_index_of_int", {Type::list(a), a}, Type::int_type(),
                                                        index_of)}},
                   Function{"lastIndexOf", {member_overload("list_a_last_index_of_int", {Type::list(a), a},
                                                            Type::int_type(), last_index_of)}}};
  return lib;
}

}  // namespace kapi::cel::ext

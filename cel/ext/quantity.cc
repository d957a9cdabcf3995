// kube's quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go, as of kube 1.32: no mul/div yet) over
// resource.Quantity as base/quantity.h models it.
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

const Quantity* quantity_of(const Value& v) {
  const auto* q = opaque_as<QuantityValue>(v);
  return q ? &q->quantity() : nullptr;
}

Value to_quantity(std::span<const Value> args) {
  auto parsed = parse_go_quantity(args[0].get<std::string>());
  if (auto* error = std::get_if<QuantityParseError>(&parsed)) return error_value(error->message);
  return make_opaque<QuantityValue>(std::get<Quantity>(parsed));
}

// A unary quantity function: the receiver's quantity, or no such overload.
template <typename F>
FunctionImpl unary(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const Quantity* q = quantity_of(args[0]);
    if (!q) return Value::no_such_overload(name);
    return f(*q);
  };
}

template <typename F>
FunctionImpl binary(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const Quantity *a = quantity_of(args[0]), *b = quantity_of(args[1]);
    if (!a || !b) return Value::no_such_overload(name);
    return f(*a, *b);
  };
}

template <typename F>
FunctionImpl with_int(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const Quantity* a = quantity_of(args[0]);
    const auto* i = args[1].get_if<std::int64_t>();
    if (!a || !i) return Value::no_such_overload(name);
    return f(*a, quantity_from_int64(*i));
  };
}

Value sum(Quantity a, const Quantity& b) {
  a.add(b);
  return make_opaque<QuantityValue>(a);
}

Value difference(Quantity a, const Quantity& b) {
  a.sub(b);
  return make_opaque<QuantityValue>(a);
}

}  // namespace

bool QuantityValue::equals(const Opaque& other) const {
  const auto* q = dynamic_cast<const QuantityValue*>(&other);
  return q && quantity_.cmp(q->quantity_) == 0;
}

Library quantity_library() {
  const Type q = quantity_type(), b = Type::bool_type(), i = Type::int_type();
  Library lib{.name = "kubernetes.quantity"};
  lib.types = {q};
  lib.functions = {
      Function{"quantity", {global_overload("string_to_quantity", {Type::string_type()}, q, to_quantity)}},
      Function{"isQuantity", {global_overload("is_quantity_string", {Type::string_type()}, b,
                                              [](std::span<const Value> args) -> Value {
                                                return std::holds_alternative<Quantity>(
                                                    parse_go_quantity(args[0].get<std::string>()));
                                              })}},
      // kube declares sign as a global overload (sign(q)), unlike the other accessors.
      Function{"sign", {global_overload("quantity_sign", {q}, i, unary("sign", [](const Quantity& x) -> Value {
                                          return std::int64_t{x.sign()};
                                        }))}},
      Function{"isGreaterThan",
               {member_overload("quantity_is_greater_than", {q, q}, b,
                                binary("isGreaterThan", [](const Quantity& x, const Quantity& y) -> Value {
                                  return x.cmp(y) == 1;
                                }))}},
      Function{"isLessThan",
               {member_overload("quantity_is_less_than", {q, q}, b,
                                binary("isLessThan", [](const Quantity& x, const Quantity& y) -> Value {
                                  return x.cmp(y) == -1;
                                }))}},
      Function{"compareTo",
               {member_overload("quantity_compare_to", {q, q}, i,
                                binary("compareTo", [](const Quantity& x, const Quantity& y) -> Value {
                                  return std::int64_t{x.cmp(y)};
                                }))}},
      Function{"asApproximateFloat",
               {member_overload("quantity_get_float", {q}, Type::double_type(),
                                unary("asApproximateFloat",
                                      [](const Quantity& x) -> Value { return x.as_approximate_float64(); }))}},
      Function{"asInteger", {member_overload("quantity_get_int", {q}, i, unary("asInteger", [](const Quantity& x) {
                               const std::optional<std::int64_t> v = x.as_int64();
                               return v ? Value(*v) : error_value("cannot convert value to integer");
                             }))}},
      Function{"isInteger", {member_overload("quantity_is_integer", {q}, b,
                                             unary("isInteger", [](const Quantity& x) -> Value {
                                               return x.as_int64().has_value();
                                             }))}},
      Function{"add", {member_overload("quantity_add", {q, q}, q, binary("add", sum)),
                       member_overload("quantity_add_int", {q, i}, q, with_int("add", sum))}},
      Function{"sub", {member_overload("quantity_sub", {q, q}, q, binary("sub", difference)),
                       member_overload("quantity_sub_int", {q, i}, q, with_int("sub", difference))}},
  };
  return lib;
}

}  // namespace kapi::cel::ext

// cel-go's optional types library (cel/library.go optionalLib, as cel.OptionalTypes() enables it for kube):
// optional.of, optional.ofNonZeroValue, optional.none, value(), hasValue(), or() and orValue() (both short-circuit
// in the interpreter), and the declarations of optional selection and indexing (`a.?b`, `a[?b]`) that the
// interpreter evaluates as attribute qualifiers.
#include "cel/stdlib/builders.h"
#include "cel/stdlib/time_util.h"

namespace kapi::cel::stdlib {
namespace {

// cel-go's traits.Zeroer: values that have a zero value and are it.
bool is_zero_value(const Value& v) {
  if (v.is_null()) return true;
  if (const auto* b = v.get_if<bool>()) return !*b;
  if (const auto* i = v.get_if<std::int64_t>()) return *i == 0;
  if (const auto* u = v.get_if<std::uint64_t>()) return *u == 0;
  if (const auto* d = v.get_if<double>()) return *d == 0;
  if (const auto* s = v.get_if<std::string>()) return s->empty();
  if (const auto* b = v.get_if<Bytes>()) return b->data.empty();
  if (const auto* d = v.get_if<Duration>()) return d->nanos == 0;
  if (const auto* t = v.get_if<Timestamp>()) return t->seconds == kMinUnixSeconds && t->nanos == 0;
  if (const List* l = v.as_list()) return l->size() == 0;
  if (const Map* m = v.as_map()) return m->size() == 0;
  return false;
}

}  // namespace

std::vector<Function> optional_functions() {
  const Type k = Type::type_param("K"), v = Type::type_param("V");
  const Type opt_v = Type::optional(v), list_v = Type::list(v), map_kv = Type::map(k, v);
  std::vector<Function> out;
  out.push_back({"optional.of", {global("optional_of", {v}, opt_v, [](std::span<const Value> a) {
                   return Value::optional_of(a[0]);
                 })}});
  out.push_back({"optional.ofNonZeroValue", {global("optional_ofNonZeroValue", {v}, opt_v,
                                                    [](std::span<const Value> a) {
                                                      return is_zero_value(a[0]) ? Value::optional_none()
                                                                                 : Value::optional_of(a[0]);
                                                    })}});
  out.push_back({"optional.none", {global("optional_none", {}, opt_v, [](std::span<const Value>) {
                   return Value::optional_none();
                 })}});
  out.push_back({"value", {member("optional_value", {opt_v}, v, [](std::span<const Value> a) {
                   const OptionalValue& o = a[0].get<OptionalValue>();
                   if (!o.has_value()) return error(ErrorCode::kGeneric, "optional.none() dereference");
                   return *o.value;
                 })}});
  out.push_back({"hasValue", {member("optional_hasValue", {opt_v}, Type::bool_type(), [](std::span<const Value> a) {
                   return Value(a[0].get<OptionalValue>().has_value());
                 })}});
  // Evaluated by the interpreter so that the alternative is only computed when needed.
  out.push_back({"or", {member("optional_or_optional", {opt_v, opt_v}, opt_v)}});
  out.push_back({"orValue", {member("optional_orValue_value", {opt_v, v}, v)}});
  out.push_back({"_?._", {global("select_optional_field", {Type::dyn(), Type::string_type()}, opt_v)}});
  out.push_back({"_[?_]",
                 {global("list_optindex_optional_int", {list_v, Type::int_type()}, opt_v),
                  global("optional_list_optindex_optional_int", {Type::optional(list_v), Type::int_type()}, opt_v),
                  global("map_optindex_optional_value", {map_kv, k}, opt_v),
                  global("optional_map_optindex_optional_value", {Type::optional(map_kv), k}, opt_v)}});
  out.push_back({"_[_]",
                 {global("optional_list_index_int", {Type::optional(list_v), Type::int_type()}, opt_v),
                  global("optional_map_index_value", {Type::optional(map_kv), k}, opt_v)}});
  return out;
}

}  // namespace kapi::cel::stdlib

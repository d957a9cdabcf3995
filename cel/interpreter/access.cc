// Qualifying values by field or index and matching run-time types to declared parameters, as cel-go's attribute
// qualifiers (interpreter/attributes.go refQualify, types.IndexOrError) and overload type guards
// (common/decls matchRuntimeArgType) do.
#include <cmath>

#include "cel/interpreter/evaluator.h"
#include "cel/stdlib/format.h"

namespace kapi::cel::interp {
namespace {

// types.IndexOrError: ints, uints that fit an int, and doubles that are whole numbers.
std::optional<std::int64_t> list_index(const Value& key, Value& error) {
  if (const auto* i = key.get_if<std::int64_t>()) return *i;
  if (const auto* u = key.get_if<std::uint64_t>()) {
    if (*u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(*u);
    error = Value::error(ErrorCode::kInvalidArgument, "unsupported index value " + go_format_value(key) + " in list");
    return std::nullopt;
  }
  if (const auto* d = key.get_if<double>()) {
    if (std::isfinite(*d) && *d == std::trunc(*d) && *d >= -9223372036854775808.0 && *d < 9223372036854775808.0) {
      return static_cast<std::int64_t>(*d);
    }
    error = Value::error(ErrorCode::kInvalidArgument, "unsupported index value " + go_format_value(key) + " in list");
    return std::nullopt;
  }
  error = Value::error(ErrorCode::kInvalidArgument,
                       "unsupported index type '" + key.type_name() + "' in list");
  return std::nullopt;
}

Value missing_key(const Value& key) {
  return Value::error(ErrorCode::kNoSuchKey, "no such key: " + go_format_value(key));
}

}  // namespace

Value qualify(const Value& obj, const Value& key, bool presence_test, bool* present) {
  *present = true;
  if (obj.is_error()) return obj;
  if (const Map* map = obj.as_map()) {
    if (std::optional<Value> found = map->find(key)) return *std::move(found);
    *present = false;
    return presence_test ? Value() : missing_key(key);
  }
  if (const List* list = obj.as_list()) {
    Value error;
    std::optional<std::int64_t> index = list_index(key, error);
    if (!index) return error;
    if (*index >= 0 && static_cast<std::uint64_t>(*index) < list->size()) {
      return list->at(static_cast<std::size_t>(*index));
    }
    *present = false;
    if (presence_test) return Value();
    return Value::error(ErrorCode::kInvalidArgument, "index out of bounds: " + go_format_value(key));
  }
  *present = false;
  return presence_test ? Value() : missing_key(key);
}

bool runtime_type_matches(const Type& type, const Value& value) {
  switch (type.kind()) {
    case TypeKind::kDyn:
    case TypeKind::kTypeParam:
      return true;
    case TypeKind::kNull:
      return value.is_null();
    case TypeKind::kBool:
      return value.is<bool>();
    case TypeKind::kInt:
      return value.is<std::int64_t>();
    case TypeKind::kUint:
      return value.is<std::uint64_t>();
    case TypeKind::kDouble:
      return value.is<double>();
    case TypeKind::kString:
      return value.is<std::string>();
    case TypeKind::kBytes:
      return value.is<Bytes>();
    case TypeKind::kTimestamp:
      return value.is<Timestamp>();
    case TypeKind::kDuration:
      return value.is<Duration>();
    case TypeKind::kList:
      return value.as_list() != nullptr;
    case TypeKind::kMap:
    case TypeKind::kObject:
      return value.as_map() != nullptr;
    case TypeKind::kType:
      return value.is<TypeValue>();
    case TypeKind::kOpaque:
      if (type.is_optional()) return value.is<OptionalValue>();
      if (const auto* opaque = value.get_if<std::shared_ptr<const Opaque>>()) {
        return (*opaque)->type_name() == type.name();
      }
      return false;
    case TypeKind::kError:
      return false;
  }
  return false;
}

}  // namespace kapi::cel::interp

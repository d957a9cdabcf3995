// Value conversions as cel-go's cel.ProtoAsValue / cel.ValueAsProto, and the match of cel-go's conformance runner
// (protocmp with map entries sorted).
#include "tests/cel_conformance/values.h"

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

#include <cmath>
#include <memory>

#include "tests/cel_conformance/decls.h"

namespace kapi::cel::conformance {
namespace {

namespace expr = ::cel::expr;

constexpr std::string_view kTimestampUrl = "type.googleapis.com/google.protobuf.Timestamp";
constexpr std::string_view kDurationUrl = "type.googleapis.com/google.protobuf.Duration";

Value object_value(const google::protobuf::Any& any) {
  if (any.type_url() == kTimestampUrl) {
    google::protobuf::Timestamp timestamp;
    if (!any.UnpackTo(&timestamp)) throw Unsupported("malformed google.protobuf.Timestamp");
    return Value(Timestamp{timestamp.seconds(), timestamp.nanos()});
  }
  if (any.type_url() == kDurationUrl) {
    google::protobuf::Duration duration;
    if (!any.UnpackTo(&duration)) throw Unsupported("malformed google.protobuf.Duration");
    // cel-go holds a duration as int64 nanoseconds (time.Duration); the test files stay within that range.
    return Value(Duration{duration.seconds() * 1'000'000'000 + duration.nanos()});
  }
  throw Unsupported("message value " + any.type_url());
}

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

std::string quoted(std::string_view text, std::string_view prefix = "") {
  std::string out(prefix);
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

// Follows the expected value's shape; nesting is as deep as the test file writes it.
std::optional<std::string> mismatch_at(const std::string& path, const expr::Value& expected, const Value& actual) {
  auto differs = [&]() -> std::optional<std::string> {
    return (path.empty() ? "" : "at " + path + ": ") + "want " + describe(expected) + ", got " +
           debug_string(actual);
  };
  switch (expected.kind_case()) {
    case expr::Value::kNullValue:
      return actual.is_null() ? std::nullopt : differs();
    case expr::Value::kBoolValue: {
      const bool* b = actual.get_if<bool>();
      return b && *b == expected.bool_value() ? std::nullopt : differs();
    }
    case expr::Value::kInt64Value: {
      const std::int64_t* i = actual.get_if<std::int64_t>();
      return i && *i == expected.int64_value() ? std::nullopt : differs();
    }
    case expr::Value::kUint64Value: {
      const std::uint64_t* u = actual.get_if<std::uint64_t>();
      return u && *u == expected.uint64_value() ? std::nullopt : differs();
    }
    case expr::Value::kDoubleValue: {
      const double* d = actual.get_if<double>();
      return d && same_double(*d, expected.double_value()) ? std::nullopt : differs();
    }
    case expr::Value::kStringValue: {
      const std::string* s = actual.get_if<std::string>();
      return s && *s == expected.string_value() ? std::nullopt : differs();
    }
    case expr::Value::kBytesValue: {
      const Bytes* b = actual.get_if<Bytes>();
      return b && b->data == expected.bytes_value() ? std::nullopt : differs();
    }
    case expr::Value::kTypeValue: {
      const TypeValue* t = actual.get_if<TypeValue>();
      return t && t->name == expected.type_value() ? std::nullopt : differs();
    }
    case expr::Value::kObjectValue: {
      Value want = object_value(expected.object_value());
      if (const Timestamp* t = want.get_if<Timestamp>()) {
        const Timestamp* got = actual.get_if<Timestamp>();
        return got && *got == *t ? std::nullopt : differs();
      }
      const Duration* got = actual.get_if<Duration>();
      return got && *got == want.get<Duration>() ? std::nullopt : differs();
    }
    case expr::Value::kListValue: {
      const List* list = actual.as_list();
      const auto& want = expected.list_value().values();
      if (!list || list->size() != static_cast<std::size_t>(want.size())) return differs();
      for (int i = 0; i < want.size(); ++i) {
        if (auto inner = mismatch_at(path + "[" + std::to_string(i) + "]", want[i], list->at(i))) return inner;
      }
      return std::nullopt;
    }
    case expr::Value::kMapValue: {
      const Map* map = actual.as_map();
      const auto& want = expected.map_value().entries();
      if (!map || map->size() != static_cast<std::size_t>(want.size())) return differs();
      // Keys must match exactly too (an int key 1 is not the uint key 1u), so look them up by comparison.
      for (const auto& entry : want) {
        bool found = false;
        for (std::size_t i = 0; i < map->size() && !found; ++i) {
          Value key = map->key_at(i);
          if (mismatch_at("", entry.key(), key)) continue;
          found = true;
          std::optional<Value> value = map->find(key);
          if (!value) return differs();
          if (auto inner = mismatch_at(path + "[" + describe(entry.key()) + "]", entry.value(), *value)) {
            return inner;
          }
        }
        if (!found) return differs();
      }
      return std::nullopt;
    }
    case expr::Value::kEnumValue:
      throw Unsupported("enum value");
    case expr::Value::KIND_NOT_SET:
      return differs();
  }
  return differs();
}

}  // namespace

Value to_cel_value(const expr::Value& value) {
  switch (value.kind_case()) {
    case expr::Value::kNullValue: return Value();
    case expr::Value::kBoolValue: return Value(value.bool_value());
    case expr::Value::kInt64Value: return Value(std::int64_t{value.int64_value()});
    case expr::Value::kUint64Value: return Value(std::uint64_t{value.uint64_value()});
    case expr::Value::kDoubleValue: return Value(value.double_value());
    case expr::Value::kStringValue: return Value(value.string_value());
    case expr::Value::kBytesValue: return Value(Bytes{value.bytes_value()});
    case expr::Value::kTypeValue: return Value(TypeValue{value.type_value()});
    case expr::Value::kObjectValue: return object_value(value.object_value());
    case expr::Value::kListValue: {
      std::vector<Value> elements;
      for (const expr::Value& element : value.list_value().values()) elements.push_back(to_cel_value(element));
      return Value::list(std::move(elements));
    }
    case expr::Value::kMapValue: {
      std::vector<std::pair<Value, Value>> entries;
      for (const auto& entry : value.map_value().entries()) {
        entries.emplace_back(to_cel_value(entry.key()), to_cel_value(entry.value()));
      }
      return Value::map(std::move(entries));
    }
    case expr::Value::kEnumValue: throw Unsupported("enum value");
    case expr::Value::KIND_NOT_SET: break;
  }
  throw Unsupported("value without a kind");
}

Value to_cel_value(const expr::ExprValue& value) {
  if (value.has_value()) return to_cel_value(value.value());
  if (value.has_error()) {
    std::string message;
    for (const auto& status : value.error().errors()) message += (message.empty() ? "" : "; ") + status.message();
    return Value::error(ErrorCode::kGeneric, message);
  }
  throw Unsupported("unknown binding");
}

std::optional<std::string> mismatch(const expr::Value& expected, const Value& actual) {
  return mismatch_at("", expected, actual);
}

std::string describe(const expr::Value& value) {
  switch (value.kind_case()) {
    case expr::Value::kNullValue: return "null";
    case expr::Value::kBoolValue: return value.bool_value() ? "true" : "false";
    case expr::Value::kInt64Value: return std::to_string(value.int64_value());
    case expr::Value::kUint64Value: return std::to_string(value.uint64_value()) + "u";
    case expr::Value::kDoubleValue: {
      Value as_cel(value.double_value());
      return debug_string(as_cel);
    }
    case expr::Value::kStringValue: return quoted(value.string_value());
    case expr::Value::kBytesValue: return quoted(value.bytes_value(), "b");
    case expr::Value::kTypeValue: return "type(" + value.type_value() + ")";
    case expr::Value::kEnumValue: return "enum " + value.enum_value().type();
    case expr::Value::kObjectValue:
      try {
        return debug_string(object_value(value.object_value()));
      } catch (const Unsupported&) {
        return "message " + value.object_value().type_url();
      }
    case expr::Value::kListValue: {
      std::string out = "[";
      for (const expr::Value& element : value.list_value().values()) {
        out += (out.size() > 1 ? ", " : "") + describe(element);
      }
      return out + "]";
    }
    case expr::Value::kMapValue: {
      std::string out = "{";
      for (const auto& entry : value.map_value().entries()) {
        out += (out.size() > 1 ? ", " : "") + describe(entry.key()) + ": " + describe(entry.value());
      }
      return out + "}";
    }
    case expr::Value::KIND_NOT_SET: break;
  }
  return "<no value>";
}

}  // namespace kapi::cel::conformance

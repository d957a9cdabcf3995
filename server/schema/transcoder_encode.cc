// JSON to protobuf: fields in field-number order and map keys sorted, as kube's generated marshalers write them;
// JSON fields the schema does not know are dropped, and a value of the wrong JSON type is an error naming the field.
#include "base/base64.h"
#include "base/duration.h"
#include "base/go_time.h"
#include "server/schema/transcoder_internal.h"
#include "server/schema/wire.h"

#include <boost/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace kapi::schema::transcoding {
namespace {

namespace pb = google::protobuf;
namespace json = boost::json;

std::string describe(const json::value& value) {
  switch (value.kind()) {
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::string: return "string";
    case json::kind::bool_: return "bool";
    case json::kind::null: return "null";
    default: return "number";
  }
}

[[noreturn]] void wrong_type(const json::value& value, const pb::FieldDescriptor& field, std::string_view want) {
  throw TranscodeError("json: cannot unmarshal " + describe(value) + " into field " + field.containing_type()->name() +
                       "." + json_name(field) + " of type " + std::string(want));
}

std::optional<std::int64_t> as_integer(const json::value& value) {
  if (value.is_int64()) return value.get_int64();
  if (value.is_uint64()) {
    if (value.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(value.get_uint64());
  }
  if (value.is_double()) {
    const double number = value.get_double();
    if (std::trunc(number) != number || std::abs(number) >= 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(number);
  }
  return std::nullopt;
}

std::string number_text(const json::value& value) {
  if (value.is_int64()) return std::to_string(value.get_int64());
  if (value.is_uint64()) return std::to_string(value.get_uint64());
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value.get_double());
  return error == std::errc() ? std::string(buffer, end) : "0";
}

void field_wire(const Catalog& catalog, const pb::FieldDescriptor& field, const json::value& value, std::string& out,
                int depth);
void special_wire(Special special, const pb::Descriptor& message, const json::value& value, std::string& out);

}  // namespace

void message_wire(const Catalog& catalog, const pb::Descriptor& message, const json::value& value, std::string& out,
                  int depth) {
  check_depth(depth);
  if (const Special special = Catalog::special(&message); special != Special::kNone)
    return special_wire(special, message, value, out);
  if (value.is_null()) return;  // a zero message: Go writes no fields
  if (!value.is_object())
    throw TranscodeError("json: cannot unmarshal " + describe(value) + " into " + message.name());
  const json::object& object = value.get_object();
  std::vector<const pb::FieldDescriptor*> fields;
  fields.reserve(static_cast<std::size_t>(message.field_count()));
  for (int i = 0; i < message.field_count(); ++i) fields.push_back(message.field(i));
  // Field-number order, as kube's generated marshalers write.
  std::sort(fields.begin(), fields.end(), [](auto* a, auto* b) { return a->number() < b->number(); });
  for (const pb::FieldDescriptor* field : fields) {
    if (catalog.markers(field).inline_fields && field->message_type()) {
      // +inline (Go's embedded struct): the nested message is made of the parent's own JSON members.
      std::string body;
      message_wire(catalog, *field->message_type(), value, body, depth + 1);
      wire::put_bytes(out, field->number(), body);
      continue;
    }
    const json::value* found = object.if_contains(json_name(*field));
    if (!found || found->is_null()) continue;
    if (field->is_map()) {
      if (!found->is_object()) wrong_type(*found, *field, "map");
      const pb::Descriptor& entry = *field->message_type();
      std::vector<std::string_view> keys;
      for (const auto& item : found->get_object()) keys.push_back(item.key());
      std::sort(keys.begin(), keys.end());
      for (std::string_view key : keys) {
        std::string body;
        if (entry.map_key()->type() == pb::FieldDescriptor::TYPE_STRING) {
          wire::put_bytes(body, 1, key);
        } else {
          std::int64_t number = 0;
          auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), number);
          if (error != std::errc() || end != key.data() + key.size()) wrong_type(json::string(key), *field, "map key");
          field_wire(catalog, *entry.map_key(), number, body, depth + 1);
        }
        field_wire(catalog, *entry.map_value(), found->get_object().at(key), body, depth + 1);
        wire::put_bytes(out, field->number(), body);
      }
    } else if (field->is_repeated()) {
      if (!found->is_array()) wrong_type(*found, *field, "array");
      for (const json::value& item : found->get_array()) field_wire(catalog, *field, item, out, depth);
    } else {
      field_wire(catalog, *field, *found, out, depth);
    }
  }
}

namespace {

// One value of a field (an element, for a repeated one), tag included. A JSON null inside an array or a map is the
// field type's zero value, as in Go.
void field_wire(const Catalog& catalog, const pb::FieldDescriptor& field, const json::value& value, std::string& out,
                int depth) {
  using T = pb::FieldDescriptor;
  const int number = field.number();
  if (field.type() == T::TYPE_MESSAGE) {
    std::string body;
    message_wire(catalog, *field.message_type(), value, body, depth + 1);
    wire::put_bytes(out, number, body);
    return;
  }
  const json::value& given = value;
  switch (field.type()) {
    case T::TYPE_STRING:
      if (!given.is_string() && !given.is_null()) wrong_type(given, field, "string");
      wire::put_bytes(out, number, given.is_null() ? std::string_view{} : std::string_view(given.get_string()));
      return;
    case T::TYPE_BYTES: {
      if (!given.is_string() && !given.is_null()) wrong_type(given, field, "[]byte");
      auto decoded = given.is_null() ? std::optional<std::string>("") : base::base64_decode(given.get_string());
      if (!decoded) throw TranscodeError("illegal base64 data in field " + field.containing_type()->name() + "." + json_name(field));
      wire::put_bytes(out, number, *decoded);
      return;
    }
    case T::TYPE_BOOL:
      if (!given.is_bool() && !given.is_null()) wrong_type(given, field, "bool");
      wire::put_varint_field(out, number, given.is_bool() && given.get_bool() ? 1 : 0);
      return;
    case T::TYPE_FLOAT:
    case T::TYPE_DOUBLE: {
      if (!given.is_number() && !given.is_null()) wrong_type(given, field, "float64");
      const double number_value = given.is_null() ? 0.0 : given.to_number<double>();
      wire::put_tag(out, number, field.type() == T::TYPE_FLOAT ? wire::kFixed32 : wire::kFixed64);
      if (field.type() == T::TYPE_FLOAT) wire::put_fixed(out, std::bit_cast<std::uint32_t>(static_cast<float>(number_value)), 4);
      else wire::put_fixed(out, std::bit_cast<std::uint64_t>(number_value), 8);
      return;
    }
    default: break;
  }
  // The integer types.
  std::int64_t integer = 0;
  if (!given.is_null()) {
    const bool unsigned_64 = field.type() == T::TYPE_UINT64 || field.type() == T::TYPE_FIXED64;
    if (unsigned_64 && given.is_uint64()) {
      integer = static_cast<std::int64_t>(given.get_uint64());
    } else {
      auto parsed = as_integer(given);
      const bool is_32 = field.cpp_type() == pb::FieldDescriptor::CPPTYPE_INT32 ||
                         field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 ||
                         field.cpp_type() == pb::FieldDescriptor::CPPTYPE_ENUM;
      const bool is_unsigned = field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 ||
                               field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT64;
      if (!parsed || (is_32 && !is_unsigned && (*parsed < INT32_MIN || *parsed > INT32_MAX)) ||
          (is_32 && is_unsigned && (*parsed < 0 || *parsed > UINT32_MAX)) || (is_unsigned && *parsed < 0))
        wrong_type(given, field, is_32 ? (is_unsigned ? "uint32" : "int32") : (is_unsigned ? "uint64" : "int64"));
      integer = *parsed;
    }
  }
  const auto bits = static_cast<std::uint64_t>(integer);
  switch (field.type()) {
    case T::TYPE_SINT32:
    case T::TYPE_SINT64:
      wire::put_varint_field(out, number, (bits << 1) ^ static_cast<std::uint64_t>(integer >> 63));
      return;
    case T::TYPE_FIXED32:
    case T::TYPE_SFIXED32: wire::put_tag(out, number, wire::kFixed32); wire::put_fixed(out, bits, 4); return;
    case T::TYPE_FIXED64:
    case T::TYPE_SFIXED64: wire::put_tag(out, number, wire::kFixed64); wire::put_fixed(out, bits, 8); return;
    default: wire::put_varint_field(out, number, bits); return;
  }
}

void special_wire(Special special, const pb::Descriptor& message, const json::value& value, std::string& out) {
  const auto fail = [&](std::string_view want) -> void {
    throw TranscodeError("json: cannot unmarshal " + describe(value) + " into " + message.name() + " (" +
                         std::string(want) + ")");
  };
  if (value.is_null()) return;  // the zero value: no bytes
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime: {
      if (!value.is_string()) fail("an RFC 3339 time string");
      // What decoding a body accepts (schema::conform), and any year the decoder writes: a protobuf client may send
      // times past 9999, which kube stores and serves. A MicroTime's fraction may have any length here.
      const std::string_view text = value.get_string();
      auto at = base::parse_go_time(text, base::TimeLayout::kRfc3339, true).time;
      if (!at && special == Special::kMicroTime)
        at = base::parse_go_time(text, base::TimeLayout::kRfc3339Micro, true).time;
      if (!at) throw TranscodeError("parsing time \"" + std::string(value.get_string()) + "\" as RFC 3339 failed");
      if (at->seconds == base::kZeroTimeSeconds && at->nanos == 0) return;
      wire::put_varint_field(out, 1, static_cast<std::uint64_t>(at->seconds));
      wire::put_varint_field(out, 2, special == Special::kTime ? 0 : static_cast<std::uint64_t>(at->nanos));
      return;
    }
    case Special::kDuration: {
      if (!value.is_string()) fail("a duration string");
      auto nanoseconds = base::parse_go_duration(value.get_string());
      if (!nanoseconds) throw TranscodeError("time: invalid duration \"" + std::string(value.get_string()) + "\"");
      wire::put_varint_field(out, 1, static_cast<std::uint64_t>(nanoseconds->count()));
      return;
    }
    case Special::kQuantity:
      if (value.is_string()) wire::put_bytes(out, 1, value.get_string());
      else if (value.is_number()) wire::put_bytes(out, 1, number_text(value));
      else fail("a quantity string or number");
      return;
    case Special::kIntOrString: {
      if (value.is_string()) {
        wire::put_varint_field(out, 1, 1);
        wire::put_varint_field(out, 2, 0);
        wire::put_bytes(out, 3, value.get_string());
        return;
      }
      auto integer = as_integer(value);
      if (!integer || *integer < INT32_MIN || *integer > INT32_MAX) fail("an int32 or a string");
      wire::put_varint_field(out, 1, 0);
      wire::put_varint_field(out, 2, static_cast<std::uint64_t>(*integer));
      wire::put_bytes(out, 3, {});
      return;
    }
    case Special::kRawExtension:
    case Special::kFieldsV1: wire::put_bytes(out, 1, json::serialize(value)); return;
    case Special::kStringList:
      if (!value.is_array()) fail("an array of strings");
      for (const json::value& item : value.get_array()) {
        if (!item.is_string()) fail("an array of strings");
        wire::put_bytes(out, 1, item.get_string());
      }
      return;
    case Special::kNone: return;
  }
}

}  // namespace
}  // namespace kapi::schema::transcoding

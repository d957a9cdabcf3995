// The transcoder walks the wire format directly against the descriptors rather than building DynamicMessages:
// Kubernetes' JSON needs exact control a reflected message does not give (proto2 presence as Go's marshalers
// write it, JSON keys in declaration order as Go writes struct fields, sorted map keys, the special types read and
// written as whole values, unknown fields skipped for free), it allocates no message tree per request, and one
// depth counter bounds every recursion, through embedded envelopes too.
#include "server/schema/transcoder.h"

#include "server/schema/go_text.h"
#include "server/schema/wire.h"

#include <boost/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace kapi::schema {
namespace {

namespace pb = google::protobuf;
namespace json = boost::json;
using wire::Reader;

constexpr std::string_view kMetaPackage = "k8s.io.apimachinery.pkg.apis.meta.v1.";

const std::string& json_name(const pb::FieldDescriptor& field) {
  return field.has_json_name() ? field.json_name() : field.name();
}

int expected_wire_type(const pb::FieldDescriptor& field) {
  switch (field.type()) {
    case pb::FieldDescriptor::TYPE_DOUBLE:
    case pb::FieldDescriptor::TYPE_FIXED64:
    case pb::FieldDescriptor::TYPE_SFIXED64: return wire::kFixed64;
    case pb::FieldDescriptor::TYPE_FLOAT:
    case pb::FieldDescriptor::TYPE_FIXED32:
    case pb::FieldDescriptor::TYPE_SFIXED32: return wire::kFixed32;
    case pb::FieldDescriptor::TYPE_STRING:
    case pb::FieldDescriptor::TYPE_BYTES:
    case pb::FieldDescriptor::TYPE_MESSAGE: return wire::kLengthDelimited;
    case pb::FieldDescriptor::TYPE_GROUP: return wire::kStartGroup;
    default: return wire::kVarint;
  }
}

// One value of a known field, as it came off the wire.
struct WireValue {
  const pb::FieldDescriptor* field;
  int wire_type;
  std::uint64_t bits = 0;   // varint and fixed values
  std::string_view bytes;   // length-delimited values
};

// Every value of a field the message knows, in wire order; unknown fields are skipped.
std::vector<WireValue> read_fields(const pb::Descriptor& message, std::string_view bytes) {
  std::vector<WireValue> values;
  Reader reader(bytes);
  while (!reader.done()) {
    auto [number, wire_type] = reader.tag();
    const pb::FieldDescriptor* field =
        number <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
            ? message.FindFieldByNumber(static_cast<int>(number))
            : nullptr;
    if (!field) {
      reader.skip(wire_type);
      continue;
    }
    const bool packed = wire_type == wire::kLengthDelimited && field->is_repeated() && field->is_packable();
    if (wire_type != expected_wire_type(*field) && !packed)
      throw TranscodeError("proto: wrong wireType = " + std::to_string(wire_type) + " for field " + field->name());
    WireValue value{field, wire_type};
    switch (wire_type) {
      case wire::kVarint: value.bits = reader.varint(); break;
      case wire::kFixed64: value.bits = reader.fixed(8); break;
      case wire::kFixed32: value.bits = reader.fixed(4); break;
      default: value.bytes = reader.length_delimited(); break;
    }
    values.push_back(value);
  }
  return values;
}

std::int64_t zigzag(std::uint64_t bits) {
  return static_cast<std::int64_t>(bits >> 1) ^ -static_cast<std::int64_t>(bits & 1);
}

json::value finite(double value, const pb::FieldDescriptor& field) {
  if (!std::isfinite(value)) throw TranscodeError("json: unsupported value: " + std::to_string(value) + " in field " + field.name());
  return value;
}

json::value scalar_json(const pb::FieldDescriptor& field, std::uint64_t bits, std::string_view bytes) {
  using T = pb::FieldDescriptor;
  switch (field.type()) {
    case T::TYPE_INT32:
    case T::TYPE_SFIXED32:
    case T::TYPE_ENUM: return static_cast<std::int64_t>(static_cast<std::int32_t>(bits));
    case T::TYPE_INT64:
    case T::TYPE_SFIXED64: return static_cast<std::int64_t>(bits);
    case T::TYPE_SINT32: return static_cast<std::int64_t>(static_cast<std::int32_t>(zigzag(bits & 0xFFFFFFFF)));
    case T::TYPE_SINT64: return zigzag(bits);
    case T::TYPE_UINT32:
    case T::TYPE_FIXED32: return static_cast<std::int64_t>(bits & 0xFFFFFFFF);
    case T::TYPE_UINT64:
    case T::TYPE_FIXED64:
      if (bits <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(bits);
      return bits;
    case T::TYPE_BOOL: return bits != 0;
    case T::TYPE_FLOAT: return finite(std::bit_cast<float>(static_cast<std::uint32_t>(bits)), field);
    case T::TYPE_DOUBLE: return finite(std::bit_cast<double>(bits), field);
    case T::TYPE_STRING: return json::string(valid_utf8(bytes));
    case T::TYPE_BYTES: return json::string(base64_encode(bytes));
    default: throw TranscodeError("proto: unsupported field type of " + field.name());
  }
}

// The scalar values of one wire value: several for a packed repeated field.
void append_scalars(const WireValue& value, json::array& out) {
  const pb::FieldDescriptor& field = *value.field;
  if (value.wire_type != wire::kLengthDelimited || field.type() == pb::FieldDescriptor::TYPE_STRING ||
      field.type() == pb::FieldDescriptor::TYPE_BYTES) {
    out.push_back(scalar_json(field, value.bits, value.bytes));
    return;
  }
  Reader packed(value.bytes);
  const int element = expected_wire_type(field);
  while (!packed.done()) {
    const std::uint64_t bits =
        element == wire::kVarint ? packed.varint() : packed.fixed(element == wire::kFixed64 ? 8 : 4);
    out.push_back(scalar_json(field, bits, {}));
  }
}

// Reads the few varint and string fields of kube's special messages (Time, IntOrString, ...) by number.
struct SmallMessage {
  std::map<std::uint64_t, std::uint64_t> varints;
  std::map<std::uint64_t, std::string_view> strings;

  explicit SmallMessage(std::string_view bytes) {
    Reader reader(bytes);
    while (!reader.done()) {
      auto [number, wire_type] = reader.tag();
      if (wire_type == wire::kVarint) varints[number] = reader.varint();
      else if (wire_type == wire::kLengthDelimited) strings[number] = reader.length_delimited();
      else reader.skip(wire_type);
    }
  }
  std::int64_t integer(std::uint64_t number) const {
    auto found = varints.find(number);
    return found == varints.end() ? 0 : static_cast<std::int64_t>(found->second);
  }
  std::optional<std::string_view> string(std::uint64_t number) const {
    auto found = strings.find(number);
    if (found == strings.end()) return std::nullopt;
    return found->second;
  }
};

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

class Walker {
 public:
  explicit Walker(const Catalog& catalog) : catalog_(catalog) {}

  json::value message_json(const pb::Descriptor& message, std::string_view bytes, int depth) const;
  void message_wire(const pb::Descriptor& message, const json::value& value, std::string& out, int depth) const;
  json::object decode_envelope(std::string_view bytes, const TypeMeta& defaults, int depth) const;

  const pb::Descriptor* message_for(std::string_view api_version, std::string_view kind) const {
    const auto slash = api_version.find('/');
    const std::string_view group = slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
    const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
    if (version.empty() || kind.empty()) return nullptr;
    if (const auto* found = catalog_.kind(group, version, kind)) return found;
    // metav1.AddToGroupVersion and the unversioned types: these meta kinds are served in every group version.
    static constexpr std::string_view kMetaKinds[] = {"Status", "WatchEvent", "DeleteOptions", "ListOptions",
                                                      "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions",
                                                      "PartialObjectMetadata", "PartialObjectMetadataList"};
    if (std::find(std::begin(kMetaKinds), std::end(kMetaKinds), kind) == std::end(kMetaKinds)) return nullptr;
    return catalog_.message(std::string(kMetaPackage) + std::string(kind));
  }

 private:
  json::value special_json(Special special, std::string_view bytes, int depth) const;
  json::value embedded_json(std::string_view raw, int depth) const;
  json::value value_json(const pb::FieldDescriptor& field, const WireValue& value, int depth) const;
  json::value map_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end, int depth) const;
  void special_wire(Special special, const pb::Descriptor& message, const json::value& value, std::string& out) const;
  void field_wire(const pb::FieldDescriptor& field, const json::value& value, std::string& out, int depth) const;

  const Catalog& catalog_;
};

void check_depth(int depth) {
  if (depth > kMaxMessageDepth)
    throw TranscodeError("object nests deeper than " + std::to_string(kMaxMessageDepth) + " levels");
}

json::value Walker::message_json(const pb::Descriptor& message, std::string_view bytes, int depth) const {
  check_depth(depth);
  if (const Special special = Catalog::special(&message); special != Special::kNone)
    return special_json(special, bytes, depth);
  std::vector<WireValue> values = read_fields(message, bytes);
  // Declaration order is Go's struct order, which is the order Go writes JSON fields in; stable keeps the wire
  // order of a repeated field's elements.
  std::stable_sort(values.begin(), values.end(),
                   [](const WireValue& a, const WireValue& b) { return a.field->index() < b.field->index(); });
  json::object out;
  for (std::size_t at = 0; at < values.size();) {
    std::size_t end = at;
    while (end < values.size() && values[end].field == values[at].field) ++end;
    const pb::FieldDescriptor& field = *values[at].field;
    if (field.is_map()) {
      out.emplace(json_name(field), map_json(field, values.data() + at, values.data() + end, depth));
    } else if (field.is_repeated()) {
      json::array items;
      for (std::size_t i = at; i < end; ++i) {
        if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) items.push_back(value_json(field, values[i], depth));
        else append_scalars(values[i], items);
      }
      out.emplace(json_name(field), std::move(items));
    } else if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE && end - at > 1) {
      // A message sent in several parts is their merge, which is what parsing the concatenation gives.
      std::string merged;
      for (std::size_t i = at; i < end; ++i) merged.append(values[i].bytes);
      WireValue whole = values[at];
      whole.bytes = merged;
      out.emplace(json_name(field), value_json(field, whole, depth));
    } else {
      out.emplace(json_name(field), value_json(field, values[end - 1], depth));
    }
    at = end;
  }
  return out;
}

json::value Walker::value_json(const pb::FieldDescriptor& field, const WireValue& value, int depth) const {
  if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) return message_json(*field.message_type(), value.bytes, depth + 1);
  return scalar_json(field, value.bits, value.bytes);
}

json::value Walker::map_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end,
                             int depth) const {
  const pb::Descriptor& entry = *field.message_type();
  const pb::FieldDescriptor& key_field = *entry.map_key();
  const pb::FieldDescriptor& value_field = *entry.map_value();
  // encoding/json writes map keys sorted; a key sent twice keeps its last value, as Go's map assignment does.
  std::map<std::string, json::value> sorted;
  for (const WireValue* item = begin; item != end; ++item) {
    std::string key;
    std::optional<json::value> mapped;
    for (const WireValue& part : read_fields(entry, item->bytes)) {
      if (part.field == &key_field) {
        json::value key_value = scalar_json(key_field, part.bits, part.bytes);
        key = key_value.is_string() ? std::string(key_value.get_string()) : json::serialize(key_value);
      } else {
        mapped = value_json(value_field, part, depth + 1);
      }
    }
    if (!mapped) {
      mapped = value_field.type() == pb::FieldDescriptor::TYPE_MESSAGE
                   ? message_json(*value_field.message_type(), {}, depth + 2)
                   : scalar_json(value_field, 0, {});
    }
    sorted.insert_or_assign(std::move(key), std::move(*mapped));
  }
  json::object out;
  out.reserve(sorted.size());
  for (auto& [key, value] : sorted) out.emplace(key, std::move(value));
  return out;
}

json::value Walker::special_json(Special special, std::string_view bytes, int depth) const {
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime: {
      // time_proto.go: no bytes is the zero time; Time keeps seconds only.
      if (bytes.empty()) return nullptr;
      SmallMessage time(bytes);
      UnixTime at{time.integer(1), 0};
      if (special == Special::kMicroTime) {
        // time.Unix normalizes nanoseconds outside [0, 1e9) into the seconds.
        const auto nanos = static_cast<std::int64_t>(static_cast<std::int32_t>(time.integer(2)));
        const std::int64_t carry = nanos >= 0 ? nanos / 1'000'000'000 : (nanos + 1) / 1'000'000'000 - 1;
        at.seconds += carry;
        at.nanos = static_cast<std::int32_t>(nanos - carry * 1'000'000'000);
      }
      if (at.seconds == kZeroTimeSeconds && at.nanos == 0) return nullptr;
      return json::string(special == Special::kTime ? format_rfc3339(at.seconds) : format_rfc3339_micro(at));
    }
    case Special::kDuration: return json::string(format_go_duration(SmallMessage(bytes).integer(1)));
    case Special::kQuantity: {
      auto text = SmallMessage(bytes).string(1);
      return json::string(text ? valid_utf8(*text) : "0");
    }
    case Special::kIntOrString: {
      SmallMessage value(bytes);
      if (value.integer(1) == 1) return json::string(valid_utf8(value.string(3).value_or("")));
      return static_cast<std::int64_t>(static_cast<std::int32_t>(value.integer(2)));
    }
    case Special::kRawExtension:
    case Special::kFieldsV1: return embedded_json(SmallMessage(bytes).string(1).value_or(""), depth);
    case Special::kNone: break;
  }
  return nullptr;
}

// RawExtension.MarshalJSON writes its raw bytes as they are: JSON, or (in protobuf watch events and lists of
// mixed kinds) an enveloped protobuf object, which becomes its JSON form here.
json::value Walker::embedded_json(std::string_view raw, int depth) const {
  if (raw.empty()) return nullptr;
  if (raw.starts_with(kProtobufPrefix)) return decode_envelope(raw, {}, depth + 1);
  json::parse_options options;
  options.max_depth = static_cast<std::size_t>(kMaxMessageDepth);
  boost::system::error_code error;
  json::value value = json::parse(raw, error, {}, options);
  if (error) throw TranscodeError("embedded object is neither JSON nor protobuf: " + error.message());
  return value;
}

json::object Walker::decode_envelope(std::string_view bytes, const TypeMeta& defaults, int depth) const {
  check_depth(depth);
  Unknown unknown = read_envelope(bytes);
  if (!unknown.content_encoding.empty())
    throw TranscodeError("unsupported content encoding \"" + unknown.content_encoding + "\"");
  TypeMeta type = unknown.type_meta;
  if (type.kind.empty()) type.kind = defaults.kind;
  if (type.api_version.empty()) type.api_version = defaults.api_version;
  if (type.kind.empty()) throw TranscodeError("Object 'Kind' is missing in the protobuf envelope");
  if (type.api_version.empty()) throw TranscodeError("Object 'apiVersion' is missing in the protobuf envelope");
  const pb::Descriptor* message = message_for(type.api_version, type.kind);
  if (!message)
    throw TranscodeError("no kind \"" + type.kind + "\" is registered for version \"" + type.api_version + "\"");
  json::value fields = message_json(*message, unknown.raw, depth + 1);
  json::object out;
  out.reserve(fields.is_object() ? fields.get_object().size() + 2 : 2);
  out.emplace("kind", type.kind);
  out.emplace("apiVersion", type.api_version);
  if (fields.is_object())
    for (auto& [key, value] : fields.get_object()) out.emplace(key, std::move(value));
  return out;
}

void Walker::message_wire(const pb::Descriptor& message, const json::value& value, std::string& out, int depth) const {
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
          field_wire(*entry.map_key(), number, body, depth + 1);
        }
        field_wire(*entry.map_value(), found->get_object().at(key), body, depth + 1);
        wire::put_bytes(out, field->number(), body);
      }
    } else if (field->is_repeated()) {
      if (!found->is_array()) wrong_type(*found, *field, "array");
      for (const json::value& item : found->get_array()) field_wire(*field, item, out, depth);
    } else {
      field_wire(*field, *found, out, depth);
    }
  }
}

// One value of a field (an element, for a repeated one), tag included. A JSON null inside an array or a map is the
// field type's zero value, as in Go.
void Walker::field_wire(const pb::FieldDescriptor& field, const json::value& value, std::string& out, int depth) const {
  using T = pb::FieldDescriptor;
  const int number = field.number();
  if (field.type() == T::TYPE_MESSAGE) {
    std::string body;
    message_wire(*field.message_type(), value, body, depth + 1);
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
      auto decoded = given.is_null() ? std::optional<std::string>("") : base64_decode(given.get_string());
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

void Walker::special_wire(Special special, const pb::Descriptor& message, const json::value& value,
                          std::string& out) const {
  const auto fail = [&](std::string_view want) -> void {
    throw TranscodeError("json: cannot unmarshal " + describe(value) + " into " + message.name() + " (" +
                         std::string(want) + ")");
  };
  if (value.is_null()) return;  // the zero value: no bytes
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime: {
      if (!value.is_string()) fail("an RFC 3339 time string");
      auto at = parse_rfc3339(value.get_string());
      if (!at) throw TranscodeError("parsing time \"" + std::string(value.get_string()) + "\" as RFC 3339 failed");
      if (at->seconds == kZeroTimeSeconds && at->nanos == 0) return;
      wire::put_varint_field(out, 1, static_cast<std::uint64_t>(at->seconds));
      wire::put_varint_field(out, 2, special == Special::kTime ? 0 : static_cast<std::uint64_t>(at->nanos));
      return;
    }
    case Special::kDuration: {
      if (!value.is_string()) fail("a duration string");
      auto nanoseconds = parse_go_duration(value.get_string());
      if (!nanoseconds) throw TranscodeError("time: invalid duration \"" + std::string(value.get_string()) + "\"");
      wire::put_varint_field(out, 1, static_cast<std::uint64_t>(*nanoseconds));
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
    case Special::kNone: return;
  }
}

}  // namespace

std::string write_envelope(const Unknown& unknown) {
  std::string type_meta;
  wire::put_bytes(type_meta, 1, unknown.type_meta.api_version);
  wire::put_bytes(type_meta, 2, unknown.type_meta.kind);
  std::string out(kProtobufPrefix);
  out.reserve(unknown.raw.size() + type_meta.size() + 32);
  wire::put_bytes(out, 1, type_meta);
  wire::put_bytes(out, 2, unknown.raw);
  wire::put_bytes(out, 3, unknown.content_encoding);
  wire::put_bytes(out, 4, unknown.content_type);
  return out;
}

Unknown read_envelope(std::string_view bytes) {
  if (bytes.empty()) throw TranscodeError("empty data");
  if (!bytes.starts_with(kProtobufPrefix))
    throw TranscodeError("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  bytes.remove_prefix(kProtobufPrefix.size());
  if (bytes.empty()) throw TranscodeError("empty body");
  Unknown unknown;
  Reader reader(bytes);
  while (!reader.done()) {
    auto [number, wire_type] = reader.tag();
    if (number > 4) {
      reader.skip(wire_type);
      continue;
    }
    if (wire_type != wire::kLengthDelimited)
      throw TranscodeError("proto: wrong wireType = " + std::to_string(wire_type) + " for field " +
                           std::string(number == 1 ? "TypeMeta" : number == 2 ? "Raw" : number == 3 ? "ContentEncoding" : "ContentType"));
    std::string_view value = reader.length_delimited();
    switch (number) {
      case 1: {
        Reader type_meta(value);
        while (!type_meta.done()) {
          auto [field, type] = type_meta.tag();
          if ((field == 1 || field == 2) && type == wire::kLengthDelimited)
            (field == 1 ? unknown.type_meta.api_version : unknown.type_meta.kind) = valid_utf8(type_meta.length_delimited());
          else if (field == 1 || field == 2)
            throw TranscodeError("proto: wrong wireType = " + std::to_string(type) + " for field " + (field == 1 ? "APIVersion" : "Kind"));
          else type_meta.skip(type);
        }
        break;
      }
      case 2: unknown.raw.assign(value); break;
      case 3: unknown.content_encoding = valid_utf8(value); break;
      default: unknown.content_type = valid_utf8(value); break;
    }
  }
  return unknown;
}

std::string length_delimited_frame(std::string_view message) {
  const auto size = static_cast<std::uint32_t>(message.size());
  std::string out;
  out.reserve(message.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((size >> shift) & 0xFF);
  out.append(message);
  return out;
}

const pb::Descriptor* Transcoder::message_for(std::string_view api_version, std::string_view kind) const {
  return Walker(*catalog_).message_for(api_version, kind);
}

json::value Transcoder::to_json(const pb::Descriptor& message, std::string_view bytes) const {
  return Walker(*catalog_).message_json(message, bytes, 0);
}

std::string Transcoder::to_protobuf(const pb::Descriptor& message, const json::value& value) const {
  std::string out;
  Walker(*catalog_).message_wire(message, value, out, 0);
  return out;
}

std::string Transcoder::encode(const json::object& object) const {
  const json::value* api_version = object.if_contains("apiVersion");
  const json::value* kind = object.if_contains("kind");
  if (!api_version || !api_version->is_string() || !kind || !kind->is_string())
    throw TranscodeError("the object has no apiVersion and kind to encode it by");
  Unknown unknown{{std::string(api_version->get_string()), std::string(kind->get_string())}};
  const pb::Descriptor* message = message_for(unknown.type_meta.api_version, unknown.type_meta.kind);
  if (!message)
    throw TranscodeError("no protobuf schema for kind \"" + unknown.type_meta.kind + "\" in version \"" +
                         unknown.type_meta.api_version + "\"");
  unknown.raw = to_protobuf(*message, object);
  return write_envelope(unknown);
}

json::object Transcoder::decode(std::string_view bytes, const TypeMeta& defaults) const {
  return Walker(*catalog_).decode_envelope(bytes, defaults, 0);
}

std::string Transcoder::watch_event(std::string_view type, std::string_view encoded_object) {
  std::string raw_extension;
  wire::put_bytes(raw_extension, 1, encoded_object);
  std::string out;
  out.reserve(raw_extension.size() + type.size() + 8);
  wire::put_bytes(out, 1, type);
  wire::put_bytes(out, 2, raw_extension);
  return out;
}

std::string Transcoder::encode_watch_event(std::string_view type, const json::object& object) const {
  return watch_event(type, encode(object));
}

json::object Transcoder::decode_watch_event(std::string_view bytes) const {
  const pb::Descriptor* event = catalog_->message(std::string(kMetaPackage) + "WatchEvent");
  if (!event) throw TranscodeError("the catalog has no meta.v1 WatchEvent");
  json::value value = to_json(*event, bytes);
  if (!value.is_object()) throw TranscodeError("a watch event is not an object");
  return std::move(value.get_object());
}

}  // namespace kapi::schema

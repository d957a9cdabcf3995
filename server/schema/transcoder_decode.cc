// Protobuf to JSON: the fields of a message are read in any order, then written in declaration order (Go's struct
// order) with Go's omitempty and pointer rules; kube's special types become their strings, numbers and embedded
// JSON.
#include "base/base64.h"
#include "base/duration.h"
#include "base/go_time.h"
#include "base/utf8.h"
#include "server/schema/transcoder_internal.h"
#include "server/schema/wire.h"

#include <boost/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace kapi::schema::transcoding {
namespace {

namespace pb = google::protobuf;
namespace json = boost::json;
using wire::Reader;

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
    case T::TYPE_STRING: return json::string(base::valid_utf8(bytes));
    case T::TYPE_BYTES: return json::string(base::base64_encode(bytes));
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

// A scalar's zero value, which omitempty leaves out.
bool is_zero(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string: return value.get_string().empty();
    case json::kind::bool_: return !value.get_bool();
    case json::kind::int64: return value.get_int64() == 0;
    case json::kind::uint64: return value.get_uint64() == 0;
    case json::kind::double_: return value.get_double() == 0.0;
    default: return false;
  }
}

class Decoder {
 public:
  explicit Decoder(const Catalog& catalog) : catalog_(catalog) {}

  json::value message_json(const pb::Descriptor& message, std::string_view bytes, int depth) const;

 private:
  void field_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end, int depth,
                  json::object& out) const;
  void emit(const pb::FieldDescriptor& field, json::value value, json::object& out) const;
  json::value special_json(Special special, std::string_view bytes, int depth) const;
  json::value embedded_json(std::string_view raw, int depth) const;
  json::value value_json(const pb::FieldDescriptor& field, const WireValue& value, int depth) const;
  json::value map_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end, int depth) const;

  const Catalog& catalog_;
  // The message types being written as unsent structs, innermost last: a decoder lives for one call.
  mutable std::vector<const pb::Descriptor*> zero_chain_;
};

json::value Decoder::message_json(const pb::Descriptor& message, std::string_view bytes, int depth) const {
  check_depth(depth);
  if (const Special special = Catalog::special(&message); special != Special::kNone)
    return special_json(special, bytes, depth);
  std::vector<WireValue> values = read_fields(message, bytes);
  // Declaration order is Go's struct order, which is the order Go writes JSON fields in; stable keeps the wire
  // order of a repeated field's elements.
  std::stable_sort(values.begin(), values.end(),
                   [](const WireValue& a, const WireValue& b) { return a.field->index() < b.field->index(); });
  json::object out;
  std::size_t at = 0;
  // Every field is visited, sent or not: Go's unmarshal leaves the absent ones at their zero value, which
  // encoding/json may still write.
  for (int index = 0; index < message.field_count(); ++index) {
    const pb::FieldDescriptor& field = *message.field(index);
    std::size_t end = at;
    while (end < values.size() && values[end].field == &field) ++end;
    field_json(field, values.data() + at, values.data() + end, depth, out);
    at = end;
  }
  return out;
}

// One field as Go's encoding/json writes the struct field gogo's unmarshal filled (k8s.io/api's generated code):
// gogo writes every non-pointer scalar, zero or not, so omitempty decides whether a zero is kept; a +pointer field
// was set when it is on the wire and keeps its zero value; a non-pointer struct is always written, omitempty or
// not (it has no empty form for encoding/json).
void Decoder::field_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end, int depth,
                         json::object& out) const {
  const Markers& markers = catalog_.markers(&field);
  const bool is_message = field.type() == pb::FieldDescriptor::TYPE_MESSAGE;
  if (begin != end && field.is_map()) {
    out.emplace(json_name(field), map_json(field, begin, end, depth));
    return;
  }
  if (begin != end && field.is_repeated()) {
    json::array items;
    for (const WireValue* item = begin; item != end; ++item) {
      if (is_message) items.push_back(value_json(field, *item, depth));
      else append_scalars(*item, items);
    }
    // An empty packed list unmarshals to a nil slice, as if it were not sent.
    if (!items.empty()) {
      out.emplace(json_name(field), std::move(items));
      return;
    }
  } else if (begin != end) {
    json::value value;
    if (is_message && end - begin > 1) {
      // A message sent in several parts is their merge, which is what parsing the concatenation gives.
      std::string merged;
      for (const WireValue* part = begin; part != end; ++part) merged.append(part->bytes);
      WireValue whole = *begin;
      whole.bytes = merged;
      value = value_json(field, whole, depth);
    } else {
      value = value_json(field, *(end - 1), depth);
    }
    if (!is_message && !markers.pointer && markers.omit_empty && is_zero(value)) return;
    emit(field, std::move(value), out);
    return;
  }
  // Not sent (or an empty list): the Go field holds its zero value.
  if (is_message && !field.is_repeated() && !markers.pointer) {
    // Go cannot hold a struct inside itself by value, so a field that would recurse is a pointer whatever its
    // marks say (and left out).
    const pb::Descriptor* type = field.message_type();
    if (type == field.containing_type() || std::find(zero_chain_.begin(), zero_chain_.end(), type) != zero_chain_.end())
      return;
    zero_chain_.push_back(type);
    json::value zero = message_json(*type, {}, depth + 1);
    zero_chain_.pop_back();
    emit(field, std::move(zero), out);
  } else if (!markers.omit_empty) {
    // Without omitempty Go writes nil pointers, slices, maps and []byte as null, and zero scalars as they are.
    const bool nil = markers.pointer || field.is_repeated() || field.type() == pb::FieldDescriptor::TYPE_BYTES;
    out.emplace(json_name(field), nil ? json::value(nullptr) : scalar_json(field, 0, {}));
  }
}

void Decoder::emit(const pb::FieldDescriptor& field, json::value value, json::object& out) const {
  // +inline (Go's embedded struct): its members are the parent's own in JSON.
  if (catalog_.markers(&field).inline_fields && value.is_object()) {
    for (auto& member : value.as_object()) out.emplace(member.key(), std::move(member.value()));
  } else {
    out.emplace(json_name(field), std::move(value));
  }
}

json::value Decoder::value_json(const pb::FieldDescriptor& field, const WireValue& value, int depth) const {
  if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) return message_json(*field.message_type(), value.bytes, depth + 1);
  return scalar_json(field, value.bits, value.bytes);
}

json::value Decoder::map_json(const pb::FieldDescriptor& field, const WireValue* begin, const WireValue* end,
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

json::value Decoder::special_json(Special special, std::string_view bytes, int depth) const {
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime: {
      // time_proto.go: no bytes is the zero time; Time keeps seconds only.
      if (bytes.empty()) return nullptr;
      SmallMessage time(bytes);
      base::UnixTime at{time.integer(1), 0};
      if (special == Special::kMicroTime) {
        // time.Unix normalizes nanoseconds outside [0, 1e9) into the seconds.
        const auto nanos = static_cast<std::int64_t>(static_cast<std::int32_t>(time.integer(2)));
        const std::int64_t carry = nanos >= 0 ? nanos / 1'000'000'000 : (nanos + 1) / 1'000'000'000 - 1;
        at.seconds += carry;
        at.nanos = static_cast<std::int32_t>(nanos - carry * 1'000'000'000);
      }
      if (at.seconds == base::kZeroTimeSeconds && at.nanos == 0) return nullptr;
      return json::string(special == Special::kTime ? base::format_rfc3339(at.seconds) : base::format_rfc3339_micro(at));
    }
    case Special::kDuration: return json::string(base::format_go_duration(std::chrono::nanoseconds(SmallMessage(bytes).integer(1))));
    case Special::kQuantity: {
      auto text = SmallMessage(bytes).string(1);
      return json::string(text ? base::valid_utf8(*text) : "0");
    }
    case Special::kIntOrString: {
      SmallMessage value(bytes);
      if (value.integer(1) == 1) return json::string(base::valid_utf8(value.string(3).value_or("")));
      return static_cast<std::int64_t>(static_cast<std::int32_t>(value.integer(2)));
    }
    case Special::kRawExtension:
    case Special::kFieldsV1: return embedded_json(SmallMessage(bytes).string(1).value_or(""), depth);
    case Special::kStringList: {
      json::array items;
      for (Reader reader(bytes); !reader.done();) {
        auto [number, wire_type] = reader.tag();
        if (number == 1 && wire_type == wire::kLengthDelimited) items.emplace_back(base::valid_utf8(reader.length_delimited()));
        else reader.skip(wire_type);
      }
      return items;
    }
    case Special::kNone: break;
  }
  return nullptr;
}

// RawExtension.MarshalJSON writes its raw bytes as they are: JSON, or (in protobuf watch events and lists of
// mixed kinds) an enveloped protobuf object, which becomes its JSON form here.
json::value Decoder::embedded_json(std::string_view raw, int depth) const {
  if (raw.empty()) return nullptr;
  if (raw.starts_with(kProtobufPrefix)) return decode_envelope(catalog_, raw, {}, depth + 1);
  json::parse_options options;
  options.max_depth = static_cast<std::size_t>(kMaxMessageDepth);
  boost::system::error_code error;
  json::value value = json::parse(raw, error, {}, options);
  if (error) throw TranscodeError("embedded object is neither JSON nor protobuf: " + error.message());
  return value;
}

}  // namespace

json::value message_json(const Catalog& catalog, const pb::Descriptor& message, std::string_view bytes, int depth) {
  return Decoder(catalog).message_json(message, bytes, depth);
}

}  // namespace kapi::schema::transcoding

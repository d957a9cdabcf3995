// The transcoder walks the wire format directly against the descriptors rather than building DynamicMessages:
// Kubernetes' JSON needs exact control a reflected message does not give (proto2 presence as Go's marshalers
// write it, JSON keys in declaration order as Go writes struct fields, sorted map keys, the special types read and
// written as whole values, unknown fields skipped for free), it allocates no message tree per request, and one
// depth counter bounds every recursion, through embedded envelopes too.
#include "server/schema/transcoder.h"

#include "base/utf8.h"
#include "server/schema/transcoder_internal.h"
#include "server/schema/wire.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::schema {
namespace transcoding {

namespace pb = google::protobuf;
namespace json = boost::json;

constexpr std::string_view kMetaPackage = "k8s.io.apimachinery.pkg.apis.meta.v1.";

const std::string& json_name(const pb::FieldDescriptor& field) {
  return field.has_json_name() ? field.json_name() : field.name();
}

void check_depth(int depth) {
  if (depth > kMaxMessageDepth)
    throw TranscodeError("object nests deeper than " + std::to_string(kMaxMessageDepth) + " levels");
}

const pb::Descriptor* message_for(const Catalog& catalog, std::string_view api_version, std::string_view kind) {
  const auto slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  if (version.empty() || kind.empty()) return nullptr;
  if (const auto* found = catalog.kind(group, version, kind)) return found;
  // metav1.AddToGroupVersion and the unversioned types: these meta kinds are served in every group version.
  static constexpr std::string_view kMetaKinds[] = {"Status", "WatchEvent", "DeleteOptions", "ListOptions",
                                                    "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions",
                                                    "PartialObjectMetadata", "PartialObjectMetadataList"};
  if (std::find(std::begin(kMetaKinds), std::end(kMetaKinds), kind) == std::end(kMetaKinds)) return nullptr;
  return catalog.message(std::string(kMetaPackage) + std::string(kind));
}

json::object decode_envelope(const Catalog& catalog, std::string_view bytes, const TypeMeta& defaults, int depth) {
  check_depth(depth);
  Unknown unknown = read_envelope(bytes);
  if (!unknown.content_encoding.empty())
    throw TranscodeError("unsupported content encoding \"" + unknown.content_encoding + "\"");
  TypeMeta type = unknown.type_meta;
  if (type.kind.empty()) type.kind = defaults.kind;
  if (type.api_version.empty()) type.api_version = defaults.api_version;
  if (type.kind.empty()) throw TranscodeError("Object 'Kind' is missing in the protobuf envelope");
  if (type.api_version.empty()) throw TranscodeError("Object 'apiVersion' is missing in the protobuf envelope");
  const pb::Descriptor* message = message_for(catalog, type.api_version, type.kind);
  if (!message)
    throw TranscodeError("no kind \"" + type.kind + "\" is registered for version \"" + type.api_version + "\"");
  json::value fields = message_json(catalog, *message, unknown.raw, depth + 1);
  json::object out;
  out.reserve(fields.is_object() ? fields.get_object().size() + 2 : 2);
  out.emplace("kind", type.kind);
  out.emplace("apiVersion", type.api_version);
  if (fields.is_object())
    for (auto& [key, value] : fields.get_object()) out.emplace(key, std::move(value));
  return out;
}

}  // namespace transcoding

namespace pb = google::protobuf;
namespace json = boost::json;
using wire::Reader;

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
            (field == 1 ? unknown.type_meta.api_version : unknown.type_meta.kind) = base::valid_utf8(type_meta.length_delimited());
          else if (field == 1 || field == 2)
            throw TranscodeError("proto: wrong wireType = " + std::to_string(type) + " for field " + (field == 1 ? "APIVersion" : "Kind"));
          else type_meta.skip(type);
        }
        break;
      }
      case 2: unknown.raw.assign(value); break;
      case 3: unknown.content_encoding = base::valid_utf8(value); break;
      default: unknown.content_type = base::valid_utf8(value); break;
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
  return transcoding::message_for(*catalog_, api_version, kind);
}

json::value Transcoder::to_json(const pb::Descriptor& message, std::string_view bytes) const {
  return transcoding::message_json(*catalog_, message, bytes, 0);
}

std::string Transcoder::to_protobuf(const pb::Descriptor& message, const json::value& value) const {
  std::string out;
  transcoding::message_wire(*catalog_, message, value, out, 0);
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
  return transcoding::decode_envelope(*catalog_, bytes, defaults, 0);
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
  const pb::Descriptor* event = catalog_->message(std::string(transcoding::kMetaPackage) + "WatchEvent");
  if (!event) throw TranscodeError("the catalog has no meta.v1 WatchEvent");
  json::value value = to_json(*event, bytes);
  if (!value.is_object()) throw TranscodeError("a watch event is not an object");
  return std::move(value.get_object());
}

}  // namespace kapi::schema

#pragma once
// Kubernetes' protobuf wire form ⇄ the JSON objects kapi keeps, for every type in the Catalog, with no code per
// kind: the descriptors say which field number is which JSON field. The rules are those of kube's Go types and
// their gogo-generated marshalers (k8s.io/apimachinery/pkg/runtime/serializer/protobuf):
//
// - a field's JSON name is its name in the .proto (or its json_name option); fields are written in field-number
//   order and read in any order; JSON fields the schema does not know are dropped when encoding;
// - protobuf to JSON gives what Go's encoding/json writes for the struct gogo's unmarshal fills (see
//   protos/k8s/README.md): a zero scalar is dropped (omitempty) unless the field is +pointer (Go's *T, set when
//   sent) or +noOmitempty, which also writes an unsent one as its zero (null for pointers and lists); a
//   non-pointer message is always written, as its zero form when unsent (`{}`, a null Time, a "0" Quantity);
// - integers are JSON numbers (int64 too), bytes and map<string, bytes> values are base64, map keys are sorted;
// - meta.v1.Time is an RFC 3339 string with seconds (an empty message is the zero time, JSON null), MicroTime the
//   same with six fractional digits, Duration a Go duration string ("1h0m0s"), Quantity a string (a JSON number is
//   accepted), IntOrString a number or a string, RawExtension and FieldsV1 embedded JSON.
//
// Objects travel in kube's envelope: the 4 bytes "k8s\0", then a runtime.Unknown whose typeMeta names the
// apiVersion and kind and whose raw holds the object's message. A watch stream is a sequence of length-prefixed
// metav1.WatchEvent messages (no envelope) whose object.raw holds the enveloped object.
//
// Malformed input never crashes: every problem is a TranscodeError with Go's wording where Go has one, and
// messages nest at most kMaxMessageDepth deep.
#include "server/schema/catalog.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace kapi::schema {

inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";
// The serializer's magic: "k8s", then the encoding style (0: a runtime.Unknown follows).
inline constexpr std::string_view kProtobufPrefix{"k8s\0", 4};
// As deep as JSON bodies may nest (registry::kMaxObjectDepth), so every storable object has a protobuf form.
inline constexpr int kMaxMessageDepth = 1000;

class TranscodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TypeMeta {
  std::string api_version;  // "v1", "apps/v1"
  std::string kind;
};

// runtime.Unknown, the envelope after the prefix.
struct Unknown {
  TypeMeta type_meta;
  std::string raw;
  std::string content_encoding;
  std::string content_type;
};

// The prefix and the envelope, as the protobuf Serializer writes them.
std::string write_envelope(const Unknown& unknown);
// The envelope of "k8s\0"+Unknown bytes; throws TranscodeError ("provided data does not appear to be a protobuf
// message, expected prefix [107 56 115 0]", "empty body", "unexpected EOF", ...).
Unknown read_envelope(std::string_view bytes);
// One frame of a protobuf watch stream (framer.LengthDelimitedFrameWriter): the length as 4 bytes big-endian, then
// the message.
std::string length_delimited_frame(std::string_view message);

class Transcoder {
 public:
  explicit Transcoder(const Catalog& catalog) : catalog_(&catalog) {}

  // The message of an apiVersion and kind: a kind of the catalog or its <Kind>List, or one of the meta.k8s.io/v1
  // kinds kube registers in every group version (Status, WatchEvent, DeleteOptions, PartialObjectMetadata and
  // its list...); nullptr when the catalog has no such type.
  const google::protobuf::Descriptor* message_for(std::string_view api_version, std::string_view kind) const;

  // One message ⇄ its JSON value (an object, or the special types' strings, numbers and nulls).
  boost::json::value to_json(const google::protobuf::Descriptor& message, std::string_view bytes) const;
  std::string to_protobuf(const google::protobuf::Descriptor& message, const boost::json::value& value) const;

  // A JSON object, typed by its apiVersion and kind, in its envelope.
  std::string encode(const boost::json::object& object) const;
  // An enveloped object as JSON, "kind" and "apiVersion" first (as Go writes TypeMeta); `defaults` stands in for an
  // empty typeMeta.apiVersion or kind (the serializer's default kind).
  boost::json::object decode(std::string_view bytes, const TypeMeta& defaults = {}) const;

  // A metav1.WatchEvent message carrying `object` (encoded in its envelope), for a protobuf watch stream.
  std::string encode_watch_event(std::string_view type, const boost::json::object& object) const;
  // The same with an object already encoded (e.g. once for many watchers).
  static std::string watch_event(std::string_view type, std::string_view encoded_object);
  // A WatchEvent message as {"type": ..., "object": {...}}.
  boost::json::object decode_watch_event(std::string_view bytes) const;

 private:
  const Catalog* catalog_;
};

}  // namespace kapi::schema

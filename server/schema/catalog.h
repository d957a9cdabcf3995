#pragma once
// The Kubernetes type schemas (protos/k8s), loaded from the descriptor set embedded at build time: every message
// with its description and markers, and the kinds by group, version and name. The transcoder, the OpenAPI
// documents, strategic merge patch and admission all read types from here, so a type is described once.
#include <google/protobuf/descriptor.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kapi::schema {

// The markers of a field or message (the "+key=value" lines of its comment) and its description.
struct Markers {
  std::string description;
  std::string patch_strategy;              // +patchStrategy
  std::string patch_merge_key;             // +patchMergeKey
  std::string list_type;                   // +listType: atomic, set or map
  std::vector<std::string> list_map_keys;  // +listMapKey, in order
  std::string map_type;                    // +mapType
  std::string struct_type;                 // +structType
  std::optional<std::string> default_json; // +default, as JSON text
  bool required = false;                   // +required
  bool inline_fields = false;              // +inline: the message's fields appear in the parent's JSON (Go's ,inline)
  bool pointer = false;                    // +pointer: a Go pointer field, kept in JSON when set, even to its zero value
  bool omit_empty = true;                  // false with +noOmitempty: the Go json tag has no omitempty
};

// Messages whose JSON form is not an object of their fields.
enum class Special {
  kNone,
  kTime,          // RFC 3339 string, seconds
  kMicroTime,     // RFC 3339 string, microseconds
  kDuration,      // Go duration string
  kQuantity,      // string (a number is accepted on input)
  kIntOrString,   // integer or string
  kRawExtension,  // embedded JSON value
  kFieldsV1,      // embedded JSON value
  kStringList,    // a Go []string given a message of its own (authentication's ExtraValue): a JSON array
};

class Catalog {
 public:
  // The types compiled into kapi.
  static Catalog builtin();
  // Types from a serialized FileDescriptorSet (with source info for descriptions); throws std::invalid_argument.
  static Catalog from_descriptor_set(std::string_view serialized);

  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;
  ~Catalog();

  const google::protobuf::DescriptorPool& pool() const { return *pool_; }

  // The message of a top-level kind, e.g. ("", "v1", "ConfigMap") → k8s.io.api.core.v1.ConfigMap; nullptr when
  // the catalog has no such type.
  const google::protobuf::Descriptor* kind(std::string_view group, std::string_view version,
                                           std::string_view kind) const;
  // Every message of every type file, nested ones included.
  const std::vector<const google::protobuf::Descriptor*>& messages() const { return messages_; }
  // A message by its full protobuf name.
  const google::protobuf::Descriptor* message(std::string_view full_name) const;

  const Markers& markers(const google::protobuf::FieldDescriptor* field) const;
  const Markers& markers(const google::protobuf::Descriptor* message) const;

  // The fields of `message` as its JSON object has them: +inline members replaced by their own fields.
  std::vector<const google::protobuf::FieldDescriptor*> json_fields(const google::protobuf::Descriptor* message) const;
  // The field behind JSON member `name` of `message`, looking through +inline members; nullptr when unknown.
  const google::protobuf::FieldDescriptor* json_field(const google::protobuf::Descriptor* message,
                                                      std::string_view name) const;

  static Special special(const google::protobuf::Descriptor* message);
  // Whether the message's JSON has apiVersion and kind (Go's inline TypeMeta, which protobuf leaves out): kinds,
  // lists and option kinds.
  static bool has_type_meta(const google::protobuf::Descriptor* message);
  // The name OpenAPI documents give a message: "io.k8s.api.core.v1.ConfigMap".
  static std::string openapi_name(const google::protobuf::Descriptor* message);
  // The protobuf package of a group version: "k8s.io.api.core.v1", "k8s.io.api.apps.v1".
  static std::string package_of(std::string_view group, std::string_view version);

 private:
  Catalog();
  void index(const google::protobuf::Descriptor* message);

  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  std::unordered_map<const void*, Markers> markers_;
  std::vector<const google::protobuf::Descriptor*> messages_;
  Markers none_;
};

}  // namespace kapi::schema

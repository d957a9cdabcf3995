#include "server/schema/catalog.h"

#include <google/protobuf/descriptor.pb.h>

#include <stdexcept>

namespace kapi::schema {

extern const unsigned char kTypeDescriptorSet[];
extern const std::size_t kTypeDescriptorSetSize;

namespace {

namespace pb = google::protobuf;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// A comment's lines become the description (paragraphs kept, lines joined) and its "+key=value" lines markers.
Markers parse_comment(std::string_view comment) {
  Markers markers;
  bool blank_pending = false;
  while (!comment.empty()) {
    const auto end = comment.find('\n');
    std::string_view line = trim(comment.substr(0, end));
    comment.remove_prefix(end == std::string_view::npos ? comment.size() : end + 1);
    if (line.empty()) {
      blank_pending = !markers.description.empty();
      continue;
    }
    if (line.front() == '+') {
      const auto equals = line.find('=');
      std::string_view key = line.substr(1, equals == std::string_view::npos ? std::string_view::npos : equals - 1);
      std::string value(equals == std::string_view::npos ? std::string_view{} : line.substr(equals + 1));
      if (key == "patchStrategy") markers.patch_strategy = value;
      else if (key == "patchMergeKey") markers.patch_merge_key = value;
      else if (key == "listType") markers.list_type = value;
      else if (key == "listMapKey") markers.list_map_keys.push_back(value);
      else if (key == "mapType") markers.map_type = value;
      else if (key == "structType") markers.struct_type = value;
      else if (key == "default") markers.default_json = value;
      else if (key == "required") markers.required = true;
      else if (key == "inline") markers.inline_fields = true;
      else if (key == "pointer") markers.pointer = true;
      else if (key == "noOmitempty") markers.omit_empty = false;
      continue;
    }
    if (!markers.description.empty()) markers.description += blank_pending ? "\n\n" : " ";
    markers.description += line;
    blank_pending = false;
  }
  return markers;
}

template <typename Descriptor>
Markers markers_of(const Descriptor* descriptor) {
  pb::SourceLocation location;
  if (!descriptor->GetSourceLocation(&location)) return {};
  return parse_comment(location.leading_comments);
}

}  // namespace

Catalog::Catalog() : pool_(std::make_unique<pb::DescriptorPool>()) {}
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

Catalog Catalog::builtin() {
  return from_descriptor_set(
      std::string_view(reinterpret_cast<const char*>(kTypeDescriptorSet), kTypeDescriptorSetSize));
}

Catalog Catalog::from_descriptor_set(std::string_view serialized) {
  pb::FileDescriptorSet set;
  if (!set.ParseFromArray(serialized.data(), static_cast<int>(serialized.size())))
    throw std::invalid_argument("the type descriptor set does not parse");
  Catalog catalog;
  // --include_imports orders every file after its imports.
  for (const auto& proto : set.file()) {
    const pb::FileDescriptor* file = catalog.pool_->BuildFile(proto);
    if (!file) throw std::invalid_argument("type file " + proto.name() + " does not build");
    for (int i = 0; i < file->message_type_count(); ++i) catalog.index(file->message_type(i));
  }
  return catalog;
}

// Parses every message's and field's comment once, so lookups never do.
void Catalog::index(const pb::Descriptor* message) {
  messages_.push_back(message);
  markers_.emplace(message, markers_of(message));
  for (int i = 0; i < message->field_count(); ++i) markers_.emplace(message->field(i), markers_of(message->field(i)));
  for (int i = 0; i < message->nested_type_count(); ++i) index(message->nested_type(i));
}

const pb::Descriptor* Catalog::kind(std::string_view group, std::string_view version, std::string_view kind) const {
  return message(package_of(group, version) + "." + std::string(kind));
}

const pb::Descriptor* Catalog::message(std::string_view full_name) const {
  return pool_->FindMessageTypeByName(std::string(full_name));
}

const Markers& Catalog::markers(const pb::FieldDescriptor* field) const {
  auto found = markers_.find(field);
  return found == markers_.end() ? none_ : found->second;
}

const Markers& Catalog::markers(const pb::Descriptor* message) const {
  auto found = markers_.find(message);
  return found == markers_.end() ? none_ : found->second;
}

std::vector<const pb::FieldDescriptor*> Catalog::json_fields(const pb::Descriptor* message) const {
  std::vector<const pb::FieldDescriptor*> fields;
  for (int i = 0; i < message->field_count(); ++i) {
    const pb::FieldDescriptor* field = message->field(i);
    if (markers(field).inline_fields && field->message_type()) {
      auto inner = json_fields(field->message_type());
      fields.insert(fields.end(), inner.begin(), inner.end());
    } else {
      fields.push_back(field);
    }
  }
  return fields;
}

const pb::FieldDescriptor* Catalog::json_field(const pb::Descriptor* message, std::string_view name) const {
  if (const pb::FieldDescriptor* field = message->FindFieldByName(std::string(name))) {
    if (!markers(field).inline_fields) return field;
  }
  for (int i = 0; i < message->field_count(); ++i) {
    const pb::FieldDescriptor* field = message->field(i);
    if (!markers(field).inline_fields || !field->message_type()) continue;
    if (const pb::FieldDescriptor* inner = json_field(field->message_type(), name)) return inner;
  }
  return nullptr;
}

Special Catalog::special(const pb::Descriptor* message) {
  static constexpr std::string_view kMeta = "k8s.io.apimachinery.pkg.apis.meta.v1.";
  const std::string& name = message->full_name();
  if (name.starts_with(kMeta)) {
    std::string_view short_name = std::string_view(name).substr(kMeta.size());
    if (short_name == "Time") return Special::kTime;
    if (short_name == "MicroTime") return Special::kMicroTime;
    if (short_name == "Duration") return Special::kDuration;
    if (short_name == "FieldsV1") return Special::kFieldsV1;
    return Special::kNone;
  }
  if (name == "k8s.io.apimachinery.pkg.api.resource.Quantity") return Special::kQuantity;
  if (name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") return Special::kIntOrString;
  if (name == "k8s.io.apimachinery.pkg.runtime.RawExtension") return Special::kRawExtension;
  if (name.starts_with("k8s.io.api.") && name.ends_with(".ExtraValue")) return Special::kStringList;
  return Special::kNone;
}

bool Catalog::has_type_meta(const pb::Descriptor* message) {
  const pb::FieldDescriptor* metadata = message->FindFieldByName("metadata");
  if (metadata && metadata->message_type()) {
    std::string_view type = metadata->message_type()->full_name();
    if (type.ends_with("meta.v1.ObjectMeta") || type.ends_with("meta.v1.ListMeta")) return true;
  }
  return message->name() == "DeleteOptions";
}

std::string Catalog::openapi_name(const pb::Descriptor* message) {
  // "k8s.io.api.core.v1.ConfigMap" → "io.k8s.api.core.v1.ConfigMap", as kube's OpenAPI names Go packages.
  std::string_view name = message->full_name();
  // Go's package path keeps its dash, which a protobuf package cannot: k8s.io/kube-aggregator.
  static constexpr std::string_view kAggregator = "k8s.io.kube_aggregator.";
  if (name.starts_with(kAggregator)) return "io.k8s.kube-aggregator." + std::string(name.substr(kAggregator.size()));
  if (name.starts_with("k8s.io.")) return "io.k8s." + std::string(name.substr(7));
  return std::string(name);
}

std::string Catalog::package_of(std::string_view group, std::string_view version) {
  // The aggregator's own group is declared in k8s.io/kube-aggregator/pkg/apis/apiregistration/<version>.
  if (group == "apiregistration.k8s.io") return "k8s.io.kube_aggregator.pkg.apis.apiregistration." + std::string(version);
  // Built-in groups live in k8s.io/api/<first label of the group>/<version>.
  std::string_view short_group = group.empty() ? std::string_view("core") : group.substr(0, group.find('.'));
  return "k8s.io.api." + std::string(short_group) + "." + std::string(version);
}

}  // namespace kapi::schema

// storage.k8s.io/v1 VolumeAttachment (pkg/registry/storage/volumeattachment/strategy.go, ValidateVolumeAttachment,
// ValidateVolumeAttachmentV1 and ValidateVolumeAttachmentUpdate of pkg/apis/storage/validation as of 1.32,
// printVolumeAttachment).
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/storage/csi_driver_name.h"
#include "server/apis/storage/storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kMaxAttachmentMetadataSize = 256 * 1024;
constexpr std::size_t kMaxVolumeErrorMessageSize = 1024;

ErrorList validate_status(const json::object& attachment) {
  ErrorList errors;
  const json::object* status = object_at(attachment, "status");
  const Path status_path("status");
  if (const json::object* metadata = object_at(status, "attachmentMetadata")) {
    std::size_t size = 0;
    for (const auto& [key, value] : *metadata) size += key.size() + (value.is_string() ? value.as_string().size() : 0);
    if (size > kMaxAttachmentMetadataSize)
      errors.push_back(validation::too_long(status_path.child("attachmentMetadata"), kMaxAttachmentMetadataSize));
  }
  for (const char* member : {"attachError", "detachError"})
    if (string_at(object_at(status, member), "message").size() > kMaxVolumeErrorMessageSize)
      errors.push_back(validation::too_long(status_path.child(member).child("message"), kMaxVolumeErrorMessageSize));
  return errors;
}

ErrorList validate_attachment(const json::object& attachment) {
  ErrorList errors;
  const Path spec_path("spec");
  const json::object& spec = object_or_empty(attachment, "spec");
  const std::string_view attacher = string_at(spec, "attacher");
  if (attacher.empty()) errors.push_back(validation::required(spec_path.child("attacher")));
  const json::object& source = object_or_empty(spec, "source");
  auto volume_name = source.find("persistentVolumeName");
  const bool has_volume_name = volume_name != source.end() && volume_name->value().is_string();
  if (!has_volume_name)
    errors.push_back(validation::required(spec_path.child("source"),
                                          "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  else if (volume_name->value().as_string().empty())
    errors.push_back(validation::required(spec_path.child("source").child("persistentVolumeName"),
                                          "must specify non empty persistentVolumeName"));
  const std::string_view node_name = string_at(spec, "nodeName");
  for (const auto& message : validation::is_dns1123_subdomain(node_name))
    errors.push_back(validation::invalid(spec_path.child("nodeName"), node_name, message));
  core::append(errors, validate_status(attachment));
  // ValidateVolumeAttachmentV1: the attacher is a CSI driver name, the volume name a PV name.
  core::append(errors, csi::csi_driver_name_errors(attacher, spec_path.child("attacher")));
  if (has_volume_name && !volume_name->value().as_string().empty())
    for (const auto& message : validation::is_dns1123_subdomain(volume_name->value().as_string()))
      errors.push_back(validation::invalid(spec_path.child("source").child("persistentVolumeName"),
                                           volume_name->value().as_string(), message));
  return errors;
}

class VolumeAttachmentStrategy final : public registry::Strategy {
 public:
  bool allow_unconditional_update() const override { return false; }
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  // Create cannot set status; what is left is VolumeAttachmentStatus{} as Go writes it (attached has no omitempty).
  void prepare_for_create(json::object& attachment) const override {
    attachment["status"] = json::object{{"attached", false}};
  }
  ErrorList validate(const json::object& attachment) const override { return validate_attachment(attachment); }
  ErrorList validate_update(const json::object& attachment, const json::object& old) const override {
    ErrorList errors = validate_attachment(attachment);
    if (object_or_empty(attachment, "spec") != object_or_empty(old, "spec"))
      errors.push_back(validation::invalid_value(Path("spec"), json::serialize(object_or_empty(attachment, "spec")),
                                                 "field is immutable"));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Attacher", "string", "name",
             "attacher indicates the name of the volume driver that MUST handle this request. This is the name "
             "returned by GetPluginName().",
             0},
            {"PV", "string", "", "persistentVolumeName represents the name of the persistent volume to attach.", 0},
            {"Node", "string", "", "nodeName represents the node that the volume should be attached to.", 0},
            {"Attached", "boolean", "",
             "attached indicates the volume is successfully attached. This field must only be set by the entity "
             "completing the attach operation, i.e. the external-attacher.",
             0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& attachment) const override {
    const json::object& spec = object_or_empty(attachment, "spec");
    return {json::string(registry::meta_string(attachment, "name")), json::string(string_at(spec, "attacher")),
            json::string(string_at(object_at(spec, "source"), "persistentVolumeName")),
            json::string(string_at(spec, "nodeName")), bool_at(object_at(attachment, "status"), "attached"),
            json::string(registry::age_of(attachment))};
  }
};

}  // namespace

ResourceStorage volumeattachments() {
  registry::ResourceDefinition definition{.group = "storage.k8s.io", .version = "v1", .resource = "volumeattachments",
                                          .kind = "VolumeAttachment", .singular = "volumeattachment",
                                          .namespaced = false, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<VolumeAttachmentStrategy>()};
}

}  // namespace kapi::apis

// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go): every
// claim is created with the kubernetes.io/pvc-protection finalizer and every volume with
// kubernetes.io/pv-protection, so neither goes while a pod (or a claim) still uses it.
#include "server/admission/plugin.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

namespace json = boost::json;

class StorageObjectInUseProtection final : public Plugin {
 public:
  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create && attributes.object && attributes.is_main_resource() &&
           (is_resource(attributes, "", "persistentvolumeclaims") || is_resource(attributes, "", "persistentvolumes"));
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    const bool claim = attributes.resource.resource == "persistentvolumeclaims";
    const std::string_view finalizer = claim ? "kubernetes.io/pvc-protection" : "kubernetes.io/pv-protection";
    json::object& metadata = registry::metadata_of(*attributes.object);
    json::value& finalizers = metadata["finalizers"];
    if (!finalizers.is_array()) finalizers = json::array();
    for (const json::value& present : finalizers.as_array())
      if (present.is_string() && present.as_string() == finalizer) co_return;
    finalizers.as_array().emplace_back(finalizer);
    co_return;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_storage_object_in_use_protection(const PluginContext& /*context*/) {
  return std::make_unique<StorageObjectInUseProtection>();
}

}  // namespace kapi::admission

// PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize/admission.go): a claim's
// storage request may only grow when the claim is bound and its StorageClass (the same before and after) says
// allowVolumeExpansion: true.
#include "base/quantity.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

namespace json = boost::json;

const json::value* at(const json::object& object, std::initializer_list<std::string_view> path) {
  const json::object* current = &object;
  const json::value* value = nullptr;
  for (std::string_view key : path) {
    if (!current) return nullptr;
    value = current->if_contains(key);
    if (!value) return nullptr;
    current = value->is_object() ? &value->as_object() : nullptr;
  }
  return value;
}

QuantityNanos requested_storage(const json::object& claim) {
  const json::value* storage = at(claim, {"spec", "resources", "requests", "storage"});
  if (!storage) return 0;
  return quantity_of(*storage).value_or(Quantity{}).nanos;
}

// apihelper.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName.
std::string claim_class(const json::object& claim) {
  if (const json::value* annotation = at(claim, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
      annotation && annotation->is_string())
    return std::string(annotation->as_string());
  const json::value* name = at(claim, {"spec", "storageClassName"});
  return name && name->is_string() ? std::string(name->as_string()) : std::string();
}

class PersistentVolumeClaimResize final : public Plugin {
 public:
  explicit PersistentVolumeClaimResize(registry::Store* classes) : classes_(classes) {}

  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Update && attributes.object && attributes.old_object &&
           is_resource(attributes, "", "persistentvolumeclaims") && attributes.is_main_resource();
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    const json::object& claim = attributes.new_object();
    const json::object& old = *attributes.old_object;
    if (requested_storage(claim) <= requested_storage(old)) co_return;
    const json::value* phase = at(old, {"status", "phase"});
    if (!phase || !phase->is_string() || phase->as_string() != "Bound")
      throw forbidden(attributes, "Only bound persistent volume claims can be expanded");
    const bool allowed = co_await allows_expansion(claim_class(claim), claim_class(old));
    if (!allowed)
      throw forbidden(attributes, "only dynamically provisioned pvc can be resized and the storageclass that "
                                  "provisions the pvc must support resize");
  }

 private:
  asio::awaitable<bool> allows_expansion(std::string class_name, std::string old_class_name) const {
    if (class_name.empty() || class_name != old_class_name || !classes_) co_return false;
    std::string stored;
    try {
      registry::ReadObject read = co_await classes_->get("", class_name, "0");
      stored = std::move(read.json);
    } catch (const apierrors::ApiError&) {
      // A class that cannot be read allows nothing, as kube's lister miss does.
    }
    if (stored.empty()) co_return false;
    const std::optional<json::object> storage_class = registry::parse_json_object(stored);
    if (!storage_class) co_return false;
    const json::value* allow = storage_class->if_contains("allowVolumeExpansion");
    co_return allow && allow->is_bool() && allow->as_bool();
  }

  registry::Store* classes_;
};

}  // namespace

std::unique_ptr<Plugin> make_persistent_volume_claim_resize(const PluginContext& context) {
  return std::make_unique<PersistentVolumeClaimResize>(context.stores("storage.k8s.io", "storageclasses"));
}

}  // namespace kapi::admission

// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault/admission.go, with
// pkg/volume/util/storageclass.go's GetDefaultClass): a claim created without a class, neither in
// spec.storageClassName nor in the beta annotation, gets the default StorageClass, the newest when several are.
#include "server/admission/plugin.h"
#include "server/plugin/admission/default_class.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

namespace json = boost::json;

bool annotation_is_true(const json::object& annotations, std::string_view key) {
  const json::value* value = annotations.if_contains(key);
  return value && value->is_string() && value->as_string() == "true";
}

// helper.PersistentVolumeClaimHasClass: the beta annotation counts even when empty; spec.storageClassName counts
// when set at all, "" included (it asks for no class).
bool claim_has_class(const json::object& claim) {
  if (const json::value* metadata = claim.if_contains("metadata"); metadata && metadata->is_object())
    if (const json::value* annotations = metadata->as_object().if_contains("annotations");
        annotations && annotations->is_object() &&
        annotations->as_object().contains("volume.beta.kubernetes.io/storage-class"))
      return true;
  const json::value* spec = claim.if_contains("spec");
  if (!spec || !spec->is_object()) return false;
  const json::value* name = spec->as_object().if_contains("storageClassName");
  return name && !name->is_null();
}

class DefaultStorageClass final : public Plugin {
 public:
  explicit DefaultStorageClass(registry::Store* classes) : classes_(classes) {}

  bool handles(const Attributes& attributes) const override {
    return classes_ && attributes.operation == Operation::Create && attributes.object &&
           is_resource(attributes, "", "persistentvolumeclaims") && attributes.is_main_resource();
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    json::object& claim = *attributes.object;
    if (claim_has_class(claim)) co_return;
    const std::optional<std::string> chosen = co_await newest_default_class(*classes_, [](const json::object& annotations) {
      return annotation_is_true(annotations, "storageclass.kubernetes.io/is-default-class") ||
             annotation_is_true(annotations, "storageclass.beta.kubernetes.io/is-default-class");
    });
    if (!chosen) co_return;
    json::value& spec = claim["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.as_object()["storageClassName"] = *chosen;
  }

 private:
  registry::Store* classes_;
};

}  // namespace

std::unique_ptr<Plugin> make_default_storage_class(const PluginContext& context) {
  return std::make_unique<DefaultStorageClass>(context.stores("storage.k8s.io", "storageclasses"));
}

}  // namespace kapi::admission

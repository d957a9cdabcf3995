// DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass/admission.go): an Ingress created without
// spec.ingressClassName or the kubernetes.io/ingress.class annotation gets the IngressClass annotated
// ingressclass.kubernetes.io/is-default-class=true; since 1.28, when several are, the newest (no longer an error).
#include "server/admission/plugin.h"
#include "server/plugin/admission/default_class.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

namespace json = boost::json;

bool names_class(const json::object& ingress) {
  if (const json::value* spec = ingress.if_contains("spec"); spec && spec->is_object())
    if (const json::value* name = spec->as_object().if_contains("ingressClassName"); name && !name->is_null())
      return true;
  const json::value* metadata = ingress.if_contains("metadata");
  if (!metadata || !metadata->is_object()) return false;
  const json::value* annotations = metadata->as_object().if_contains("annotations");
  return annotations && annotations->is_object() && annotations->as_object().contains("kubernetes.io/ingress.class");
}

class DefaultIngressClass final : public Plugin {
 public:
  explicit DefaultIngressClass(registry::Store* classes) : classes_(classes) {}

  bool handles(const Attributes& attributes) const override {
    return classes_ && attributes.operation == Operation::Create && attributes.object &&
           is_resource(attributes, "networking.k8s.io", "ingresses") && attributes.is_main_resource();
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    json::object& ingress = *attributes.object;
    if (names_class(ingress)) co_return;
    const std::optional<std::string> chosen = co_await newest_default_class(*classes_, [](const json::object& annotations) {
      const json::value* value = annotations.if_contains("ingressclass.kubernetes.io/is-default-class");
      return value && value->is_string() && value->as_string() == "true";
    });
    if (!chosen) co_return;
    json::value& spec = ingress["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.as_object()["ingressClassName"] = *chosen;
  }

 private:
  registry::Store* classes_;
};

}  // namespace

std::unique_ptr<Plugin> make_default_ingress_class(const PluginContext& context) {
  return std::make_unique<DefaultIngressClass>(context.stores("networking.k8s.io", "ingressclasses"));
}

}  // namespace kapi::admission

// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration
// (pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration/strategy.go, their validation in
// pkg/apis/admissionregistration/validation, the defaults of pkg/apis/admissionregistration/v1/defaults.go as
// +default markers of the types, and printers.printMutatingWebhook / printValidatingWebhook).
#include "server/apis/admissionregistration/webhook_configurations.h"

#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis::admissionregistration {
namespace {

namespace json = boost::json;

class WebhookConfigurationStrategy final : public registry::Strategy {
 public:
  explicit WebhookConfigurationStrategy(WebhookKind kind) : kind_(kind) {}

  validation::ErrorList validate(const json::object& object) const override {
    return validate_webhook_configuration(object, kind_);
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return validate_webhook_configuration_update(object, old, kind_);
  }
  // Generation counts changes of the webhooks.
  bool tracks_generation() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Webhooks", "integer", "", "Webhooks indicates the number of webhooks registered in this configuration", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    const auto webhooks = static_cast<std::int64_t>(registry::fields::array_or_empty(object, "webhooks").size());
    return {json::string(registry::meta_string(object, "name")), webhooks, json::string(registry::age_of(object))};
  }

 private:
  WebhookKind kind_;
};

}  // namespace

ResourceStorage webhook_configurations(WebhookKind kind) {
  const bool mutating = kind == WebhookKind::Mutating;
  registry::ResourceDefinition definition{
      .group = std::string(kGroupName), .version = "v1",
      .resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations",
      .kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
      .singular = mutating ? "mutatingwebhookconfiguration" : "validatingwebhookconfiguration",
      .namespaced = false, .categories = {"api-extensions"}};
  return {std::move(definition), std::make_shared<WebhookConfigurationStrategy>(kind)};
}

}  // namespace kapi::apis::admissionregistration

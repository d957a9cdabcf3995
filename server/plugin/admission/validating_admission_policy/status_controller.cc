// kube's validatingadmissionpolicystatus controller (pkg/controller/validatingadmissionpolicystatus/controller.go
// reconcile): skip a policy whose status.observedGeneration is not behind metadata.generation, else type check it
// and set status.observedGeneration and status.typeChecking (kube applies them as its own fields with Force; the
// rest of the status is kept).
#include "server/plugin/admission/validating_admission_policy/status_controller.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/plugin/admission/validating_admission_policy/type_checking.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

namespace kapi::admission::policy {
namespace {

namespace json = boost::json;

std::int64_t observed_generation_of(const json::object& policy) {
  const json::value* status = policy.if_contains("status");
  return status && status->is_object()
             ? registry::fields::int_at(status->as_object(), "observedGeneration").value_or(0)
             : 0;
}

}  // namespace

std::optional<json::object> reconciled_status(const json::object& policy, const StoreLookup& stores,
                                              const CustomSchemaLookup& custom_schemas,
                                              const schema::Catalog& catalog) {
  const std::int64_t generation = registry::meta_int(policy, "generation");
  if (generation <= observed_generation_of(policy)) return std::nullopt;
  json::object status;
  if (const json::value* current = policy.if_contains("status"); current && current->is_object())
    status = current->as_object();
  status["observedGeneration"] = generation;
  json::object type_checking;
  const std::vector<ExpressionWarning> warnings = type_check(policy, stores, custom_schemas, catalog);
  if (!warnings.empty()) {
    json::array expression_warnings;
    for (const ExpressionWarning& warning : warnings)
      expression_warnings.push_back(json::object{{"fieldRef", warning.field_ref}, {"warning", warning.warning}});
    type_checking["expressionWarnings"] = std::move(expression_warnings);
  }
  status["typeChecking"] = std::move(type_checking);
  return status;
}

StatusController::StatusController(registry::Store& policies, StoreLookup stores, CustomSchemaLookup custom_schemas,
                                   const schema::Catalog& catalog, base::Logger& logger,
                                   std::shared_ptr<const std::atomic<bool>> stopping)
    : policies_(policies),
      stores_(std::move(stores)),
      custom_schemas_(std::move(custom_schemas)),
      catalog_(catalog),
      logger_(logger),
      stopping_(std::move(stopping)) {}

asio::awaitable<void> StatusController::run() {
  registry::ReflectorHandlers handlers;
  handlers.replace = [this](std::vector<json::object> policies, storage::Revision) -> asio::awaitable<void> {
    for (const json::object& policy : policies) co_await reconcile(policy);
  };
  handlers.apply = [this](const storage::WatchEvent& event, json::object policy) -> asio::awaitable<void> {
    if (event.type != storage::WatchEventType::Deleted) co_await reconcile(policy);
  };
  registry::ReflectorOptions options{"the validating admission policies to type check", std::chrono::seconds(1)};
  auto following = registry::reflect(policies_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> StatusController::reconcile(const json::object& policy) {
  if (registry::meta_int(policy, "generation") <= observed_generation_of(policy)) co_return;
  const std::string name(registry::meta_string(policy, "name"));
  registry::UpdateFunction update = [this, &name](const json::object* current) -> json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found("admissionregistration.k8s.io", "validatingadmissionpolicies", name));
    json::object updated = *current;
    // Checked again against the object as stored: a write meanwhile may have moved the generation.
    if (std::optional<json::object> status = reconciled_status(*current, stores_, custom_schemas_, catalog_))
      updated["status"] = std::move(*status);
    return updated;
  };
  registry::WriteOptions options;
  options.subresource = "status";
  try {
    auto pending = policies_.update("", name, std::move(update), std::move(options));
    co_await std::move(pending);
  } catch (const apierrors::ApiError& error) {
    // Gone meanwhile, or refused: the watch brings the next state, and with it the next attempt.
    logger_.warning("validatingadmissionpolicy status: updating " + name + ": " + error.status().message);
  }
}

}  // namespace kapi::admission::policy

// DELETE (handlers/delete.go) of one object, and DELETE of a collection.
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"
#include "server/validation/field_error.h"

#include "base/go_quote.h"

#include <boost/json.hpp>

#include <charconv>

namespace kapi::endpoints::handlers {
namespace {

void validate_delete_options(const registry::DeleteOptions& options);

// metav1.DeleteOptions from the body (if any) and the query, query parameters winning as in kube.
registry::DeleteOptions delete_options(const Scope& scope) {
  registry::DeleteOptions options;
  const std::string& body = scope.request().body;
  if (!body.empty()) {
    boost::json::object object = decode_delete_options(scope);
    if (auto it = object.find("gracePeriodSeconds"); it != object.end() && it->value().is_int64())
      options.grace_period_seconds = it->value().as_int64();
    if (auto it = object.find("propagationPolicy"); it != object.end() && it->value().is_string())
      options.propagation_policy = it->value().as_string();
    if (auto it = object.find("orphanDependents"); it != object.end() && it->value().is_bool())
      options.orphan_dependents = it->value().as_bool();
    if (auto it = object.find("preconditions"); it != object.end() && it->value().is_object()) {
      const auto& preconditions = it->value().as_object();
      if (auto uid = registry::string_field(preconditions, "uid"); !uid.empty()) options.precondition_uid = std::string(uid);
      if (auto version = registry::string_field(preconditions, "resourceVersion"); !version.empty())
        options.precondition_resource_version = std::string(version);
    }
    if (auto it = object.find("dryRun"); it != object.end() && it->value().is_array()) {
      for (const auto& value : it->value().as_array()) {
        if (!value.is_string() || value.as_string() != "All")
          throw apierrors::ApiError(apierrors::bad_request("dryRun: Unsupported value: " +
                                                           boost::json::serialize(value) + ": supported values: \"All\""));
        options.dry_run = true;
      }
    }
  }
  if (dry_run(scope.query())) options.dry_run = true;
  if (auto policy = scope.query().get("propagationPolicy")) options.propagation_policy = std::string(*policy);
  if (auto grace = scope.query().get("gracePeriodSeconds")) {
    std::int64_t seconds = 0;
    const auto [end, error] = std::from_chars(grace->data(), grace->data() + grace->size(), seconds);
    if (error != std::errc() || end != grace->data() + grace->size())
      throw apierrors::ApiError(apierrors::bad_request("strconv.ParseInt: parsing " + base::go_quote(*grace) +
                                                       ": invalid syntax"));
    options.grace_period_seconds = seconds;
  }
  if (auto orphan = scope.query().get("orphanDependents")) {
    if (*orphan != "true" && *orphan != "false")
      throw apierrors::ApiError(apierrors::bad_request("strconv.ParseBool: parsing " + base::go_quote(*orphan) +
                                                       ": invalid syntax"));
    options.orphan_dependents = *orphan == "true";
  }
  validate_delete_options(options);
  return options;
}

// validation.ValidateDeleteOptions, refused as kube's handler refuses it: 422 for a DeleteOptions.meta.k8s.io.
void validate_delete_options(const registry::DeleteOptions& options) {
  validation::ErrorList errors;
  const std::string& policy = options.propagation_policy;
  if (options.orphan_dependents && !policy.empty())
    errors.push_back(validation::invalid(validation::Path("propagationPolicy"), policy,
                                         "orphanDependents and deletionPropagation cannot be both set"));
  if (!policy.empty() && policy != "Foreground" && policy != "Background" && policy != "Orphan")
    errors.push_back(validation::not_supported(validation::Path("propagationPolicy"), policy,
                                               {"Foreground", "Background", "Orphan", "nil"}));
  if (!errors.empty())
    throw apierrors::ApiError(apierrors::invalid("meta.k8s.io", "DeleteOptions", "", errors));
}

// kube's Job REST: a DELETE that leaves the choice to a kind's orphaning default is told so.
void warn_of_orphaning_default(Scope& scope, const registry::DeleteOptions& options) {
  const registry::Strategy& strategy = scope.store.strategy();
  if (options.propagation_policy.empty() && !options.orphan_dependents &&
      strategy.default_garbage_collection_policy() == registry::GarbageCollectionPolicy::kOrphanDependents &&
      !strategy.default_orphaning_warning().empty())
    scope.exchange.context.warnings.emplace_back(strategy.default_orphaning_warning());
}

}  // namespace

asio::awaitable<void> remove(Scope scope) {
  registry::DeleteOptions options = delete_options(scope);
  warn_of_orphaning_default(scope, options);
  add_delete_admission(scope, options);
  registry::DeleteResult result = co_await scope.store.remove(scope.info.namespace_, scope.info.name, options);
  if (!result.deleted || scope.store.strategy().return_deleted_object()) {
    co_await write_object(scope, 200, result.object);
    co_return;
  }
  apierrors::Status status{200, "", "", apierrors::StatusDetails{}};
  status.details->name = scope.info.name;
  status.details->group = scope.store.definition().group;
  status.details->kind = scope.store.definition().resource;
  status.details->uid = result.uid;
  co_await write_status(scope.exchange, scope.catalog, status);
}

asio::awaitable<void> remove_collection(Scope scope) {
  registry::DeleteOptions options = delete_options(scope);
  warn_of_orphaning_default(scope, options);
  add_delete_admission(scope, options, true);
  registry::ListRequest request = list_request(scope);
  registry::ObjectList listed = co_await scope.store.remove_collection(scope.info.namespace_, std::move(request),
                                                                       std::move(options));
  co_await write_list(scope, listed);
}

}  // namespace kapi::endpoints::handlers

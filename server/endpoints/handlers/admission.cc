#include "server/endpoints/handlers/admission.h"

#include "server/admission/chain.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <memory>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

admission::Attributes attributes_of(const Scope& scope, admission::Operation operation) {
  const registry::ResourceDefinition& definition = scope.store.definition();
  admission::Attributes attributes;
  attributes.operation = operation;
  attributes.kind = {definition.group, definition.version, definition.kind};
  attributes.resource = {scope.info.api_group, scope.info.api_version, scope.info.resource};
  attributes.subresource = scope.info.subresource;
  attributes.namespace_ = scope.info.namespace_;
  attributes.name = scope.info.name;
  attributes.user = scope.exchange.context.user ? &*scope.exchange.context.user : nullptr;
  attributes.context = &scope.exchange.context;
  attributes.object_interfaces = scope.object_interfaces;
  return attributes;
}

// CreateOptions / UpdateOptions / DeleteOptions as AdmissionReview's `options` carries them.
json::object options_object(std::string_view kind, bool dry_run, const std::string& manager) {
  json::object options{{"kind", kind}, {"apiVersion", "meta.k8s.io/v1"}};
  if (dry_run) options["dryRun"] = json::array{"All"};
  if (!manager.empty()) options["fieldManager"] = manager;
  return options;
}

}  // namespace

void add_admission(const Scope& scope, registry::WriteOptions& options, const std::string& manager) {
  const admission::Chain* chain = scope.admission;
  if (!chain || chain->plugins().empty()) return;
  // One record for the request, shared by both steps (they run one after the other, never at once).
  auto attributes = std::make_shared<admission::Attributes>(attributes_of(scope, admission::Operation::Create));
  attributes->dry_run = options.dry_run;
  auto prepare = [attributes, dry_run = options.dry_run, manager](const json::object& object,
                                                                  const json::object* old) {
    const admission::Operation operation = old ? admission::Operation::Update : admission::Operation::Create;
    // The validating step of the same write keeps the options the mutating step was given.
    if (attributes->options.empty() || attributes->operation != operation)
      attributes->options = options_object(old ? "UpdateOptions" : "CreateOptions", dry_run, manager);
    attributes->operation = operation;
    attributes->old_object = old;
    // On create the request names no object: its name is the body's (maybe empty, with generateName). A new
    // namespace is its own request's namespace, as kube's create handler makes it.
    if (!old) {
      attributes->name = std::string(registry::meta_string(object, "name"));
      if (attributes->resource.group.empty() && attributes->resource.resource == "namespaces")
        attributes->namespace_ = attributes->name;
    }
  };
  // Not coroutines themselves: the chain's step is the only frame. The record outlives it, held by these
  // functions, which the write's options keep until the write ends.
  options.admit = [chain, attributes, prepare](json::object& object,
                                               const json::object* old) -> asio::awaitable<void> {
    prepare(object, old);
    attributes->object = &object;
    return chain->admit(*attributes);
  };
  options.validate_admission = [chain, attributes, prepare](const json::object& object,
                                                            const json::object* old) -> asio::awaitable<void> {
    prepare(object, old);
    // Validating plugins only read the object (Attributes holds it mutable for the mutating step).
    attributes->object = const_cast<json::object*>(&object);
    return chain->validate(*attributes);
  };
}

asio::awaitable<void> admit_subresource_create(const Scope& scope, const registry::CreateSubresource& subresource,
                                               json::object& body) {
  const admission::Chain* chain = scope.admission;
  if (!chain || chain->plugins().empty()) co_return;
  admission::Attributes attributes = attributes_of(scope, admission::Operation::Create);
  attributes.kind = {subresource.group, subresource.version, subresource.kind};
  attributes.dry_run = dry_run(scope.query());
  attributes.options = options_object("CreateOptions", attributes.dry_run, {});
  attributes.object = &body;
  co_await chain->admit(attributes);
  co_await chain->validate(attributes);
}

asio::awaitable<void> admit_connect(const Scope& scope, const registry::ConnectSubresource& subresource,
                                    json::object& options) {
  const admission::Chain* chain = scope.admission;
  if (!chain || chain->plugins().empty()) co_return;
  admission::Attributes attributes = attributes_of(scope, admission::Operation::Connect);
  attributes.kind.kind = subresource.kind;
  attributes.object = &options;
  co_await chain->admit(attributes);
  co_await chain->validate(attributes);
}

void add_delete_admission(const Scope& scope, registry::DeleteOptions& options, bool collection) {
  const admission::Chain* chain = scope.admission;
  if (!chain || chain->plugins().empty()) return;
  auto attributes = std::make_shared<admission::Attributes>(attributes_of(scope, admission::Operation::Delete));
  if (collection) attributes->name.clear();
  attributes->dry_run = options.dry_run;
  attributes->options = options_object("DeleteOptions", options.dry_run, {});
  if (!options.propagation_policy.empty()) attributes->options["propagationPolicy"] = options.propagation_policy;
  if (options.grace_period_seconds) attributes->options["gracePeriodSeconds"] = *options.grace_period_seconds;
  options.admission = [chain, attributes](const json::object& existing) -> asio::awaitable<void> {
    attributes->old_object = &existing;
    co_await chain->admit(*attributes);
    co_await chain->validate(*attributes);
  };
}

}  // namespace kapi::endpoints::handlers

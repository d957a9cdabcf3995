// ValidatingAdmissionPolicy (k8s.io/apiserver/pkg/admission/plugin/policy/validating: plugin.go and
// dispatcher.go, over policy/generic: plugin.go's exemption of admission configuration, policy_dispatcher.go's
// matching of policies, bindings and params). Each policy that matches, each binding of it that matches, each of
// the binding's params: one evaluation, whose failed validations deny, warn or audit as the binding says.
#include "server/admission/plugin.h"
#include "server/admission/versioned_attributes.h"
#include "server/apierrors/errors.h"
#include "server/metrics/registry.h"
#include "server/plugin/admission/cel/inputs.h"
#include "server/plugin/admission/validating_admission_policy/errors.h"
#include "server/plugin/admission/validating_admission_policy/matching.h"
#include "server/plugin/admission/validating_admission_policy/params.h"
#include "server/plugin/admission/validating_admission_policy/policy_source.h"
#include "server/plugin/admission/validating_admission_policy/status_controller.h"
#include "server/plugin/admission/validating_admission_policy/validator.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include "base/log.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <chrono>
#include <map>

namespace kapi::admission {
namespace policy {
namespace {

namespace json = boost::json;

// kube's maxAuditAnnotationValueLength.
constexpr std::size_t kMaxAuditAnnotationValueBytes = 10 * 1024;

struct Invocation {
  const CompiledPolicy* policy;
  const Binding* binding;
  webhook::Invocation matched;
  std::shared_ptr<const json::object> param;
  const Attributes* seen = nullptr;  // the request in the matched kind's version
};

// auditAnnotationCollector: one policy's annotations, distinct values of a key joined.
class AuditAnnotations {
 public:
  void add(const std::string& key, std::string value) {
    std::vector<std::string>& values = values_[key];
    if (std::ranges::find(values, value) == values.end()) values.push_back(std::move(value));
  }
  void publish(const std::string& policy, const Attributes& attributes, base::Logger* logger) const {
    for (const auto& [key, values] : values_) {
      std::string value;
      for (std::size_t index = 0; index < values.size(); ++index) value += (index ? ", " : "") + values[index];
      if (!attributes.add_annotation(policy + "/" + key, value) && logger)
        logger->warning("Failed to set admission audit annotation " + key + " to " + value +
                        " for ValidatingAdmissionPolicy " + policy);
    }
  }

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

std::string gvk_text(const ParamKind& kind) { return kind.group + "/" + kind.version + ", Kind=" + kind.kind; }

class ValidatingAdmissionPolicyPlugin final : public Plugin {
 public:
  explicit ValidatingAdmissionPolicyPlugin(const PluginContext& context)
      : source_(lookup(context, "validatingadmissionpolicies"), lookup(context, "validatingadmissionpolicybindings")),
        stores_(context.stores),
        custom_stores_(context.custom_stores),
        namespaces_(context.stores ? context.stores("", "namespaces") : nullptr),
        authorizer_(context.authorizer),
        logger_(context.logger),
        metrics_(context.metrics) {
    if (context.executor && context.stopping && context.logger)
      source_.start(context.executor, context.stopping, *context.logger);
    registry::Store* policies = lookup(context, "validatingadmissionpolicies");
    if (policies && context.executor && context.stopping && context.logger && context.catalog) {
      status_controller_ = std::make_shared<StatusController>(*policies, context.stores, context.custom_schemas,
                                                              *context.catalog, *context.logger, context.stopping);
      asio::co_spawn(context.executor, run_controller(status_controller_), asio::detached);
    }
  }

  bool handles(const Attributes& attributes) const override {
    return !webhook::is_exempt_configuration_resource(attributes);
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    std::shared_ptr<const Hooks> hooks = co_await source_.hooks();
    if (hooks->empty()) co_return;
    webhook::NamespaceLabels namespace_labels(namespaces_, attributes);
    VersionedAttributes versioned(attributes);
    std::vector<PolicyError> errors;
    std::vector<Invocation> invocations;
    for (const Hook& hook : *hooks) {
      const CompiledPolicy& policy = *hook.policy;
      MatchOutcome matched = co_await match_resources(policy.match_constraints, attributes, namespace_labels);
      if (matched.error) {
        add_error(errors, policy, nullptr, "failed to configure policy: " + *matched.error);
        continue;
      }
      if (!matched.matches) continue;
      std::shared_ptr<registry::Store> params =
          policy.param_kind ? param_store(stores_, custom_stores_, *policy.param_kind) : nullptr;
      if (policy.param_kind && !params) {
        add_error(errors, policy, nullptr,
                  "failed to configure policy: failed to find resource referenced by paramKind: '" +
                      gvk_text(*policy.param_kind) + "'");
        continue;
      }
      for (const Binding& binding : hook.bindings) {
        if (binding.match_resources) {
          MatchOutcome bound = co_await match_resources(*binding.match_resources, attributes, namespace_labels);
          if (bound.error) {
            add_error(errors, policy, &binding, "failed to configure binding: " + *bound.error);
            continue;
          }
          if (!bound.matches) continue;
        }
        CollectedParams collected = co_await collect_params(policy.param_kind, params.get(), binding.param_ref,
                                                            attributes.namespace_);
        if (collected.error) {
          add_error(errors, policy, &binding, "failed to configure binding: " + *collected.error);
          continue;
        }
        const Attributes* seen = nullptr;
        try {
          seen = &versioned.as(matched.invocation.kind);
        } catch (const apierrors::ApiError& error) {
          add_error(errors, policy, &binding, "failed to convert object version: " + error.status().message);
          continue;
        }
        for (auto& param : collected.params)
          invocations.push_back({&policy, &binding, matched.invocation, param, seen});
      }
    }
    if (!invocations.empty()) co_await dispatch(attributes, invocations);
    if (!errors.empty()) throw policy_errors(attributes, errors);
  }

 private:
  static registry::Store* lookup(const PluginContext& context, std::string_view resource) {
    return context.stores ? context.stores("admissionregistration.k8s.io", resource) : nullptr;
  }

  static asio::awaitable<void> run_controller(std::shared_ptr<StatusController> controller) {
    co_await controller->run();
  }

  // Configuration errors count only for policies that fail closed.
  static void add_error(std::vector<PolicyError>& errors, const CompiledPolicy& policy, const Binding* binding,
                        std::string message) {
    if (policy.fail_open) return;
    errors.push_back({policy.name, binding ? binding->name : std::string(), std::move(message)});
  }

  // The request's namespace as stored (kube's matcher.GetNamespace), null for cluster-scoped requests and for a
  // namespace itself. A namespace that cannot be found refuses the request with its NotFound.
  asio::awaitable<std::shared_ptr<const json::object>> request_namespace(const Attributes& attributes) {
    if (attributes.namespace_.empty() || !namespaces_) co_return nullptr;
    if (attributes.kind.group.empty() && attributes.kind.version == "v1" && attributes.kind.kind == "Namespace")
      co_return nullptr;
    std::string stored;
    for (const char* resource_version : {"0", ""}) {
      try {
        auto pending = namespaces_->get("", attributes.namespace_, resource_version);  // g++ 12: no temporaries
        registry::ReadObject read = co_await std::move(pending);
        stored = std::move(read.json);
      } catch (const apierrors::ApiError&) {
      }
      if (!stored.empty()) break;
    }
    std::optional<json::object> parsed = registry::parse_json_object(stored);
    if (!parsed) throw apierrors::ApiError(apierrors::not_found("", "namespaces", attributes.namespace_));
    co_return std::make_shared<const json::object>(std::move(*parsed));
  }

  // The validating dispatcher's dispatchInvocations.
  asio::awaitable<void> dispatch(const Attributes& attributes, const std::vector<Invocation>& invocations) {
    std::shared_ptr<const json::object> namespace_object = co_await request_namespace(attributes);
    struct Denied {
      const CompiledPolicy* policy;
      const Binding* binding;
      std::string message;
      std::string reason;
    };
    std::vector<Denied> denied;
    std::map<const CompiledPolicy*, AuditAnnotations> annotations;
    std::vector<const CompiledPolicy*> policy_order;
    for (const Invocation& invocation : invocations) {
      const CompiledPolicy& policy = *invocation.policy;
      const Binding& binding = *invocation.binding;
      if (!annotations.contains(&policy)) policy_order.push_back(&policy);
      AuditAnnotations& collector = annotations[&policy];
      const cel_runtime::InputSources sources{.attributes = invocation.seen,
                                              .matched_resource = invocation.matched.resource,
                                              .matched_kind = invocation.matched.kind,
                                              .params = invocation.param,
                                              .namespace_object = namespace_object,
                                              .authorizer = authorizer_};
      cel_runtime::AdmissionActivation activation(cel_runtime::make_inputs(sources), &policy.compiler.variables());
      const ValidateResult result = policy::validate(policy, activation);
      if (result.matched)
        cel_runtime::observe_match(metrics_,
                                   {.name = policy.name, .kind = "policy", .type = "validate",
                                    .operation = to_string(attributes.operation)},
                                   *result.matched, result.match_elapsed);
      for (std::size_t index = 0; index < result.decisions.size(); ++index) {
        const Decision& decision = result.decisions[index];
        if (!decision.deny) {
          if (decision.evaluation_error) observe_check(policy, binding, decision, "allow");
          continue;
        }
        for (const std::string& action : binding.validation_actions) {
          observe_check(policy, binding, decision, action == "Deny" ? "deny" : action == "Audit" ? "audit" : "warn");
          if (action == "Deny") {
            denied.push_back({&policy, &binding, decision.message, decision.reason});
          } else if (action == "Audit") {
            const std::string value = validation_failure_value(policy.name, binding.name, index, decision.message,
                                                               binding.validation_actions);
            if (!attributes.add_annotation(std::string(kValidationFailureAnnotation), value) && logger_)
              logger_->warning("Failed to set admission audit annotation " + std::string(kValidationFailureAnnotation) +
                               " to " + value + " for ValidatingAdmissionPolicy " + policy.name +
                               " and ValidatingAdmissionPolicyBinding " + binding.name);
          } else if (action == "Warn") {
            attributes.add_warning(warning_text(policy.name, binding.name, decision.message));
          }
        }
      }
      for (const AuditAnnotationResult& annotation : result.audit_annotations) {
        if (annotation.action == AuditAnnotationResult::Action::Publish)
          collector.add(annotation.key, annotation.value.substr(0, kMaxAuditAnnotationValueBytes));
        else if (annotation.action == AuditAnnotationResult::Action::Error)
          denied.push_back({&policy, &binding, annotation.error, ""});
      }
    }
    for (const CompiledPolicy* policy : policy_order) annotations[policy].publish(policy->name, attributes, logger_);
    if (denied.empty()) co_return;
    const Denied& first = denied.front();
    throw denial(attributes, first.policy->name, &first.binding->name, first.message, first.reason);
  }

  // apiserver_validating_admission_policy_check_total and _duration_seconds, as kube's dispatcher observes them.
  void observe_check(const CompiledPolicy& policy, const Binding& binding, const Decision& decision,
                     std::string_view enforcement_action) const {
    if (!metrics_) return;
    const metrics::Labels labels{std::string(enforcement_action), std::string(error_type(decision)), policy.name,
                                 binding.name};
    metrics_->policy_checks.inc(labels);
    metrics_->policy_check_duration.observe(labels, std::chrono::duration<double>(decision.elapsed).count());
  }

  PolicySource source_;
  StoreLookup stores_;
  CustomStoreLookup custom_stores_;
  registry::Store* namespaces_;
  const authorization::Authorizer* authorizer_;
  base::Logger* logger_;
  metrics::Registry* metrics_;
  std::shared_ptr<StatusController> status_controller_;
};

}  // namespace
}  // namespace policy

std::unique_ptr<Plugin> make_validating_admission_policy(const PluginContext& context) {
  return std::make_unique<policy::ValidatingAdmissionPolicyPlugin>(context);
}

}  // namespace kapi::admission

// PodSecurity (k8s.io/pod-security-admission/admission/admission.go and response.go, wrapped as kube-apiserver
// wraps them in plugin/pkg/admission/security/podsecurity/admission.go), release-1.32: pods are held to their
// namespace's enforce level, pods and pod templates are reported against its audit and warn levels, and a
// namespace's labels are checked, its existing pods dry-run against a stricter enforce level.
#include "server/plugin/admission/podsecurity/admission.h"

#include "base/ascii.h"
#include "base/go_quote.h"
#include "server/apierrors/errors.h"
#include "server/metrics/registry.h"
#include "server/plugin/admission/podsecurity/checks.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

namespace kapi::admission::podsecurity {
namespace {

namespace json = boost::json;
using json_view::object_at;
using json_view::string_at;

constexpr std::string_view kExemptAnnotation = "exempt";
constexpr std::string_view kAuditViolationsAnnotation = "audit-violations";
constexpr std::string_view kEnforcePolicyAnnotation = "enforce-policy";
constexpr std::string_view kErrorAnnotation = "error";

// Pod subresources that cannot change what the checks see.
constexpr std::array<std::string_view, 8> kIgnoredPodSubresources{"exec",        "attach", "binding", "eviction",
                                                                  "log",         "portforward", "proxy", "status"};

struct PodSpecResource {
  std::string_view group;
  std::string_view resource;
};
// defaultPodSpecResources besides pods.
constexpr std::array<PodSpecResource, 8> kPodControllerResources{{{"", "replicationcontrollers"},
                                                                  {"", "podtemplates"},
                                                                  {"apps", "replicasets"},
                                                                  {"apps", "deployments"},
                                                                  {"apps", "statefulsets"},
                                                                  {"apps", "daemonsets"},
                                                                  {"batch", "jobs"},
                                                                  {"batch", "cronjobs"}}};

bool is_pod_controller(const Attributes& attributes) {
  return std::ranges::any_of(kPodControllerResources, [&](const PodSpecResource& known) {
    return is_resource(attributes, known.group, known.resource);
  });
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return !item.empty() && std::ranges::find(list, item) != list.end();
}

const json::object* labels_of(const json::object& object) { return object_at(object_at(&object, "metadata"), "labels"); }

// The annotations one evaluation adds to the audit event, under pod-security.kubernetes.io/.
using AuditAnnotations = std::map<std::string, std::string>;

void record(const Attributes& attributes, const AuditAnnotations& annotations) {
  for (const auto& [key, value] : annotations) attributes.add_annotation(std::string(kLabelPrefix) + key, value);
}

// The template a pod controller carries: the pod's metadata and spec, or nothing for a controller without one.
std::optional<PodView> pod_template(const Attributes& attributes, const json::object& object) {
  const json::object* holder = object_at(&object, "spec");  // the object holding `template`
  if (is_resource(attributes, "", "podtemplates")) holder = &object;
  else if (is_resource(attributes, "batch", "cronjobs")) holder = object_at(object_at(holder, "jobTemplate"), "spec");
  const json::value* template_value = holder ? holder->if_contains("template") : nullptr;
  // Only a replication controller's template is optional (a pointer); the others are always there, maybe empty.
  if (is_resource(attributes, "", "replicationcontrollers") && (!template_value || template_value->is_null()))
    return std::nullopt;
  const json::object* template_object = template_value ? template_value->if_object() : nullptr;
  return PodView{object_at(template_object, "metadata"), object_at(template_object, "spec")};
}

// pod-security-admission's metrics (metrics/metrics.go): the pod_security_* counters kube-apiserver exposes.
class Recorder {
 public:
  explicit Recorder(metrics::Registry* registry) : registry_(registry) {}

  // RecordEvaluation: a decision of one mode at one level; the version as kube labels it.
  void evaluation(bool allowed, const LevelVersion& policy, std::string_view mode, const Attributes& attributes) const {
    if (!registry_) return;
    std::string version = "latest";
    if (!policy.version.latest && policy.level != Level::Privileged)
      version = kApiVersion.older_than(policy.version) ? "future" : policy.version.str();
    registry_->pod_security_evaluations.inc({allowed ? "allow" : "deny", std::string(mode),
                                             std::string(to_string(policy.level)), version, operation(attributes),
                                             resource(attributes), attributes.subresource});
  }
  void exemption(const Attributes& attributes) const {
    if (registry_)
      registry_->pod_security_exemptions.inc({operation(attributes), resource(attributes), attributes.subresource});
  }
  void error(bool fatal, const Attributes& attributes) const {
    if (registry_)
      registry_->pod_security_errors.inc({fatal ? "true" : "false", operation(attributes), resource(attributes),
                                          attributes.subresource});
  }

 private:
  // The release whose checks these are (api.MajorMinorVersion of kube 1.32's build).
  static constexpr Version kApiVersion{1, 32, false};

  static std::string operation(const Attributes& attributes) {
    return base::ascii_lowercase(to_string(attributes.operation));
  }
  static std::string resource(const Attributes& attributes) {
    if (is_resource(attributes, "", "pods")) return "pod";
    return is_resource(attributes, "", "namespaces") ? "namespace" : "controller";
  }

  metrics::Registry* registry_;
};

class PodSecurity final : public Plugin {
 public:
  PodSecurity(Configuration configuration, NamespaceGetter namespaces, PodLister pods, Limits limits,
              metrics::Registry* metrics)
      : configuration_(std::move(configuration)),
        namespaces_(std::move(namespaces)),
        pods_(std::move(pods)),
        limits_(limits),
        recorder_(metrics) {}

  bool handles(const Attributes& attributes) const override {
    if (attributes.operation != Operation::Create && attributes.operation != Operation::Update) return false;
    if (is_resource(attributes, "", "namespaces") || is_pod_controller(attributes))
      return attributes.subresource.empty();
    if (is_resource(attributes, "", "pods"))
      return std::ranges::find(kIgnoredPodSubresources, attributes.subresource) == kIgnoredPodSubresources.end();
    return false;
  }

  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    if (!attributes.object) co_return;
    if (is_resource(attributes, "", "namespaces")) co_await validate_namespace(attributes);
    else if (is_resource(attributes, "", "pods")) co_await validate_pod(attributes);
    else co_await validate_pod_controller(attributes);
  }

 private:
  // The namespace a request is in; a namespace's own requests are "in" it (kube's create handler names a new
  // namespace as the request's namespace).
  static std::string_view request_namespace(const Attributes& attributes) {
    if (!attributes.namespace_.empty()) return attributes.namespace_;
    return attributes.name.empty() ? string_at(object_at(attributes.object, "metadata"), "name")
                                   : std::string_view(attributes.name);
  }

  bool exempt_namespace(std::string_view namespace_) const {
    return contains(configuration_.exempt_namespaces, namespace_);
  }
  bool exempt_user(const Attributes& attributes) const {
    return attributes.user && contains(configuration_.exempt_usernames, attributes.user->name);
  }

  PolicyEvaluation policy_of(const json::object* labels) const {
    return policy_to_evaluate(labels, configuration_.defaults);
  }

  [[noreturn]] static void refuse_labels(const Attributes& attributes, const validation::ErrorList& errors) {
    throw apierrors::ApiError(apierrors::invalid(attributes.kind.group, attributes.kind.kind, attributes.name, errors));
  }

  // ValidateNamespace: valid labels, and a dry run of the namespace's pods against a stricter enforce level.
  asio::awaitable<void> validate_namespace(const Attributes& attributes) const {
    check_namespace_labels(attributes);
    if (attributes.operation != Operation::Update) co_return;
    const std::optional<LevelVersion> dry_run = enforce_to_dry_run(attributes);
    if (!dry_run) co_return;
    const std::string name(string_at(object_at(attributes.object, "metadata"), "name"));
    std::optional<std::chrono::steady_clock::time_point> request_deadline;
    if (attributes.context) request_deadline = attributes.context->deadline;
    std::vector<std::string> warnings = co_await evaluate_pods_in_namespace(name, *dry_run, request_deadline);
    for (std::string& warning : warnings) attributes.add_warning(std::move(warning));
  }

  // Labels are required to be valid on create, and on update when they changed; an exempt namespace is told
  // that its labels are ignored.
  void check_namespace_labels(const Attributes& attributes) const {
    const PolicyEvaluation updated = policy_of(labels_of(*attributes.object));
    if (attributes.operation == Operation::Create) {
      if (!updated.errors.empty()) refuse_labels(attributes, updated.errors);
      warn_exempt_namespace(attributes, updated.policy);
      return;
    }
    if (!attributes.old_object) return;
    const PolicyEvaluation old = policy_of(labels_of(*attributes.old_object));
    // Labels that were already invalid the same way stay allowed: only a change is refused.
    auto texts = [](const validation::ErrorList& errors) {
      std::vector<std::string> result;
      for (const auto& error : errors) result.push_back(error.text());
      return result;
    };
    if (!updated.errors.empty() && (old.errors.empty() || texts(updated.errors) != texts(old.errors)))
      refuse_labels(attributes, updated.errors);
  }

  // The new enforce level to dry-run the namespace's pods against, when kube would.
  std::optional<LevelVersion> enforce_to_dry_run(const Attributes& attributes) const {
    if (!attributes.old_object) return std::nullopt;
    const Policy updated = policy_of(labels_of(*attributes.object)).policy;
    const Policy old = policy_of(labels_of(*attributes.old_object)).policy;
    if (updated.enforce == old.enforce) return std::nullopt;
    if (updated.enforce.level == Level::Privileged) return std::nullopt;
    if (updated.enforce.version == old.enforce.version && compare_levels(updated.enforce.level, old.enforce.level) < 1)
      return std::nullopt;
    if (exempt_namespace(request_namespace(attributes))) {
      warn_exempt_namespace(attributes, updated);
      return std::nullopt;
    }
    return updated.enforce;
  }

  // exemptNamespaceWarning: labels asking an exempt namespace for more than privileged (and than the defaults).
  void warn_exempt_namespace(const Attributes& attributes, const Policy& policy) const {
    if (!exempt_namespace(request_namespace(attributes))) return;
    if (policy.fully_privileged() || policy.equivalent(configuration_.defaults)) return;
    const json::object* labels = labels_of(*attributes.object);
    auto labelled = [&](std::string_view level, std::string_view version) {
      return labels && (labels->contains(level) || labels->contains(version));
    };
    std::string modes;
    auto add = [&](std::string_view mode, const LevelVersion& level_version, bool set) {
      if (level_version.level == Level::Privileged || !set) return;
      modes += (modes.empty() ? "" : ", ") + std::string(mode) + "=" + level_version.str();
    };
    add("enforce", policy.enforce, labelled(kEnforceLevelLabel, kEnforceVersionLabel));
    add("audit", policy.audit, labelled(kAuditLevelLabel, kAuditVersionLabel));
    add("warn", policy.warn, labelled(kWarnLevelLabel, kWarnVersionLabel));
    attributes.add_warning("namespace " + base::go_quote(request_namespace(attributes)) +
                           " is exempt from Pod Security, and the policy (" + modes + ") will be ignored");
  }

  // EvaluatePodsInNamespace: the pods' violations of `enforce`, grouped by reason, within kube's limits (so many
  // pods, a second or half the request's remaining time).
  asio::awaitable<std::vector<std::string>> evaluate_pods_in_namespace(
      std::string namespace_, LevelVersion enforce,
      std::optional<std::chrono::steady_clock::time_point> request_deadline) const {
    const auto now = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration timeout = limits_.namespace_pod_check_timeout;
    if (request_deadline && timeout > (*request_deadline - now) / 2) timeout = (*request_deadline - now) / 2;
    const auto deadline = now + timeout;
    std::vector<json::object> listed;
    bool failed = false;
    try {
      listed = co_await pods_(namespace_);
    } catch (const std::exception&) {
      failed = true;
    }
    if (failed) co_return std::vector<std::string>{"failed to list pods while checking new PodSecurity enforce level"};

    std::vector<const json::object*> pods = prioritize(listed);
    const std::size_t total = pods.size();
    if (pods.size() > limits_.namespace_max_pods_to_check) pods.resize(limits_.namespace_max_pods_to_check);
    std::size_t checked = pods.size();
    struct Count {
      std::string pod_name;  // the lexically first pod with this warning
      std::size_t pods = 0;
    };
    std::vector<std::string> pod_warnings;  // in the order first seen
    std::map<std::string, Count> counts;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      const json::object* metadata = object_at(pods[i], "metadata");
      const AggregateCheckResult result = evaluate(enforce, PodView{metadata, object_at(pods[i], "spec")});
      if (!result.allowed) {
        const std::string warning = result.forbidden_reason();
        const std::string name(string_at(metadata, "name"));
        auto [count, inserted] = counts.try_emplace(warning, Count{name, 0});
        if (inserted) pod_warnings.push_back(warning);
        else if (name < count->second.pod_name) count->second.pod_name = name;
        ++count->second.pods;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        checked = i + 1;
        break;
      }
    }
    std::vector<std::string> warnings;
    if (checked < total)
      warnings.push_back("new PodSecurity enforce level only checked against the first " + std::to_string(checked) +
                         " of " + std::to_string(total) + " existing pods");
    if (!pod_warnings.empty())
      warnings.push_back("existing pods in namespace " + base::go_quote(namespace_) +
                         " violate the new PodSecurity enforce level " + base::go_quote(enforce.str()));
    for (std::string& warning : pod_warnings) {
      const Count& count = counts.at(warning);
      if (count.pods == 1) warning = count.pod_name + ": " + warning;
      else if (count.pods == 2) warning = count.pod_name + " (and 1 other pod): " + warning;
      else warning = count.pod_name + " (and " + std::to_string(count.pods - 1) + " other pods): " + warning;
    }
    std::ranges::sort(pod_warnings);
    warnings.insert(warnings.end(), pod_warnings.begin(), pod_warnings.end());
    co_return warnings;
  }

  // prioritizePods: pods of exempt runtime classes left out, one pod per controller first, its siblings last.
  std::vector<const json::object*> prioritize(const std::vector<json::object>& pods) const {
    std::vector<const json::object*> prioritized;
    std::vector<const json::object*> duplicates;
    std::vector<std::string> controllers;
    for (const json::object& pod : pods) {
      if (contains(configuration_.exempt_runtime_classes, string_at(object_at(&pod, "spec"), "runtimeClassName")))
        continue;
      // metav1.GetControllerOf: the first owner marked as the controller.
      std::optional<std::string> controller_uid;
      if (const json::array* owners = json_view::array_at(object_at(&pod, "metadata"), "ownerReferences")) {
        for (const auto& owner : *owners) {
          if (json_view::bool_at(owner.if_object(), "controller").value_or(false)) {
            controller_uid = std::string(string_at(owner.if_object(), "uid"));
            break;
          }
        }
      }
      if (!controller_uid) {
        prioritized.push_back(&pod);
      } else if (std::ranges::find(controllers, *controller_uid) != controllers.end()) {
        duplicates.push_back(&pod);
      } else {
        prioritized.push_back(&pod);
        controllers.push_back(*controller_uid);
      }
    }
    prioritized.insert(prioritized.end(), duplicates.begin(), duplicates.end());
    return prioritized;
  }

  // The namespace's labels; a failure to read it is the caller's to answer.
  asio::awaitable<json::object> get_namespace(const std::string& name) const { co_return co_await namespaces_(name); }

  // What ValidatePod and ValidatePodController do first: the exemptions (recorded), then the namespace's read.
  struct NamespaceLookup {
    bool exempt = false;
    json::object object;
    std::string error;  // why the namespace could not be read
  };
  asio::awaitable<NamespaceLookup> exempt_or_namespace(const Attributes& attributes) const {
    NamespaceLookup lookup;
    if (exempt_namespace(attributes.namespace_)) {
      record(attributes, {{std::string(kExemptAnnotation), "namespace"}});
      lookup.exempt = true;
    } else if (exempt_user(attributes)) {
      record(attributes, {{std::string(kExemptAnnotation), "user"}});
      lookup.exempt = true;
    } else {
      try {
        lookup.object = co_await get_namespace(attributes.namespace_);
      } catch (const std::exception& error) {
        lookup.error = error.what();
      }
    }
    if (lookup.exempt) recorder_.exemption(attributes);
    if (!lookup.error.empty()) recorder_.error(true, attributes);
    co_return lookup;
  }

  asio::awaitable<void> validate_pod(const Attributes& attributes) const {
    NamespaceLookup lookup = co_await exempt_or_namespace(attributes);
    if (lookup.exempt) co_return;
    json::object& namespace_object = lookup.object;
    const std::string& lookup_error = lookup.error;
    if (!lookup_error.empty()) {
      const apierrors::Status status =
          apierrors::internal_error("failed to lookup namespace " + base::go_quote(attributes.namespace_));
      record(attributes, {{std::string(kErrorAnnotation), status.message + ": " + lookup_error}});
      throw apierrors::ApiError(status);
    }
    const PolicyEvaluation policy = policy_of(labels_of(namespace_object));
    if (policy.errors.empty() && policy.policy.fully_privileged()) {
      record(attributes, {{std::string(kEnforcePolicyAnnotation), LevelVersion{Level::Privileged, Version::newest()}.str()}});
      recorder_.evaluation(true, policy.policy.enforce, "enforce", attributes);
      co_return;
    }
    if (attributes.operation == Operation::Update && attributes.old_object &&
        !is_significant_pod_update(*attributes.object, *attributes.old_object))
      co_return;
    evaluate_pod(attributes, policy, PodView{object_at(attributes.object, "metadata"), object_at(attributes.object, "spec")},
                 true);
  }

  asio::awaitable<void> validate_pod_controller(const Attributes& attributes) const {
    NamespaceLookup lookup = co_await exempt_or_namespace(attributes);
    if (lookup.exempt) co_return;
    json::object& namespace_object = lookup.object;
    const std::string& lookup_error = lookup.error;
    // Templates are never refused: a failed lookup is only noted.
    if (!lookup_error.empty()) {
      record(attributes, {{std::string(kErrorAnnotation), "failed to lookup namespace " +
                                                              base::go_quote(attributes.namespace_) + ": " + lookup_error}});
      co_return;
    }
    const PolicyEvaluation policy = policy_of(labels_of(namespace_object));
    if (policy.errors.empty() && policy.policy.warn.level == Level::Privileged &&
        policy.policy.audit.level == Level::Privileged)
      co_return;
    const std::optional<PodView> pod = pod_template(attributes, *attributes.object);
    if (!pod) co_return;
    evaluate_pod(attributes, policy, *pod, false);
  }

  // EvaluatePod: enforce (pods only) refuses, audit annotates, warn warns; each level and version evaluated once.
  void evaluate_pod(const Attributes& attributes, const PolicyEvaluation& policy, const PodView& pod,
                    bool enforce) const {
    if (contains(configuration_.exempt_runtime_classes, string_at(pod.spec, "runtimeClassName"))) {
      record(attributes, {{std::string(kExemptAnnotation), "runtimeClass"}});
      recorder_.exemption(attributes);
      return;
    }
    AuditAnnotations annotations;
    if (!policy.errors.empty()) {
      annotations[std::string(kErrorAnnotation)] = "Failed to parse policy: " + aggregate_text(policy.errors);
      recorder_.error(false, attributes);
    }
    std::vector<std::pair<LevelVersion, AggregateCheckResult>> cached;
    auto result_of = [&](const LevelVersion& level_version) {
      for (const auto& [evaluated, result] : cached)
        if (evaluated == level_version) return result;
      cached.emplace_back(level_version, aggregate(evaluate_pod_checks(level_version, pod)));
      return cached.back().second;
    };
    std::optional<apierrors::Status> refusal;
    if (enforce) {
      annotations[std::string(kEnforcePolicyAnnotation)] = policy.policy.enforce.str();
      const AggregateCheckResult result = result_of(policy.policy.enforce);
      if (!result.allowed)
        refusal = apierrors::forbidden(attributes.resource.group, attributes.resource.resource, attributes.name,
                                       "violates PodSecurity " + base::go_quote(policy.policy.enforce.str()) + ": " +
                                           result.forbidden_detail());
      recorder_.evaluation(result.allowed, policy.policy.enforce, "enforce", attributes);
    }
    // Audit and warn count only their violations.
    const AggregateCheckResult audit = result_of(policy.policy.audit);
    if (!audit.allowed) {
      annotations[std::string(kAuditViolationsAnnotation)] =
          "would violate PodSecurity " + base::go_quote(policy.policy.audit.str()) + ": " + audit.forbidden_detail();
      recorder_.evaluation(false, policy.policy.audit, "audit", attributes);
    }
    // A request about to be refused gets no warnings.
    if (!refusal) {
      const AggregateCheckResult warn = result_of(policy.policy.warn);
      if (!warn.allowed) {
        attributes.add_warning("would violate PodSecurity " + base::go_quote(policy.policy.warn.str()) + ": " +
                               warn.forbidden_detail());
        recorder_.evaluation(false, policy.policy.warn, "warn", attributes);
      }
    }
    record(attributes, annotations);
    if (refusal) throw apierrors::ApiError(std::move(*refusal));
  }

  static std::vector<CheckResult> evaluate_pod_checks(const LevelVersion& level_version, const PodView& pod) {
    return podsecurity::evaluate_pod(level_version, pod);
  }

  Configuration configuration_;
  NamespaceGetter namespaces_;
  PodLister pods_;
  Limits limits_;
  Recorder recorder_;
};

const json::array* containers_at(const json::object& pod, std::string_view list) {
  return json_view::array_at(object_at(&pod, "spec"), list);
}

}  // namespace

bool is_significant_pod_update(const json::object& pod, const json::object& old_pod) {
  static const json::array kNone;
  for (std::string_view list : {"containers", "initContainers"}) {
    const json::array* updated = containers_at(pod, list);
    const json::array* old = containers_at(old_pod, list);
    if (!updated) updated = &kNone;
    if (!old) old = &kNone;
    if (updated->size() != old->size()) return true;
    for (std::size_t i = 0; i < updated->size(); ++i) {
      const json::object* a = (*updated)[i].if_object();
      const json::object* b = (*old)[i].if_object();
      if (string_at(a, "image") != string_at(b, "image")) return true;
    }
  }
  const json::array* ephemeral = containers_at(pod, "ephemeralContainers");
  const json::array* old_ephemeral = containers_at(old_pod, "ephemeralContainers");
  if (!ephemeral) return false;
  for (const auto& container : *ephemeral) {
    const json::object* fields = container.if_object();
    const json::object* old = nullptr;
    if (old_ephemeral) {
      for (const auto& candidate : *old_ephemeral) {
        if (string_at(candidate.if_object(), "name") == string_at(fields, "name")) {
          old = candidate.if_object();
          break;
        }
      }
    }
    if (!old) return true;  // added
    if (string_at(fields, "image") != string_at(old, "image")) return true;
  }
  return false;
}

std::unique_ptr<Plugin> make_plugin(Configuration configuration, NamespaceGetter namespaces, PodLister pods,
                                    Limits limits, metrics::Registry* metrics) {
  return std::make_unique<PodSecurity>(std::move(configuration), std::move(namespaces), std::move(pods), limits,
                                       metrics);
}

}  // namespace kapi::admission::podsecurity

namespace kapi::admission {

// kube reads namespaces through its informer, then the API when the informer has not seen one yet; pods through
// the informer: here the watch cache, then a live read.
std::unique_ptr<Plugin> make_pod_security(const PluginContext& context) {
  registry::Store* namespaces = context.stores("", "namespaces");
  registry::Store* pods = context.stores("", "pods");
  podsecurity::NamespaceGetter get_namespace = [namespaces](std::string name) -> asio::awaitable<boost::json::object> {
    std::string stored;
    try {
      registry::ReadObject cached = co_await namespaces->get("", name, "0");
      stored = std::move(cached.json);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    if (stored.empty()) {
      registry::ReadObject live = co_await namespaces->get("", name, "");
      stored = std::move(live.json);
    }
    std::optional<boost::json::object> parsed = registry::parse_json_object(stored);
    co_return parsed ? std::move(*parsed) : boost::json::object();
  };
  podsecurity::PodLister list_pods = [pods](std::string namespace_) -> asio::awaitable<std::vector<boost::json::object>> {
    registry::ListRequest request;
    request.resource_version = "0";
    registry::ObjectList listed = co_await pods->list(std::move(namespace_), std::move(request));
    std::vector<boost::json::object> result;
    result.reserve(listed.items.size());
    for (registry::ReadObject& item : listed.items)
      if (std::optional<boost::json::object> parsed = registry::parse_json_object(item.json)) result.push_back(std::move(*parsed));
    co_return result;
  };
  return podsecurity::make_plugin(podsecurity::load_configuration(context.configuration), std::move(get_namespace),
                                  std::move(list_pods), {}, context.metrics);
}

}  // namespace kapi::admission

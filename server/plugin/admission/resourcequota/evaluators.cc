// kube's quota evaluators (pkg/quota/v1/evaluator/core pods.go, services.go, persistent_volume_claims.go;
// k8s.io/apiserver/pkg/quota/v1/generic evaluator.go; pkg/api/v1/resource PodRequests and PodLimits;
// quota.CalculateUsage), as of release-1.32 (InPlacePodVerticalScaling off: pods are charged on create only).
#include "server/plugin/admission/resourcequota/evaluators.h"

#include "base/go_time.h"
#include "server/apis/core/pod_defaults.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>

namespace kapi::admission::quota {
namespace {

namespace json = boost::json;
using registry::fields::array_at;
using registry::fields::object_at;
using registry::fields::string_at;

constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kHugePagesPrefix = "hugepages-";
constexpr std::string_view kStorageClassSuffix = ".storageclass.storage.k8s.io/";

bool has_prefix(std::string_view name, std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; }

// helper.IsNativeResource: unprefixed, or in the kubernetes.io/ domain.
bool is_native_resource(std::string_view name) {
  return name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
}

// helper.IsExtendedResourceName (the qualified-name check of "requests.<name>" aside: validation made sure).
bool is_extended_resource(std::string_view name) {
  return !is_native_resource(name) && !has_prefix(name, kRequestsPrefix);
}

ResourceList resource_list_at(const json::object* holder, std::string_view key) {
  return parse_list(object_at(holder, key));
}

// addResourceList: a missing entry is copied, a present one summed.
void add_into(ResourceList& into, const ResourceList& other) { into = add(into, other); }

bool restartable(const json::object& container) { return string_at(container, "restartPolicy") == "Always"; }

// AggregateContainerRequests / AggregateContainerLimits: the containers' sum, at least each init container's
// (with the sidecars started before it), plus the overhead (for limits only where a limit is set).
ResourceList pod_resources(const json::object& pod, std::string_view which) {
  const json::object* spec = object_at(pod, "spec");
  auto of = [which](const json::value& container) {
    return container.is_object() ? resource_list_at(object_at(container.get_object(), "resources"), which)
                                 : ResourceList{};
  };
  ResourceList total;
  if (const json::array* containers = array_at(spec, "containers"))
    for (const auto& container : *containers) add_into(total, of(container));
  ResourceList sidecars;
  ResourceList init_max;
  if (const json::array* containers = array_at(spec, "initContainers")) {
    for (const auto& container : *containers) {
      ResourceList own = of(container);
      if (container.is_object() && restartable(container.get_object())) {
        add_into(total, own);
        add_into(sidecars, own);
        take_max(init_max, sidecars);
      } else {
        add_into(own, sidecars);
        take_max(init_max, own);
      }
    }
  }
  take_max(total, init_max);
  const ResourceList overhead = resource_list_at(spec, "overhead");
  if (which == "requests") {
    add_into(total, overhead);
  } else {
    for (const auto& [name, quantity] : overhead)
      if (auto it = total.find(name); it != total.end()) it->second = plus(it->second, quantity);
  }
  return total;
}

// podComputeUsageHelper.
ResourceList pod_compute_usage(const ResourceList& requests, const ResourceList& limits) {
  ResourceList result{{"pods", count(1)}};
  auto copy = [](const ResourceList& from, std::string_view name, std::initializer_list<std::string_view> into,
                 ResourceList& to) {
    if (auto it = from.find(name); it != from.end())
      for (std::string_view target : into) to[std::string(target)] = it->second;
  };
  copy(requests, "cpu", {"cpu", "requests.cpu"}, result);
  copy(limits, "cpu", {"limits.cpu"}, result);
  copy(requests, "memory", {"memory", "requests.memory"}, result);
  copy(limits, "memory", {"limits.memory"}, result);
  copy(requests, "ephemeral-storage", {"ephemeral-storage", "requests.ephemeral-storage"}, result);
  copy(limits, "ephemeral-storage", {"limits.ephemeral-storage"}, result);
  for (const auto& [name, quantity] : requests) {
    if (has_prefix(name, kHugePagesPrefix)) {
      result[name] = quantity;
      result[std::string(kRequestsPrefix) + name] = quantity;
    }
    if (is_extended_resource(name)) result[std::string(kRequestsPrefix) + name] = quantity;
  }
  return result;
}

// QuotaV1Pod: pods that have finished, or whose deletion is past its grace period (a lost node), are not charged
// for compute resources.
bool charged_for_compute(const json::object& pod) {
  const std::string_view phase = string_at(object_at(pod, "status"), "phase");
  if (phase == "Failed" || phase == "Succeeded") return false;
  const json::object* metadata = object_at(pod, "metadata");
  const std::optional<std::int64_t> grace = registry::fields::int_at(metadata, "deletionGracePeriodSeconds");
  const std::optional<base::UnixTime> deletion = base::parse_rfc3339(string_at(metadata, "deletionTimestamp"));
  if (!grace || !deletion) return true;
  const base::UnixTime now = base::unix_time(std::chrono::system_clock::now());
  return now.seconds <= deletion->seconds + *grace;
}

bool is_best_effort(const json::object& pod) {
  const std::string_view recorded = string_at(object_at(pod, "status"), "qosClass");
  return (recorded.empty() ? apis::core::pod_qos_class(pod) : std::string(recorded)) == "BestEffort";
}

bool is_terminating(const json::object& pod) {
  const json::value* deadline = object_at(pod, "spec") ? object_at(pod, "spec")->if_contains("activeDeadlineSeconds")
                                                       : nullptr;
  return deadline && deadline->is_int64() && deadline->get_int64() >= 0;
}

bool cross_namespace_terms(const json::object* affinity, std::string_view kind) {
  const json::object* terms_holder = object_at(affinity, kind);
  auto term_crosses = [](const json::object& term) {
    const json::array* namespaces = array_at(term, "namespaces");
    const json::value* selector = term.if_contains("namespaceSelector");
    return (namespaces && !namespaces->empty()) || (selector && !selector->is_null());
  };
  if (const json::array* required = array_at(terms_holder, "requiredDuringSchedulingIgnoredDuringExecution"))
    for (const auto& term : *required)
      if (term.is_object() && term_crosses(term.get_object())) return true;
  if (const json::array* preferred = array_at(terms_holder, "preferredDuringSchedulingIgnoredDuringExecution"))
    for (const auto& weighted : *preferred)
      if (weighted.is_object())
        if (const json::object* term = object_at(weighted.get_object(), "podAffinityTerm"); term && term_crosses(*term))
          return true;
  return false;
}

// podMatchesSelector: the selector over the label set {PriorityClass: <name>} (empty without a class).
bool priority_class_matches(const ScopeRequirement& scope, std::string_view class_name) {
  const bool present = !class_name.empty();
  const bool listed = present && contains(scope.values, class_name);
  if (scope.op == "In") return listed;
  if (scope.op == "NotIn") return !listed;
  if (scope.op == "Exists") return present;
  if (scope.op == "DoesNotExist") return !present;
  return false;
}

class PodEvaluator final : public Evaluator {
 public:
  PodEvaluator() : Evaluator("", "pods") {}

  std::vector<std::string> matching_resources(const std::vector<std::string>& input) const override {
    static const std::vector<std::string> kPodResources{
        "count/pods",      "cpu",           "memory",        "ephemeral-storage",          "requests.cpu",
        "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
        "pods"};
    std::vector<std::string> result = intersection(input, kPodResources);
    for (const auto& name : input) {
      if (has_prefix(name, kHugePagesPrefix) || has_prefix(name, "requests.hugepages-")) result.push_back(name);
      if (!is_native_resource(name) && has_prefix(name, kRequestsPrefix)) result.push_back(name);
    }
    return result;
  }

  bool matches_scope(const ScopeRequirement& scope, const json::object& pod) const override {
    if (scope.scope_name == "Terminating") return is_terminating(pod);
    if (scope.scope_name == "NotTerminating") return !is_terminating(pod);
    if (scope.scope_name == "BestEffort") return is_best_effort(pod);
    if (scope.scope_name == "NotBestEffort") return !is_best_effort(pod);
    if (scope.scope_name == "PriorityClass") {
      const std::string_view class_name = string_at(object_at(pod, "spec"), "priorityClassName");
      if (scope.op == "Exists") return !class_name.empty();
      return priority_class_matches(scope, class_name);
    }
    if (scope.scope_name == "CrossNamespacePodAffinity") {
      const json::object* affinity = object_at(object_at(pod, "spec"), "affinity");
      return cross_namespace_terms(affinity, "podAffinity") || cross_namespace_terms(affinity, "podAntiAffinity");
    }
    return false;
  }

  // kube's mistake kept for compatibility: a quota on cpu or memory requires every container to state them.
  std::optional<std::string> constraints(const std::vector<std::string>& required,
                                         const json::object& pod) const override {
    static const std::vector<std::string> kValidationSet{"cpu",          "memory",          "requests.cpu",
                                                         "requests.memory", "limits.cpu", "limits.memory"};
    const std::vector<std::string> required_set = intersection(required, kValidationSet);
    std::map<std::string, std::set<std::string>> missing;  // resource → container names, both sorted as kube's sets
    auto enforce = [&](const json::value& container) {
      if (!container.is_object()) return;
      const json::object* resources = object_at(container.get_object(), "resources");
      const ResourceList usage =
          pod_compute_usage(resource_list_at(resources, "requests"), resource_list_at(resources, "limits"));
      for (const auto& name : required_set)
        if (!usage.contains(name)) missing[name].insert(std::string(string_at(container.get_object(), "name")));
    };
    const json::object* spec = object_at(pod, "spec");
    if (const json::array* containers = array_at(spec, "containers"))
      for (const auto& container : *containers) enforce(container);
    if (const json::array* containers = array_at(spec, "initContainers"))
      for (const auto& container : *containers) enforce(container);
    if (missing.empty()) return std::nullopt;
    std::string message;
    for (const auto& [resource, containers] : missing) {
      std::string names;
      for (const auto& name : containers) names += (names.empty() ? "" : ",") + name;
      message += (message.empty() ? "" : "; ") + resource + " for: " + names;
    }
    return "must specify " + message;
  }

  ResourceList usage(const json::object& pod) const override {
    ResourceList result{{"count/pods", count(1)}};
    if (!charged_for_compute(pod)) return result;
    return add(result, pod_compute_usage(pod_resources(pod, "requests"), pod_resources(pod, "limits")));
  }
};

class ServiceEvaluator final : public Evaluator {
 public:
  ServiceEvaluator() : Evaluator("", "services") {}

  // A service's type, and so what it is charged, can change.
  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create || attributes.operation == Operation::Update;
  }

  std::vector<std::string> matching_resources(const std::vector<std::string>& input) const override {
    return intersection(input, {"count/services", "services", "services.loadbalancers", "services.nodeports"});
  }

  ResourceList usage(const json::object& service) const override {
    const json::object* spec = object_at(service, "spec");
    const json::array* ports = array_at(spec, "ports");
    const std::int64_t port_count = ports ? static_cast<std::int64_t>(ports->size()) : 0;
    ResourceList result{{"count/services", count(1)},
                        {"services", count(1)},
                        {"services.loadbalancers", count(0)},
                        {"services.nodeports", count(0)}};
    const std::string_view type = string_at(spec, "type");
    if (type == "NodePort") {
      result["services.nodeports"] = count(port_count);
    } else if (type == "LoadBalancer") {
      const json::value* allocate = spec ? spec->if_contains("allocateLoadBalancerNodePorts") : nullptr;
      if (allocate && allocate->is_bool() && !allocate->get_bool()) {
        // Without allocated node ports only those asked for explicitly count.
        std::int64_t explicit_ports = 0;
        for (const auto& port : *ports)
          if (port.is_object() && registry::fields::int_at(port.get_object(), "nodePort").value_or(0) != 0)
            ++explicit_ports;
        result["services.nodeports"] = count(explicit_ports);
      } else {
        result["services.nodeports"] = count(port_count);
      }
      result["services.loadbalancers"] = count(1);
    }
    return result;
  }
};

// storagehelpers.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName.
std::string claim_class(const json::object& claim) {
  const json::object* annotations = object_at(object_at(claim, "metadata"), "annotations");
  if (const json::value* beta = annotations ? annotations->if_contains("volume.beta.kubernetes.io/storage-class")
                                            : nullptr;
      beta && beta->is_string())
    return std::string(beta->get_string());
  return std::string(string_at(object_at(claim, "spec"), "storageClassName"));
}

class ClaimEvaluator final : public Evaluator {
 public:
  ClaimEvaluator() : Evaluator("", "persistentvolumeclaims") {}

  // Claims are charged again when resized.
  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create || attributes.operation == Operation::Update;
  }

  std::vector<std::string> matching_resources(const std::vector<std::string>& input) const override {
    std::vector<std::string> result;
    for (const auto& name : input) {
      if (name == "count/persistentvolumeclaims" || name == "persistentvolumeclaims" || name == "requests.storage" ||
          name.ends_with(std::string(kStorageClassSuffix) + "persistentvolumeclaims") ||
          name.ends_with(std::string(kStorageClassSuffix) + "requests.storage"))
        result.push_back(name);
    }
    return result;
  }

  ResourceList usage(const json::object& claim) const override {
    ResourceList result{{"persistentvolumeclaims", count(1)}, {"count/persistentvolumeclaims", count(1)}};
    const std::string class_name = claim_class(claim);
    if (!class_name.empty())
      result[class_name + std::string(kStorageClassSuffix) + "persistentvolumeclaims"] = count(1);
    // The larger of the request and what was allocated (a failed expansion is still charged).
    std::optional<Quantity> storage;
    const ResourceList requested =
        resource_list_at(object_at(object_at(claim, "spec"), "resources"), "requests");
    if (auto it = requested.find("storage"); it != requested.end()) storage = it->second;
    const ResourceList allocated = resource_list_at(object_at(claim, "status"), "allocatedResources");
    if (auto it = allocated.find("storage"); it != allocated.end() && (!storage || it->second.nanos > storage->nanos))
      storage = it->second;
    if (storage) {
      result["requests.storage"] = *storage;
      if (!class_name.empty()) result[class_name + std::string(kStorageClassSuffix) + "requests.storage"] = *storage;
    }
    return result;
  }
};

// generic.objectCountEvaluator: one per object, under count/<resource>.<group> and a legacy name for some.
class ObjectCountEvaluator final : public Evaluator {
 public:
  ObjectCountEvaluator(std::string group, std::string resource, std::string alias)
      : Evaluator(group, resource), names_{object_count_name(group, resource)} {
    if (!alias.empty()) names_.push_back(std::move(alias));
  }

  std::vector<std::string> matching_resources(const std::vector<std::string>& input) const override {
    return intersection(input, names_);
  }

  ResourceList usage(const json::object& /*item*/) const override {
    ResourceList result;
    for (const auto& name : names_) result[name] = count(1);
    return result;
  }

 private:
  std::vector<std::string> names_;
};

// The evaluators the quota controller always has (install.NewQuotaConfigurationForControllers).
std::vector<std::unique_ptr<Evaluator>> registered_evaluators() {
  std::vector<std::unique_ptr<Evaluator>> evaluators;
  evaluators.push_back(std::make_unique<PodEvaluator>());
  evaluators.push_back(std::make_unique<ServiceEvaluator>());
  evaluators.push_back(std::make_unique<ClaimEvaluator>());
  for (std::string_view legacy : {"configmaps", "resourcequotas", "replicationcontrollers", "secrets"})
    evaluators.push_back(std::make_unique<ObjectCountEvaluator>("", std::string(legacy), std::string(legacy)));
  return evaluators;
}

std::vector<std::string> hard_names(const json::object& quota, std::string_view from) {
  std::vector<std::string> out;
  if (const json::object* hard = object_at(object_at(quota, from), "hard"))
    for (const auto& [name, value] : *hard) out.emplace_back(name);
  return out;
}

}  // namespace

std::vector<ScopeRequirement> scope_requirements(const json::object& quota) {
  std::vector<ScopeRequirement> out;
  const json::object* spec = object_at(quota, "spec");
  if (spec)
    for (const auto& scope : registry::fields::strings_at(*spec, "scopes")) out.push_back({scope, "Exists", {}});
  if (const json::array* expressions = array_at(object_at(spec, "scopeSelector"), "matchExpressions"))
    for (const auto& expression : *expressions) {
      if (!expression.is_object()) continue;
      const json::object& requirement = expression.get_object();
      out.push_back({std::string(string_at(requirement, "scopeName")), std::string(string_at(requirement, "operator")),
                     registry::fields::strings_at(requirement, "values")});
    }
  return out;
}

std::string object_count_name(std::string_view group, std::string_view resource) {
  return "count/" + std::string(resource) + (group.empty() ? "" : "." + std::string(group));
}

std::unique_ptr<Evaluator> evaluator_for(std::string_view group, std::string_view resource) {
  if (group.empty()) {
    if (resource == "pods") return std::make_unique<PodEvaluator>();
    if (resource == "services") return std::make_unique<ServiceEvaluator>();
    if (resource == "persistentvolumeclaims") return std::make_unique<ClaimEvaluator>();
    if (resource == "configmaps" || resource == "resourcequotas" || resource == "replicationcontrollers" ||
        resource == "secrets")
      return std::make_unique<ObjectCountEvaluator>("", std::string(resource), std::string(resource));
  }
  return std::make_unique<ObjectCountEvaluator>(std::string(group), std::string(resource), "");
}

bool ignored_resource(std::string_view group, std::string_view resource) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kIgnored{{
      {"", "bindings"},
      {"", "componentstatuses"},
      {"", "events"},
      {"events.k8s.io", "events"},
      {"authentication.k8s.io", "tokenreviews"},
      {"authentication.k8s.io", "selfsubjectreviews"},
      {"authorization.k8s.io", "subjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectaccessreviews"},
      {"authorization.k8s.io", "localsubjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectrulesreviews"},
  }};
  return std::ranges::any_of(kIgnored, [&](const auto& ignored) {
    return ignored.first == group && ignored.second == resource;
  });
}

bool matches(const Evaluator& evaluator, const json::object& quota, const json::object& item) {
  if (evaluator.matching_resources(hard_names(quota, "status")).empty()) return false;
  for (const ScopeRequirement& scope : scope_requirements(quota))
    if (!evaluator.matches_scope(scope, item)) return false;
  return true;
}

asio::awaitable<ResourceList> calculate_usage(const StoreLookup& stores, const json::object& quota) {
  const std::vector<std::string> hard = hard_names(quota, "spec");
  std::vector<std::unique_ptr<Evaluator>> evaluators = registered_evaluators();
  // Any other resource counted by name (the controller's quota monitor follows every listable resource).
  for (const auto& name : hard) {
    if (!name.starts_with("count/")) continue;
    const bool known = std::ranges::any_of(evaluators, [&](const auto& evaluator) {
      return !evaluator->matching_resources({name}).empty();
    });
    if (known) continue;
    const std::string group_resource = name.substr(6);
    const std::size_t dot = group_resource.find('.');
    evaluators.push_back(std::make_unique<ObjectCountEvaluator>(
        dot == std::string::npos ? "" : group_resource.substr(dot + 1), group_resource.substr(0, dot), ""));
  }
  std::vector<std::string> matched;
  for (const auto& evaluator : evaluators)
    for (auto& name : evaluator->matching_resources(hard))
      if (!contains(matched, name)) matched.push_back(std::move(name));

  const std::string namespace_(registry::meta_string(quota, "namespace"));
  const std::vector<ScopeRequirement> scopes = scope_requirements(quota);
  ResourceList used;
  for (const auto& evaluator : evaluators) {
    const std::vector<std::string> resources = evaluator->matching_resources(matched);
    if (resources.empty()) continue;
    registry::Store* store = stores ? stores(evaluator->group(), evaluator->resource()) : nullptr;
    if (!store) {  // not served here: its usage stays what admission made it
      std::erase_if(matched, [&](const std::string& name) { return contains(resources, name); });
      continue;
    }
    // generic.CalculateUsageStats: every tracked resource starts at zero.
    ResourceList stats;
    for (const auto& name : resources) stats[name] = count(0);
    registry::ListRequest request{.resource_version = "0"};
    registry::ObjectList objects = co_await store->list(namespace_, std::move(request));
    for (const auto& object : objects.items) {
      std::optional<json::object> item = registry::parse_json_object(object.json);
      if (!item) continue;
      const bool in_scopes = std::ranges::all_of(scopes, [&](const ScopeRequirement& scope) {
        return evaluator->matches_scope(scope, *item);
      });
      if (in_scopes) stats = add(stats, evaluator->usage(*item));
    }
    used = add(used, stats);
  }
  co_return mask(used, matched);
}

}  // namespace kapi::admission::quota

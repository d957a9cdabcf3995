#include "server/apis/core/pod_subresources.h"

#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "server/selectors/metav1_label_selector.h"

namespace kapi::apis::core {
namespace {

using namespace registry::fields;

void check_name(const json::object& body, const std::string& name, std::string_view kind) {
  if (registry::meta_string(body, "name") != name)
    throw apierrors::ApiError(
        apierrors::bad_request("name in URL does not match name in " + std::string(kind) + " object"));
}

// ValidatePodBinding.
void validate_binding(const json::object& binding, const std::string& name) {
  const json::object* target = object_at(binding, "target");
  validation::ErrorList errors;
  if (auto kind = string_at(target, "kind"); !kind.empty() && kind != "Node")
    errors.push_back(validation::not_supported(validation::Path("target").child("kind"), kind, {"Node", "<empty>"}));
  if (string_at(target, "name").empty()) errors.push_back(validation::required(validation::Path("target").child("name")));
  if (!errors.empty()) throw apierrors::ApiError(apierrors::invalid("", "Binding", name, errors));
}

// BindingREST.Create + setPodNodeAndMetadata: the node written once, the binding's annotations merged, the pod
// marked scheduled. A pod already bound or being deleted is a conflict on pods/binding.
asio::awaitable<registry::SubresourceAnswer> bind(registry::Store& pods, std::string namespace_, std::string name,
                                                json::object binding, bool dry_run) {
  check_name(binding, name, "Binding");
  validate_binding(binding, name);
  const std::string node(string_at(object_at(binding, "target"), "name"));
  const std::string uid(registry::meta_string(binding, "uid"));
  const std::string resource_version(registry::meta_string(binding, "resourceVersion"));
  const json::object* annotations = object_at(*object_at(binding, "metadata"), "annotations");
  auto refuse = [&](std::string why) {
    return apierrors::ApiError(apierrors::conflict("", "pods/binding", name, why));
  };
  registry::UpdateFunction assign = [&](const json::object* current) {
    json::object pod = *current;
    if (!uid.empty() && registry::meta_string(pod, "uid") != uid)
      throw refuse("Precondition failed: UID in precondition: " + uid + ", UID in object meta: " +
                   std::string(registry::meta_string(pod, "uid")));
    if (!registry::meta_string(pod, "deletionTimestamp").empty())
      throw refuse("pod " + name + " is being deleted, cannot be assigned to a host");
    auto& spec = pod["spec"].as_object();
    if (auto bound = string_at(spec, "nodeName"); !bound.empty())
      throw refuse("pod " + name + " is already assigned to node \"" + std::string(bound) + "\"");
    if (const json::array* gates = array_at(spec, "schedulingGates"); gates && !gates->empty())
      throw refuse("pod " + name + " has non-empty .spec.schedulingGates");
    spec["nodeName"] = node;
    if (annotations && !annotations->empty()) {
      auto& meta = registry::metadata_of(pod);
      auto& pod_annotations = meta["annotations"];
      if (!pod_annotations.is_object()) pod_annotations = json::object();
      for (const auto& [key, value] : *annotations) pod_annotations.as_object()[key] = value;
    }
    // podutil.UpdatePodCondition: PodScheduled=True, its transition time moved only when it changes.
    auto& status = pod["status"];
    if (!status.is_object()) status = json::object();
    auto& conditions = status.as_object()["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    json::object* scheduled = nullptr;
    for (auto& condition : conditions.as_array())
      if (condition.is_object() && string_at(condition.as_object(), "type") == "PodScheduled")
        scheduled = &condition.as_object();
    if (!scheduled) {
      conditions.as_array().push_back(json::object{{"type", "PodScheduled"}});
      scheduled = &conditions.as_array().back().as_object();
    }
    if (string_at(*scheduled, "status") != "True") {
      (*scheduled)["status"] = "True";
      (*scheduled)["lastTransitionTime"] = registry::rfc3339_now();
      scheduled->erase("reason");
      scheduled->erase("message");
    }
    return pod;
  };
  registry::WriteOptions options{.dry_run = dry_run, .subresource = "binding", .bypass_strategy_validation = true};
  if (!resource_version.empty()) {
    // The binding's resourceVersion is a precondition on the pod, checked against what is stored.
    registry::ReadObject current = co_await pods.get(namespace_, name, "");
    if (registry::meta_string(registry::parse_json(current.json).as_object(), "resourceVersion") != resource_version)
      throw refuse("the object has been modified; please apply your changes to the latest version and try again");
  }
  std::string pod_name = name;  // `assign` still reads `name`
  co_await pods.update(std::move(namespace_), std::move(pod_name), assign, options);
  co_return std::nullopt;
}

}  // namespace

asio::awaitable<registry::SubresourceAnswer> bind_pod(registry::Store& pods, std::string namespace_, std::string name,
                                                      json::object binding, bool dry_run) {
  return bind(pods, std::move(namespace_), std::move(name), std::move(binding), dry_run);
}

namespace {

// The eviction's DeleteOptions as the pod's deletion takes them.
registry::DeleteOptions delete_options_of(const json::object& eviction, bool dry_run) {
  registry::DeleteOptions options;
  options.dry_run = dry_run;
  if (const json::object* delete_options = object_at(eviction, "deleteOptions")) {
    if (auto grace = int_at(*delete_options, "gracePeriodSeconds")) options.grace_period_seconds = *grace;
    if (const json::object* preconditions = object_at(*delete_options, "preconditions")) {
      if (auto uid = string_at(*preconditions, "uid"); !uid.empty()) options.precondition_uid = std::string(uid);
      if (auto version = string_at(*preconditions, "resourceVersion"); !version.empty())
        options.precondition_resource_version = std::string(version);
    }
    if (const json::array* modes = array_at(*delete_options, "dryRun"); modes && !modes->empty()) options.dry_run = true;
  }
  return options;
}

constexpr std::string_view kViolatesBudget = "Cannot evict pod as it would violate the pod's disruption budget.";
// kube's MaxDisruptedPodSize: evictions the disruption controller has not confirmed yet.
constexpr std::size_t kMaxDisruptedPods = 2000;
// EvictionsRetry's steps: how often a conflicting write is tried again.
constexpr int kEvictionAttempts = 5;

apierrors::ApiError budget_refusal(std::string cause, int retry_after_seconds) {
  apierrors::Status status = apierrors::too_many_requests(std::string(kViolatesBudget), retry_after_seconds);
  status.details->causes.push_back({"DisruptionBudget", std::move(cause), ""});
  return apierrors::ApiError(std::move(status));
}

apierrors::ApiError budget_still_processed(std::string_view budget) {
  return budget_refusal("The disruption budget " + std::string(budget) + " is still being processed by the server.", 10);
}

std::string_view phase_of(const json::object& pod) { return string_at(object_at(pod, "status"), "phase"); }

// canIgnorePDB: a pod that is done, not started or already going disrupts nothing more.
bool can_ignore_budgets(const json::object& pod) {
  const std::string_view phase = phase_of(pod);
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         !registry::meta_string(pod, "deletionTimestamp").empty();
}

// shouldEnforceResourceVersion: the pod must not have become ready since it was read.
bool enforces_resource_version(const json::object& pod) {
  const std::string_view phase = phase_of(pod);
  return phase != "Succeeded" && phase != "Failed" && registry::meta_string(pod, "deletionTimestamp").empty();
}

bool pod_ready(const json::object& pod) {
  bool ready = false;
  for_each_object(object_at(pod, "status"), "conditions", [&](const json::object& condition, std::size_t) {
    if (string_at(condition, "type") == "Ready") ready = string_at(condition, "status") == "True";
  });
  return ready;
}

// getPodDisruptionBudgets: the namespace's budgets whose selector matches the pod (policy/v1: a missing selector
// matches nothing, an empty one everything).
asio::awaitable<std::vector<json::object>> budgets_of(registry::Store& budgets, std::string namespace_,
                                                     const json::object& pod) {
  selectors::LabelMap labels;
  if (const json::object* pod_labels = object_at(object_at(pod, "metadata"), "labels"))
    for (const auto& [key, value] : *pod_labels)
      if (value.is_string()) labels.emplace(std::string(key), std::string(value.as_string()));
  registry::ListRequest request;
  auto pending = budgets.list(std::move(namespace_), std::move(request));
  registry::ObjectList listed = co_await std::move(pending);
  std::vector<json::object> matching;
  for (const auto& item : listed.items) {
    json::object budget = registry::parse_json(item.json).as_object();
    const json::object* selector = object_at(object_at(budget, "spec"), "selector");
    if (!selector) continue;
    std::optional<selectors::LabelSelector> parsed = selectors::label_selector_from_metav1(*selector);
    if (parsed && parsed->matches(labels)) matching.push_back(std::move(budget));
  }
  co_return matching;
}

// checkAndDecrement on the stored budget: one disruption fewer allowed and the pod noted as disrupted, or a refusal.
json::object take_one_disruption(const json::object& budget, const std::string& pod_name) {
  const std::string name(registry::meta_string(budget, "name"));
  json::object updated = budget;
  json::object& status = ensure_object(updated, "status");
  const std::int64_t generation = int_at(object_at(budget, "metadata"), "generation").value_or(0);
  if (int_or_zero(&status, "observedGeneration") < generation) throw budget_still_processed(name);
  const std::int64_t allowed = int_or_zero(&status, "disruptionsAllowed");
  if (allowed < 0)
    throw apierrors::ApiError(apierrors::forbidden("policy", "poddisruptionbudget", name,
                                                   "pdb disruptions allowed is negative"));
  const json::object* disrupted = object_at(status, "disruptedPods");
  if (disrupted && disrupted->size() > kMaxDisruptedPods)
    throw apierrors::ApiError(apierrors::forbidden(
        "policy", "poddisruptionbudget", name,
        "DisruptedPods map too big - too many evictions not confirmed by PDB controller"));
  if (allowed == 0)
    throw budget_refusal("The disruption budget " + name + " needs " +
                             std::to_string(int_or_zero(&status, "desiredHealthy")) + " healthy pods and has " +
                             std::to_string(int_or_zero(&status, "currentHealthy")) + " currently",
                         0);
  status["disruptionsAllowed"] = allowed - 1;
  if (allowed - 1 == 0) {
    // UpdateDisruptionAllowedCondition, with meta.SetStatusCondition's transition time.
    json::array& conditions = status["conditions"].is_array() ? status["conditions"].as_array()
                                                               : status["conditions"].emplace_array();
    json::object* condition = nullptr;
    for (auto& existing : conditions)
      if (existing.is_object() && string_at(existing.as_object(), "type") == "DisruptionAllowed")
        condition = &existing.as_object();
    if (!condition) condition = &conditions.emplace_back(json::object{{"type", "DisruptionAllowed"}}).as_object();
    if (string_at(*condition, "status") != "False") (*condition)["lastTransitionTime"] = registry::rfc3339_now();
    (*condition)["status"] = "False";
    (*condition)["reason"] = "InsufficientPods";
    (*condition)["message"] = "";
    (*condition)["observedGeneration"] = int_or_zero(&status, "observedGeneration");
  }
  ensure_object(status, "disruptedPods")[pod_name] = registry::rfc3339_now();
  return updated;
}

// addConditionAndDeletePod: the pod records why it goes (a DisruptionTarget condition, podutil.UpdatePodCondition)
// before it is deleted; the deletion's resourceVersion precondition, checked by that write, follows it.
asio::awaitable<void> mark_and_delete(registry::Store& pods, std::string namespace_, std::string name,
                                      registry::DeleteOptions options) {
  if (!options.dry_run) {
    const std::optional<std::string> uid = options.precondition_uid;
    const std::optional<std::string> resource_version = options.precondition_resource_version;
    registry::UpdateFunction add_condition = [&](const json::object* current) {
      json::object pod = *current;
      if (uid && registry::meta_string(pod, "uid") != *uid)
        throw apierrors::ApiError(apierrors::conflict(
            "", "Pod", name,
            "the UID in the precondition (" + *uid + ") does not match the UID in record (" +
                std::string(registry::meta_string(pod, "uid")) + "). The object might have been deleted and then recreated"));
      // The Store refuses the write with a 409 when the stored object is no longer this version.
      if (resource_version) registry::metadata_of(pod)["resourceVersion"] = *resource_version;
      json::object& status = ensure_object(pod, "status");
      if (!status["conditions"].is_array()) status["conditions"] = json::array();
      json::array& conditions = status["conditions"].as_array();
      json::object* target = nullptr;
      for (auto& condition : conditions)
        if (condition.is_object() && string_at(condition.as_object(), "type") == "DisruptionTarget")
          target = &condition.as_object();
      if (!target) target = &conditions.emplace_back(json::object{{"type", "DisruptionTarget"}}).as_object();
      if (string_at(*target, "status") != "True") (*target)["lastTransitionTime"] = registry::rfc3339_now();
      (*target)["status"] = "True";
      (*target)["reason"] = "EvictionByEvictionAPI";
      (*target)["message"] = "Eviction API: evicting";
      return pod;
    };
    registry::WriteOptions write{.subresource = "status"};
    auto updating = pods.update(namespace_, name, add_condition, write);
    auto [stored, created] = co_await std::move(updating);
    if (resource_version)
      options.precondition_resource_version =
          std::string(registry::meta_string(registry::parse_json(stored).as_object(), "resourceVersion"));
  }
  auto removing = pods.remove(std::move(namespace_), std::move(name), std::move(options));
  co_await std::move(removing);
}

// EvictionREST.Create (pkg/registry/core/pod/storage/eviction.go): a pod no budget needs to guard is deleted; one
// guarded by a single budget is deleted once the budget's status allowed one more disruption, which the eviction
// takes from it first; more than one budget is a misconfiguration kube answers with 500.
asio::awaitable<registry::SubresourceAnswer> evict(DisruptionBudgetStore budget_store, registry::Store& pods,
                                                 std::string namespace_, std::string name, json::object eviction,
                                                 bool dry_run) {
  check_name(eviction, name, "Eviction");
  const registry::DeleteOptions requested = delete_options_of(eviction, dry_run);
  registry::Store* budgets = budget_store ? budget_store() : nullptr;
  if (!budgets) {
    co_await pods.remove(std::move(namespace_), std::move(name), requested);
    co_return std::nullopt;
  }
  json::object pod;
  for (int attempt = 1;; ++attempt) {
    auto reading = pods.get(namespace_, name, "");
    registry::ReadObject read = co_await std::move(reading);
    pod = registry::parse_json(read.json).as_object();
    if (!can_ignore_budgets(pod)) break;
    registry::DeleteOptions options = requested;
    if (enforces_resource_version(pod) && !options.precondition_resource_version)
      options.precondition_resource_version = std::string(registry::meta_string(pod, "resourceVersion"));
    try {
      auto removing = mark_and_delete(pods, namespace_, name, std::move(options));
      co_await std::move(removing);
      co_return std::nullopt;
    } catch (const apierrors::ApiError& error) {
      // The pod changed since it was read: read it again, unless the client set the precondition itself.
      if (error.status().code != 409 || requested.precondition_resource_version || attempt == kEvictionAttempts)
        throw;
    }
  }

  auto finding = budgets_of(*budgets, namespace_, pod);
  std::vector<json::object> guarding = co_await std::move(finding);
  if (guarding.size() > 1)
    throw apierrors::ApiError(
        {500, "", "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
         std::nullopt});
  bool unhealthy_pod_may_go = false;
  if (guarding.size() == 1) {
    const json::object& budget = guarding.front();
    const std::string budget_name(registry::meta_string(budget, "name"));
    const json::object* status = object_at(budget, "status");
    if (!pod_ready(pod)) {
      // An unready pod does not count as healthy: AlwaysAllow lets it go, IfHealthyBudget (the default) when the
      // budget is met without it. Either way no disruption is taken from the budget.
      const std::int64_t desired = int_or_zero(status, "desiredHealthy");
      unhealthy_pod_may_go = string_at(object_at(budget, "spec"), "unhealthyPodEvictionPolicy") == "AlwaysAllow" ||
                             (int_or_zero(status, "currentHealthy") >= desired && desired > 0);
    }
    if (!unhealthy_pod_may_go) {
      if (requested.dry_run) {
        take_one_disruption(budget, name);
      } else {
        registry::UpdateFunction decrement = [&](const json::object* current) {
          if (!current) throw apierrors::ApiError(apierrors::not_found("policy", "poddisruptionbudgets", budget_name));
          return take_one_disruption(*current, name);
        };
        registry::WriteOptions options{.subresource = "status"};
        auto updating = budgets->update(namespace_, budget_name, decrement, options);
        co_await std::move(updating);
      }
    }
  }
  registry::DeleteOptions options = requested;
  if (unhealthy_pod_may_go && !options.precondition_resource_version)
    options.precondition_resource_version = std::string(registry::meta_string(pod, "resourceVersion"));
  std::optional<std::string> refused_by;
  try {
    auto removing = mark_and_delete(pods, namespace_, name, std::move(options));
    co_await std::move(removing);
  } catch (const apierrors::ApiError& error) {
    // The pod changed (became ready, perhaps) since it was judged: the client is asked to try again.
    if (error.status().code != 409 || !unhealthy_pod_may_go || requested.precondition_resource_version) throw;
    refused_by = std::string(registry::meta_string(guarding.front(), "name"));
  }
  if (refused_by) throw budget_still_processed(*refused_by);
  co_return std::nullopt;
}

}  // namespace

std::vector<registry::CreateSubresource> pod_create_subresources(DisruptionBudgetStore budgets) {
  auto evict_within_budgets = [budgets = std::move(budgets)](registry::Store& pods, std::string namespace_,
                                                             std::string name, json::object eviction, bool dry_run) {
    return evict(budgets, pods, std::move(namespace_), std::move(name), std::move(eviction), dry_run);
  };
  return {{"binding", "", "v1", "Binding", bind}, {"eviction", "policy", "v1", "Eviction", evict_within_budgets}};
}

}  // namespace kapi::apis::core

#include "server/apis/core/pod_subresources.h"

#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

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

// EvictionREST.Create with no PodDisruptionBudget to consult (kapi serves no policy/v1 budgets): the pod is
// deleted with the eviction's DeleteOptions.
asio::awaitable<registry::SubresourceAnswer> evict(registry::Store& pods, std::string namespace_, std::string name,
                                                 json::object eviction, bool dry_run) {
  check_name(eviction, name, "Eviction");
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
  co_await pods.remove(std::move(namespace_), std::move(name), std::move(options));
  co_return std::nullopt;
}

}  // namespace

std::vector<registry::CreateSubresource> pod_create_subresources() {
  return {{"binding", "", "v1", "Binding", bind}, {"eviction", "policy", "v1", "Eviction", evict}};
}

}  // namespace kapi::apis::core

#include "server/aggregator/autoregistration.h"

#include "server/aggregator/apiservice_model.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <set>

namespace kapi::aggregator {
namespace {

namespace json = boost::json;

struct Priority {
  std::string_view group, version;
  int group_priority, version_priority;
};

// kube-apiserver's apiVersionPriorities (the generic ones and the Kube API server's), for the group versions kapi
// can serve: they order /apis and each group's versions.
const std::vector<Priority>& builtin_priorities() {
  static const std::vector<Priority> priorities = {
      {"", "v1", 18000, 1},
      {"apps", "v1", 17800, 15},
      {"events.k8s.io", "v1", 17750, 15},
      {"events.k8s.io", "v1beta1", 17750, 5},
      {"authentication.k8s.io", "v1", 17700, 15},
      {"authentication.k8s.io", "v1beta1", 17700, 9},
      {"authentication.k8s.io", "v1alpha1", 17700, 1},
      {"authorization.k8s.io", "v1", 17600, 15},
      {"autoscaling", "v1", 17500, 15},
      {"autoscaling", "v2", 17500, 30},
      {"batch", "v1", 17400, 15},
      {"certificates.k8s.io", "v1", 17300, 15},
      {"networking.k8s.io", "v1", 17200, 15},
      {"policy", "v1", 17100, 15},
      {"rbac.authorization.k8s.io", "v1", 17000, 15},
      {"storage.k8s.io", "v1", 16800, 15},
      {"apiextensions.k8s.io", "v1", 16700, 15},
      {"admissionregistration.k8s.io", "v1", 16700, 15},
      {"scheduling.k8s.io", "v1", 16600, 15},
      {"coordination.k8s.io", "v1", 16500, 15},
      {"node.k8s.io", "v1", 16300, 15},
      {"discovery.k8s.io", "v1", 16200, 15},
      {"flowcontrol.apiserver.k8s.io", "v1", 16100, 21},
      {"flowcontrol.apiserver.k8s.io", "v1beta3", 16100, 18},
  };
  return priorities;
}

json::object apiservice(const std::string& group, const std::string& version, int group_priority,
                        int version_priority, std::string_view managed) {
  return json::object{
      {"apiVersion", "apiregistration.k8s.io/v1"},
      {"kind", "APIService"},
      {"metadata", json::object{{"name", version + "." + group},
                                {"labels", json::object{{kAutoManagedLabel, managed}}}}},
      {"spec", json::object{{"group", group},
                            {"version", version},
                            {"groupPriorityMinimum", group_priority},
                            {"versionPriority", version_priority}}}};
}

std::string_view managed_by(const json::object& object) {
  const json::value* meta = object.if_contains("metadata");
  const json::value* labels = meta && meta->is_object() ? meta->as_object().if_contains("labels") : nullptr;
  if (!labels || !labels->is_object()) return {};
  return registry::string_field(labels->as_object(), kAutoManagedLabel);
}

// The spec fields autoregistration owns; a local APIService has no service, caBundle or TLS settings.
// Compared as the store gives a spec back, where Go's omitempty drops a "" group and a false flag and a missing
// service reads as null: otherwise every stored local APIService would differ from the wanted one, and be
// rewritten (to no effect) every second.
bool same_spec(const json::object& stored, const json::object& wanted) {
  const json::value* spec = stored.if_contains("spec");
  if (!spec || !spec->is_object()) return false;
  auto set_fields = [](const json::object& fields) {
    json::object kept;
    for (const auto& [key, value] : fields) {
      const bool unset = value.is_null() || (value.is_string() && value.as_string().empty()) ||
                         (value.is_bool() && !value.as_bool());
      if (!unset) kept.emplace(key, value);
    }
    return kept;
  };
  return set_fields(spec->as_object()) == set_fields(wanted.at("spec").as_object());
}

}  // namespace

std::optional<json::object> local_apiservice(const discovery::LocalGroupVersion& local) {
  for (const auto& priority : builtin_priorities())
    if (priority.group == local.group && priority.version == local.version)
      return apiservice(local.group, local.version, priority.group_priority, priority.version_priority, "onstart");
  // A CRD's group version: low priority, versions in kube-aware order among equals (crdregistration_controller).
  if (local.dynamic) return apiservice(local.group, local.version, 1000, 100, "true");
  return std::nullopt;
}

AutoRegistrationPlan plan_autoregistration(const std::vector<discovery::LocalGroupVersion>& local,
                                           const std::map<std::string, json::object>& stored) {
  AutoRegistrationPlan plan;
  std::set<std::string> wanted_names;
  for (const auto& group_version : local) {
    std::optional<json::object> wanted = local_apiservice(group_version);
    if (!wanted) continue;
    const std::string name(registry::meta_string(*wanted, "name"));
    if (!wanted_names.insert(name).second) continue;
    auto found = stored.find(name);
    if (found == stored.end()) {
      plan.create.push_back(std::move(*wanted));
      continue;
    }
    // Someone else's APIService for this group version (a remote one, say) wins.
    if (managed_by(found->second).empty() || same_spec(found->second, *wanted)) continue;
    json::object updated = found->second;
    updated["spec"] = wanted->at("spec");
    plan.update.push_back(std::move(updated));
  }
  for (const auto& [name, object] : stored)
    if (!managed_by(object).empty() && !wanted_names.contains(name)) plan.remove.push_back(name);
  return plan;
}

}  // namespace kapi::aggregator

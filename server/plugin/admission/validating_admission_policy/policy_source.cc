// kube's generic policy source (k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_source.go):
// calculatePolicyData over the cached policies and bindings, recompiling a policy only when its generation moves.
#include "server/plugin/admission/validating_admission_policy/policy_source.h"

#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <algorithm>

namespace kapi::admission::policy {
namespace {

namespace json = boost::json;

struct Listed {
  std::vector<std::int64_t> revisions;
  std::vector<json::object> objects;
};

asio::awaitable<Listed> list_objects(registry::Store* store) {
  Listed out;
  if (!store) co_return out;
  registry::ListRequest request{.resource_version = "0"};
  auto pending = store->list_shared("", std::move(request));  // g++ 12: no temporaries in a co_await
  storage::SharedListResult listed = co_await std::move(pending);
  for (const auto& item : listed.items) out.revisions.push_back(item->mod_revision);
  registry::ObjectList objects = registry::to_object_list(listed);
  for (const registry::ReadObject& object : objects.items)
    if (std::optional<json::object> parsed = registry::parse_json_object(object.json))
      out.objects.push_back(std::move(*parsed));
  std::ranges::stable_sort(out.objects, {}, [](const json::object& object) { return registry::meta_string(object, "name"); });
  co_return out;
}

}  // namespace

PolicySource::PolicySource(registry::Store* policies, registry::Store* bindings)
    : policies_(policies), bindings_(bindings), snapshot_(std::make_shared<const Hooks>()) {}

asio::awaitable<std::shared_ptr<const Hooks>> PolicySource::hooks() {
  Listed policies = co_await list_objects(policies_);
  Listed bindings = co_await list_objects(bindings_);
  std::vector<std::int64_t> revisions = std::move(policies.revisions);
  revisions.push_back(-1);  // separates the two lists
  revisions.insert(revisions.end(), bindings.revisions.begin(), bindings.revisions.end());
  std::ranges::sort(revisions);
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> known;
  {
    std::lock_guard lock(mutex_);
    if (revisions == snapshot_revisions_) co_return snapshot_;
    known = compiled_;
  }
  std::map<std::string, std::vector<Binding>, std::less<>> bindings_by_policy;
  for (const json::object& object : bindings.objects) {
    Binding binding = parse_binding(object);
    bindings_by_policy[binding.policy_name].push_back(std::move(binding));
  }
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> compiled;
  auto hooks = std::make_shared<Hooks>();
  for (const json::object& object : policies.objects) {
    const std::string name(registry::meta_string(object, "name"));
    std::shared_ptr<const CompiledPolicy> policy;
    if (auto it = known.find(name); it != known.end() && it->second->uid == registry::meta_string(object, "uid") &&
                                    it->second->generation == registry::meta_int(object, "generation"))
      policy = it->second;
    else
      policy = compile_policy(object);
    compiled.emplace(name, policy);
    auto bound = bindings_by_policy.find(name);
    if (bound == bindings_by_policy.end()) continue;
    hooks->push_back(Hook{std::move(policy), std::move(bound->second)});
  }
  std::lock_guard lock(mutex_);
  snapshot_revisions_ = std::move(revisions);
  snapshot_ = std::move(hooks);
  compiled_ = std::move(compiled);
  co_return snapshot_;
}

}  // namespace kapi::admission::policy

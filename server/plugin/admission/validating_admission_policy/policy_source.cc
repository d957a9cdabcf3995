// kube's generic policy source (k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_source.go):
// calculatePolicyData over the cached policies and bindings, recompiling a policy only when its generation moves.
#include "server/plugin/admission/validating_admission_policy/policy_source.h"

#include "server/registry/object_meta.h"

namespace kapi::admission::policy {
namespace json = boost::json;

PolicySource::PolicySource(registry::Store* policies, registry::Store* bindings)
    : policies_(policies), bindings_(bindings), snapshot_(std::make_shared<const Hooks>()) {}

void PolicySource::start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping,
                         base::Logger& logger) {
  policies_.start(executor, stopping, logger, "validatingadmissionpolicies");
  bindings_.start(std::move(executor), std::move(stopping), logger, "validatingadmissionpolicybindings");
}

asio::awaitable<std::shared_ptr<const Hooks>> PolicySource::hooks() {
  // Cluster-scoped: the informers' key order is name order.
  std::shared_ptr<const registry::Informer::Objects> policies = policies_.synced();
  if (!policies) policies = co_await policies_.objects();
  std::shared_ptr<const registry::Informer::Objects> bindings = bindings_.synced();
  if (!bindings) bindings = co_await bindings_.objects();
  const Versions versions{policies->version, bindings->version};
  const bool synced = versions.first != 0 && versions.second != 0;
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> known;
  {
    std::lock_guard lock(mutex_);
    if (synced && versions == snapshot_versions_) co_return snapshot_;
    known = compiled_;
  }
  std::map<std::string, std::vector<Binding>, std::less<>> bindings_by_policy;
  for (const json::object& object : bindings->items) {
    Binding binding = parse_binding(object);
    bindings_by_policy[binding.policy_name].push_back(std::move(binding));
  }
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> compiled;
  auto hooks = std::make_shared<Hooks>();
  for (const json::object& object : policies->items) {
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
  if (!synced) co_return hooks;
  // A slower reader of older versions must not replace a newer snapshot.
  if (versions.first >= snapshot_versions_.first && versions.second >= snapshot_versions_.second) {
    snapshot_versions_ = versions;
    snapshot_ = std::move(hooks);
    compiled_ = std::move(compiled);
  }
  co_return snapshot_;
}

}  // namespace kapi::admission::policy

#include "server/authorization/rbac/bootstrap_policy.h"

#include "server/authorization/rbac/policy_builder.h"

// The data of kube's namespace_policy.go (testdata/namespace-roles.yaml and namespace-role-bindings.yaml): what
// the control plane's components need in kube-system (the authentication ConfigMap extension servers read,
// leader election of the controller manager and the scheduler, the bootstrap signer and token cleaner) and the
// bootstrap signer's cluster-info ConfigMap in kube-public.
namespace kapi::authorization::rbac {
namespace {

using namespace policy_builder;

constexpr std::string_view kSystem = "kube-system";
constexpr std::string_view kPublic = "kube-public";

}  // namespace

std::vector<json::object> bootstrap_namespace_roles() {
  return {
      role(kSystem, "extension-apiserver-authentication-reader",
           {rule(kRead, {""}, {"configmaps"}, {"extension-apiserver-authentication"})}),
      role(kSystem, "system:controller:bootstrap-signer", {rule(kRead, {""}, {"secrets"})}),
      role(kSystem, "system:controller:cloud-provider", {rule({"create", "get", "list", "watch"}, {""}, {"configmaps"})}),
      role(kSystem, "system:controller:token-cleaner",
           {rule({"get", "list", "watch", "delete"}, {""}, {"secrets"}), events_rule()}),
      role(kSystem, "system::leader-locking-kube-controller-manager",
           {rule({"watch"}, {""}, {"configmaps"}),
            rule({"get", "update"}, {""}, {"configmaps"}, {"kube-controller-manager"}),
            rule({"get", "watch", "list", "create", "update"}, {"coordination.k8s.io"}, {"leases"})}),
      role(kSystem, "system::leader-locking-kube-scheduler",
           {rule({"watch"}, {""}, {"configmaps"}), rule({"get", "update"}, {""}, {"configmaps"}, {"kube-scheduler"})}),
      role(kPublic, "system:controller:bootstrap-signer",
           {rule(kRead, {""}, {"configmaps"}), rule({"update"}, {""}, {"configmaps"}, {"cluster-info"}),
            events_rule()}),
  };
}

std::vector<json::object> bootstrap_namespace_role_bindings() {
  json::array leader_locking_controller_manager = users({"system:kube-controller-manager"});
  for (auto& account : service_accounts(kSystem, {"kube-controller-manager", "leader-election-controller"}))
    leader_locking_controller_manager.push_back(std::move(account));
  json::array leader_locking_scheduler = users({"system:kube-scheduler"});
  leader_locking_scheduler.push_back(subject("ServiceAccount", "kube-scheduler", kSystem));
  return {
      role_binding(kSystem, "system::extension-apiserver-authentication-reader",
                   "extension-apiserver-authentication-reader",
                   users({"system:kube-controller-manager", "system:kube-scheduler"})),
      role_binding(kSystem, "system::leader-locking-kube-controller-manager",
                   "system::leader-locking-kube-controller-manager", std::move(leader_locking_controller_manager)),
      role_binding(kSystem, "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler",
                   std::move(leader_locking_scheduler)),
      role_binding(kSystem, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer",
                   service_accounts(kSystem, {"bootstrap-signer"})),
      role_binding(kSystem, "system:controller:cloud-provider", "system:controller:cloud-provider",
                   service_accounts(kSystem, {"cloud-provider"})),
      role_binding(kSystem, "system:controller:token-cleaner", "system:controller:token-cleaner",
                   service_accounts(kSystem, {"token-cleaner"})),
      role_binding(kPublic, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer",
                   service_accounts(kSystem, {"bootstrap-signer"})),
  };
}

}  // namespace kapi::authorization::rbac

#pragma once
// --authorization-mode=RBAC (plugin/pkg/auth/authorizer/rbac): a request is allowed when a rule of a role bound
// to its user allows it — ClusterRoleBindings everywhere, RoleBindings in their namespace. Otherwise no opinion,
// with the dangling role references named as kube names them ("RBAC: clusterrole.rbac.authorization.k8s.io
// \"x\" not found").
#include "server/authorization/authorizer.h"
#include "server/authorization/rbac/policy.h"

#include <atomic>
#include <memory>

namespace kapi::authorization::rbac {

// rbac.RuleAllows: whether one rule allows the request.
bool rule_allows(const Attributes& attributes, const PolicyRule& rule);
// rbac's appliesTo: whether a binding's subject is the user (`namespace_`: the binding's, for ServiceAccounts
// named without one).
bool subject_matches(const Subject& subject, const request::UserInfo& user, const std::string& namespace_);

class RbacAuthorizer final : public Authorizer {
 public:
  RbacAuthorizer() : policy_(std::make_shared<const PolicySnapshot>()) {}
  Result authorize(const Attributes& attributes) const override;
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override;

  // Replaces the policy; requests already deciding keep the one they read.
  void set_policy(std::shared_ptr<const PolicySnapshot> policy) { policy_.store(std::move(policy)); }
  std::shared_ptr<const PolicySnapshot> policy() const { return policy_.load(); }

 private:
  std::atomic<std::shared_ptr<const PolicySnapshot>> policy_;
};

}  // namespace kapi::authorization::rbac

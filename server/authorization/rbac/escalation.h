#pragma once
// RBAC's escalation prevention (pkg/registry/rbac/validation and the policy-based role and binding storages): a
// user may only write a role granting what they already hold, or bind a role whose rules they hold, unless they
// may `escalate` that role or `bind` it, or are in system:masters. Otherwise the write is refused with kube's 403:
// `user "jane" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held`.
#include "server/authorization/authorizer.h"
#include "server/authorization/rbac/policy.h"
#include "server/authorization/rbac/rbac_authorizer.h"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kapi::authorization::rbac {

// validation.Covers: the parts of `requested` (one verb, group, resource and name each) no rule of `owner`
// covers, compacted as kube lists them; empty when every part is covered.
std::vector<PolicyRule> uncovered_rules(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& requested);
// rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["delete" "get"]}`.
std::string compact_string(const PolicyRule& rule);

class EscalationCheck {
 public:
  // Set once, before serving: who is asked about `escalate` and `bind`, and RBAC's own authorizer, whose policy
  // holds the roles a binding names (null when RBAC is not an authorization mode). Unconfigured, nothing is checked.
  void configure(std::shared_ptr<const Authorizer> authorizer, std::shared_ptr<const RbacAuthorizer> rbac) {
    authorizer_ = std::move(authorizer);
    rbac_ = std::move(rbac);
  }

  // A Role or ClusterRole (by its kind) written by `user`; `old` is the stored one on an update. Throws ApiError 403.
  void check_role(const request::UserInfo& user, const boost::json::object& role, const boost::json::object* old) const;
  // A RoleBinding or ClusterRoleBinding (by its kind); likewise.
  void check_binding(const request::UserInfo& user, const boost::json::object& binding,
                     const boost::json::object* old) const;

 private:
  bool allowed(const request::UserInfo& user, const std::string& verb, const std::string& resource,
               const std::string& namespace_, const std::string& name) const;
  // ConfirmNoEscalation: throws 403 on `resource` `name` naming what `rules` grant beyond the user's own.
  void confirm_no_escalation(const request::UserInfo& user, const std::string& namespace_,
                             const std::vector<PolicyRule>& rules, const std::string& resource,
                             const std::string& name) const;

  std::shared_ptr<const Authorizer> authorizer_;
  std::shared_ptr<const RbacAuthorizer> rbac_;
};

}  // namespace kapi::authorization::rbac

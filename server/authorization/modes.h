#pragma once
// --authorization-mode (pkg/kubeapiserver/authorizer): the authorizers named, in order, behind kube's
// privileged-group authorizer that always allows system:masters.
#include "server/authorization/authorizer.h"
#include "server/metrics/authorization.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::authorization {

class AuthorizationModeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// AlwaysAllow and AlwaysDeny (authorizerfactory).
class AlwaysAllowAuthorizer final : public Authorizer {
 public:
  Result authorize(const Attributes&) const override { return {Decision::Allow, ""}; }
  RuleSet rules_for(const request::UserInfo&, const std::string&) const override {
    return {.resource_rules = {{.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}}},
            .non_resource_rules = {{.verbs = {"*"}, .non_resource_urls = {"*"}}}};
  }
};
class AlwaysDenyAuthorizer final : public Authorizer {
 public:
  Result authorize(const Attributes&) const override { return {Decision::NoOpinion, "Everything is forbidden."}; }
  RuleSet rules_for(const request::UserInfo&, const std::string&) const override { return {}; }
};
// Members of any of `groups` may do anything (kube: system:masters). As in kube, it lists no rules of its own:
// cluster-admin's binding to system:masters is what a rules review shows them.
class PrivilegedGroupsAuthorizer final : public Authorizer {
 public:
  explicit PrivilegedGroupsAuthorizer(std::vector<std::string> groups) : groups_(std::move(groups)) {}
  Result authorize(const Attributes& attributes) const override;
  RuleSet rules_for(const request::UserInfo&, const std::string&) const override { return {}; }

 private:
  std::vector<std::string> groups_;
};

// The modes kapi implements; `rbac`, `node` and `webhook` stand in for "RBAC", "Node" and "Webhook" (null when the
// caller has none to give). Throws AuthorizationModeError for an unknown, repeated or unavailable mode, or for none.
// With `metrics`, each mode's decisions are counted under the name kube's buildAuthorizationConfiguration gives it
// (instrumented_authorizer.h).
std::shared_ptr<const Authorizer> build_authorizer(const std::vector<std::string>& modes,
                                                   std::shared_ptr<const Authorizer> rbac = nullptr,
                                                   std::shared_ptr<const Authorizer> node = nullptr,
                                                   std::shared_ptr<const Authorizer> webhook = nullptr,
                                                   metrics::AuthorizationFamilies* metrics = nullptr);

}  // namespace kapi::authorization

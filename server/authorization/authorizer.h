#pragma once
// Authorization (k8s.io/apiserver/pkg/authorization/authorizer): who wants to do what to which resource or path,
// and each authorizer's answer. Authorizers decide from memory (RBAC keeps its own index of the policy objects),
// so a decision costs no storage call and needs no coroutine.
#include "request/request_context.h"

#include <memory>
#include <string>
#include <vector>

namespace kapi::authorization {

// kube's authorizer.AttributesRecord.
struct Attributes {
  request::UserInfo user;
  std::string verb;
  bool resource_request = false;
  std::string path;  // non-resource requests
  std::string namespace_;
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
  // The request's fieldSelector, as the request info keeps it (authorizers that scope lists by it: Node).
  std::string field_selector;
};

enum class Decision { Deny, Allow, NoOpinion };

struct Result {
  Decision decision = Decision::NoOpinion;
  std::string reason;  // why, when there is something to say (added to the 403's message)
};

// What a user may do in a namespace, as far as an authorizer can list it (kube's authorizer.RuleResolver), for
// SelfSubjectRulesReview and `kubectl auth can-i --list`.
struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};
struct NonResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;
};
struct RuleSet {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  bool incomplete = false;          // the authorizer may allow more than it listed
  std::vector<std::string> errors;  // e.g. a binding's role that does not exist
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Result authorize(const Attributes& attributes) const = 0;
  // The rules `user` has in `namespace_` (cluster-wide ones included). An authorizer that cannot list its
  // rules says so with `incomplete`.
  virtual RuleSet rules_for(const request::UserInfo& /*user*/, const std::string& /*namespace_*/) const {
    return {.incomplete = true};
  }
};

// kube's union authorizer: the first Allow or Deny decides; when every authorizer has no opinion, so has the
// union, with their reasons joined (the authorization filter refuses anything but Allow; a SubjectAccessReview
// reports it as neither allowed nor denied).
class UnionAuthorizer final : public Authorizer {
 public:
  explicit UnionAuthorizer(std::vector<std::shared_ptr<const Authorizer>> authorizers)
      : authorizers_(std::move(authorizers)) {}
  Result authorize(const Attributes& attributes) const override;
  // Every authorizer's rules together.
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override;

 private:
  std::vector<std::shared_ptr<const Authorizer>> authorizers_;
};

// The message of kube's 403 (responsewriters.forbiddenMessage): `User "jane" cannot list resource "pods" in API
// group "" in the namespace "default"`, with &, < and > as HTML entities so it never reads as HTML.
std::string forbidden_message(const Attributes& attributes);

}  // namespace kapi::authorization

#pragma once
// Authorization (k8s.io/apiserver/pkg/authorization/authorizer): who wants to do what to which resource or path,
// and each authorizer's answer. Most authorizers decide from memory (RBAC keeps its own index of the policy
// objects), so a decision costs no storage call and needs no coroutine: authorize(). One that must ask elsewhere
// (the Webhook mode) says so with decides_in_memory() and answers through authorize_async(); the callers that
// serve requests (the authorization and impersonation filters, the access reviews) use the asynchronous form only
// then, so the usual decision still costs no coroutine frame, and every other caller keeps the synchronous one.
#include "request/request_context.h"

#include <asio/awaitable.hpp>

#include <algorithm>
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
  // The request's fieldSelector and labelSelector, as the request info keeps them (authorizers that scope lists by
  // them: Node, Webhook).
  std::string field_selector;
  std::string label_selector;
};

enum class Decision { Deny, Allow, NoOpinion };

struct Result {
  Decision decision = Decision::NoOpinion;
  std::string reason;  // why, when there is something to say (added to the 403's message)
  // kube's err: the authorizer could not decide (a webhook unreachable). A request it does not allow is then a 500,
  // and a SubjectAccessReview reports it as status.evaluationError.
  std::string error;
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
  // False for an authorizer that may need I/O to decide: callers that can wait then use authorize_async.
  virtual bool decides_in_memory() const { return true; }
  // The decision, waiting for what it needs. `attributes` must outlive the call. By default, authorize().
  virtual asio::awaitable<Result> authorize_async(const Attributes& attributes) const;
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
      : authorizers_(std::move(authorizers)),
        in_memory_(std::all_of(authorizers_.begin(), authorizers_.end(),
                               [](const auto& authorizer) { return authorizer->decides_in_memory(); })) {}
  Result authorize(const Attributes& attributes) const override;
  bool decides_in_memory() const override { return in_memory_; }
  asio::awaitable<Result> authorize_async(const Attributes& attributes) const override;
  // Every authorizer's rules together.
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override;

 private:
  std::vector<std::shared_ptr<const Authorizer>> authorizers_;
  bool in_memory_;
};

// The message of kube's 403 (responsewriters.forbiddenMessage): `User "jane" cannot list resource "pods" in API
// group "" in the namespace "default"`, with &, < and > as HTML entities so it never reads as HTML.
std::string forbidden_message(const Attributes& attributes);

}  // namespace kapi::authorization

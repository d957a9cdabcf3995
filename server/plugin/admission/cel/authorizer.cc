// kube's library.NewAuthorizerVal / NewResourceAuthorizerVal (k8s.io/apiserver/pkg/cel/library/authz.go) over
// admission's CachingAuthorizer (k8s.io/apiserver/pkg/admission/plugin/authorizer/caching_authorizer.go), bound to
// kapi's authorizer: cel/ext's Authorizer interface answered by a synchronous call into kapi's.
#include "server/plugin/admission/cel/authorizer.h"

#include "cel/ext/authz.h"
#include "server/authorization/authorizer.h"

#include <map>
#include <mutex>

namespace kapi::admission::cel_runtime {
namespace {

using cel::ext::AuthzAttributes;
using cel::ext::AuthzDecision;

class KapiAuthorizer final : public cel::ext::Authorizer {
 public:
  explicit KapiAuthorizer(const authorization::Authorizer& authorizer) : authorizer_(authorizer) {}

  AuthzDecision authorize(const AuthzAttributes& attributes) const override {
    // The same question twice in one request is answered once (the CachingAuthorizer's key is every attribute).
    const std::string key = attributes.verb + '\n' + (attributes.resource_request ? "r" : "n") + '\n' +
                            attributes.path + '\n' + attributes.api_group + '\n' + attributes.resource + '\n' +
                            attributes.subresource + '\n' + attributes.namespace_ + '\n' + attributes.name + '\n' +
                            attributes.field_selector + '\n' + attributes.label_selector + '\n' + attributes.user.name;
    std::lock_guard lock(mutex_);
    if (auto found = cache_.find(key); found != cache_.end()) return found->second;
    authorization::Attributes asked;
    asked.user = request::UserInfo{attributes.user.name, attributes.user.uid, attributes.user.groups,
                                   attributes.user.extra};
    asked.verb = attributes.verb;
    asked.resource_request = attributes.resource_request;
    asked.path = attributes.path;
    asked.namespace_ = attributes.namespace_;
    asked.api_group = attributes.api_group;
    asked.api_version = "*";
    asked.resource = attributes.resource;
    asked.subresource = attributes.subresource;
    asked.name = attributes.name;
    asked.field_selector = attributes.field_selector;
    const authorization::Result result = authorizer_.authorize(asked);
    AuthzDecision decision;
    decision.reason = result.reason;
    switch (result.decision) {
      case authorization::Decision::Allow: decision.kind = AuthzDecision::Kind::kAllow; break;
      case authorization::Decision::Deny: decision.kind = AuthzDecision::Kind::kDeny; break;
      case authorization::Decision::NoOpinion: decision.kind = AuthzDecision::Kind::kNoOpinion; break;
    }
    cache_.emplace(key, decision);
    return decision;
  }

 private:
  const authorization::Authorizer& authorizer_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, AuthzDecision> cache_;
};

cel::ext::UserInfo user_of(const Attributes& attributes) {
  if (!attributes.user) return {};
  return cel::ext::UserInfo{attributes.user->name, attributes.user->uid, attributes.user->groups,
                            attributes.user->extra};
}

}  // namespace

std::shared_ptr<const cel::ext::Authorizer> caching_authorizer(const authorization::Authorizer& authorizer) {
  return std::make_shared<const KapiAuthorizer>(authorizer);
}

cel::Value authorizer_value(std::shared_ptr<const cel::ext::Authorizer> authorizer, const Attributes& attributes) {
  return cel::ext::authorizer_value(std::move(authorizer), user_of(attributes));
}

cel::Value resource_authorizer_value(std::shared_ptr<const cel::ext::Authorizer> authorizer,
                                     const Attributes& attributes) {
  return cel::ext::request_resource_check(std::move(authorizer), user_of(attributes), attributes.resource.group,
                                          attributes.resource.resource, attributes.subresource,
                                          attributes.namespace_, attributes.name);
}

}  // namespace kapi::admission::cel_runtime

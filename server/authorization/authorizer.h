#pragma once
// Authorization (k8s.io/apiserver/pkg/authorization/authorizer): who wants to do what to which resource or path,
// and each authorizer's answer. Authorizers decide from memory (RBAC keeps its own index of the policy objects),
// so a decision costs no storage call and needs no coroutine.
#include "filters/request_context.h"

#include <memory>
#include <string>
#include <vector>

namespace kapi::authorization {

// kube's authorizer.AttributesRecord.
struct Attributes {
  filters::UserInfo user;
  std::string verb;
  bool resource_request = false;
  std::string path;  // non-resource requests
  std::string namespace_;
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
};

enum class Decision { Deny, Allow, NoOpinion };

struct Result {
  Decision decision = Decision::NoOpinion;
  std::string reason;  // why, when there is something to say (added to the 403's message)
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Result authorize(const Attributes& attributes) const = 0;
};

// kube's union authorizer: the first Allow or Deny decides; when every authorizer has no opinion the request is
// denied, with their reasons joined.
class UnionAuthorizer final : public Authorizer {
 public:
  explicit UnionAuthorizer(std::vector<std::shared_ptr<const Authorizer>> authorizers)
      : authorizers_(std::move(authorizers)) {}
  Result authorize(const Attributes& attributes) const override;

 private:
  std::vector<std::shared_ptr<const Authorizer>> authorizers_;
};

// The message of kube's 403 (responsewriters.forbiddenMessage): `User "jane" cannot list resource "pods" in API
// group "" in the namespace "default"`, with &, < and > as HTML entities so it never reads as HTML.
std::string forbidden_message(const Attributes& attributes);

}  // namespace kapi::authorization

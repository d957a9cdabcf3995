#pragma once
// kube's authz library (k8s.io/apiserver/pkg/cel/library/authz.go) asks the server's authorizer whether the
// request's user (or a service account) may do something: `authorizer.group('apps').resource('deployments')
// .namespace('ns').check('create').allowed()`. The server implements Authorizer; policies bind the `authorizer`
// variable to authorizer_value() and `authorizer.requestResource` to request_resource_check().
//
// CEL evaluation is synchronous, so authorize() is too: the server must answer from what it already holds in
// memory (kapi's RBAC authorizer reads its informer-fed cache), never by waiting on I/O. It may be called from
// several threads at once.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cel/types.h"
#include "cel/value.h"

namespace kapi::cel::ext {

// user.Info.
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// authorizer.AttributesRecord as kube's authz library fills it. The selectors are passed as written: the server
// parses them with its own field and label selector parsers (fields.ParseSelector, labels.ParseToRequirements)
// and, when one does not parse, authorizes without it, as kube records a parsing error instead of requirements.
struct AuthzAttributes {
  UserInfo user;
  std::string verb;
  bool resource_request = false;
  // Non-resource requests.
  std::string path;
  // Resource requests (the API version is always "*").
  std::string api_group;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  std::string field_selector;  // empty: none given
  std::string label_selector;  // empty: none given
};

struct AuthzDecision {
  enum class Kind { kDeny, kAllow, kNoOpinion };
  Kind kind = Kind::kNoOpinion;
  std::string reason;
  std::optional<std::string> error;  // the authorizer's error, as decision.error() reports it
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual AuthzDecision authorize(const AuthzAttributes& attributes) const = 0;
};

inline constexpr std::string_view kAuthorizerTypeName = "kubernetes.authorization.Authorizer";
inline constexpr std::string_view kPathCheckTypeName = "kubernetes.authorization.PathCheck";
inline constexpr std::string_view kGroupCheckTypeName = "kubernetes.authorization.GroupCheck";
inline constexpr std::string_view kResourceCheckTypeName = "kubernetes.authorization.ResourceCheck";
inline constexpr std::string_view kDecisionTypeName = "kubernetes.authorization.Decision";

inline Type authorizer_type() { return Type::opaque(std::string(kAuthorizerTypeName)); }
inline Type resource_check_type() { return Type::opaque(std::string(kResourceCheckTypeName)); }

// library.NewAuthorizerVal: the value of the `authorizer` variable.
Value authorizer_value(std::shared_ptr<const Authorizer> authorizer, UserInfo user);
// library.NewResourceAuthorizerVal: `authorizer.requestResource`, a ResourceCheck for the request's resource.
Value request_resource_check(std::shared_ptr<const Authorizer> authorizer, UserInfo user, std::string group,
                             std::string resource, std::string subresource, std::string namespace_,
                             std::string name);

}  // namespace kapi::cel::ext

#pragma once
// Service account tokens (k8s.io/kubernetes/pkg/serviceaccount): the bound JWTs this server issues through the
// TokenRequest API, and the legacy tokens of kubernetes.io/service-account-token Secrets. A token is accepted
// only while what it names still exists with the UID it names: the service account, and the pod, secret or
// node it is bound to. Deleting any of them revokes it.
#include "server/authentication/authenticator.h"
#include "server/authentication/jwt.h"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <optional>

namespace kapi::authentication {

inline constexpr std::string_view kLegacyServiceAccountIssuer = "kubernetes/serviceaccount";

// apiserver/pkg/authentication/serviceaccount: "system:serviceaccount:<ns>:<name>" and its two groups.
std::string service_account_username(std::string_view namespace_, std::string_view name);
std::vector<std::string> service_account_groups(std::string_view namespace_);

struct ObjectReference {
  std::string name;
  std::string uid;
};

// What a bound token says (kube's token.Claims arguments).
struct BoundTokenClaims {
  std::string namespace_;
  ObjectReference service_account;
  std::optional<ObjectReference> pod, secret, node;
  Audiences audiences;
  std::chrono::seconds expiration{3600};
  // Set when the token outlives what was asked for (kube's extended kubelet tokens): when to warn its users.
  std::optional<std::chrono::seconds> warn_after;
};

struct IssuedToken {
  std::string token;
  std::chrono::system_clock::time_point expires_at;
};

// kube's JWTTokenGenerator: signs bound tokens for one issuer (the first --service-account-issuer).
class TokenIssuer {
 public:
  TokenIssuer(std::string issuer, jwt::SharedKey signing_key) : issuer_(std::move(issuer)), signer_(std::move(signing_key)) {}
  const std::string& issuer() const { return issuer_; }
  // `now` is the issue time (iat, nbf); the expiry is `now` plus the claims' expiration.
  IssuedToken issue(const BoundTokenClaims& claims, std::chrono::system_clock::time_point now) const;
  // A legacy Secret token (iss kubernetes/serviceaccount, no expiry), as the tokens controller writes them.
  std::string issue_legacy(std::string_view namespace_, const ObjectReference& service_account,
                           std::string_view secret_name) const;

 private:
  std::string issuer_;
  jwt::Signer signer_;
};

// Reads an object the tokens name, from the watch cache with a live read on a miss; std::nullopt when it does not
// exist. `resource` is a core/v1 one: "serviceaccounts", "pods", "secrets" or "nodes" (not namespaced).
using ObjectGetter = std::function<asio::awaitable<std::optional<boost::json::object>>(
    std::string resource, std::string namespace_, std::string name)>;

struct ServiceAccountTokenOptions {
  std::vector<std::string> issuers;       // --service-account-issuer: a bound token's iss must be one of them
  std::vector<jwt::SharedKey> keys;       // --service-account-key-file
  Audiences api_audiences;                // --api-audiences: what a request's token must be meant for
  ObjectGetter objects;
  std::function<std::chrono::system_clock::time_point()> now = [] { return std::chrono::system_clock::now(); };
};

// kube's JWTTokenAuthenticator with both its validators. A JWT from another issuer, or no JWT at all, is not
// this authenticator's; a token of ours that fails a check is a failed credential, the reason kept for the log
// and for a TokenReview's status.error.
class ServiceAccountTokenAuthenticator final : public TokenAuthenticator {
 public:
  explicit ServiceAccountTokenAuthenticator(ServiceAccountTokenOptions options) : options_(std::move(options)) {}
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;

 private:
  asio::awaitable<Result> validate_bound(const boost::json::object& claims) const;
  asio::awaitable<Result> validate_legacy(const boost::json::object& claims, std::string_view token) const;
  // Whether `resource` `name` still exists with `uid` (any UID when `uid` is empty); the object when it does.
  asio::awaitable<std::optional<boost::json::object>> still_there(std::string_view resource,
                                                                  std::string_view namespace_, std::string_view name,
                                                                  std::string_view uid) const;

  ServiceAccountTokenOptions options_;
};

}  // namespace kapi::authentication

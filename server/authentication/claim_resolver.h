#pragma once
// OpenID Connect distributed claims as kube's JWT authenticator resolves them (claimResolver in
// k8s.io/apiserver/plugin/pkg/authenticator/token/oidc/oidc.go; OIDC Core 1.0 §5.6.2): only the groups claim of
// claimMappings.groups.claim, only when the ID token does not carry it itself but names it in "_claim_names" with
// an endpoint in "_claim_sources". The endpoint is fetched (GET, the source's access_token as bearer token) through
// the authenticator's HTTP client; its answer must be a JWT, verified as an ID token of its own "iss" with the
// authenticator's audiences and signing algorithms, whose claim of that name then stands in the ID token.
//
// As kube, each issuer of such JWTs gets its own verifier, started (discovery, keys) the first time a JWT of it is
// seen and kept; until its discovery document is read, tokens whose claims it signs fail ("verifier not
// initialized"), so the first one always does. Nothing fetched is cached ("TODO: cache resolved claims"): the
// token cache in front of the authenticators keeps the user found instead.
#include "server/authentication/oidc_provider.h"

#include <boost/json/object.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kapi::authentication {

class ClaimResolver {
 public:
  // `claim`: the claim to resolve (the groups claim). `verifier`: the authenticator's issuer, discovery URL,
  // audiences and signing algorithms (its discovery URL stands for that issuer's well-known one, as kube's HTTP
  // client rewrites it for every request); `tls`: its client's TLS settings.
  ClaimResolver(std::string claim, OidcProviderConfig verifier, proxy::LazyTlsContext tls,
                asio::any_io_executor executor, base::Logger& logger, JwtTiming timing);

  // kube's expand: the claim fetched, verified and set in `claims` when the token names it as distributed. Empty
  // when done or when there was nothing to do; else why not, in kube's words.
  asio::awaitable<std::string> expand(boost::json::object& claims) const;

 private:
  // kube's resolve: one endpoint's JWT fetched and verified, its claim copied into `claims`.
  asio::awaitable<std::string> resolve(const std::string& url, const std::string& access_token,
                                       boost::json::object& claims) const;
  // kube's Verifier(iss): the verifier of `issuer`, started on first use; null while it is not ready.
  std::shared_ptr<const OidcProvider> verifier_for(const std::string& issuer) const;

  std::string claim_;
  OidcProviderConfig verifier_;
  proxy::LazyTlsContext tls_;
  asio::any_io_executor executor_;
  base::Logger& logger_;
  JwtTiming timing_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const OidcProvider>> verifiers_;  // by issuer, never dropped
};

}  // namespace kapi::authentication

#include "server/authentication/jwt_authenticator.h"

#include "base/go_quote.h"
#include "server/authentication/claim_resolver.h"
#include "server/authentication/jwt.h"
#include "server/authentication/oidc_provider.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::authentication {

struct JwtAuthenticator::State {
  JwtAuthenticatorConfig config;
  ClaimMapper mapper;
  std::shared_ptr<OidcProvider> provider;        // the issuer's discovery, keys and verifier
  std::unique_ptr<const ClaimResolver> resolver;  // with a groups claim: its distributed form
  metrics::AuthenticationFamilies* metrics = nullptr;
  std::string issuer_hash;  // the jwt_issuer_hash label
};

std::shared_ptr<JwtAuthenticator> JwtAuthenticator::start(JwtAuthenticatorConfig config, asio::any_io_executor executor,
                                                          base::Logger& logger, JwtTiming timing,
                                                          metrics::AuthenticationFamilies* metrics) {
  for (const auto& algorithm : config.signing_algorithms) {
    const auto& known = allowed_signing_algorithms();
    if (std::find(known.begin(), known.end(), algorithm) == known.end())
      throw AuthenticationConfigError("oidc: unsupported signing alg: " + base::go_quote(algorithm));
  }
  validation::ErrorList errors;
  ClaimMapper mapper = ClaimMapper::compile(config, validation::Path(""), errors);
  if (!errors.empty()) throw AuthenticationConfigError(aggregate(errors));
  auto state = std::make_shared<State>();
  const std::string ca = config.issuer.certificate_authority;
  proxy::LazyTlsContext tls([ca] { return proxy::make_backend_tls(ca, false, {}, {}); });
  OidcProviderConfig verifier{.issuer = config.issuer.url,
                              .discovery_url = config.issuer.discovery_url,
                              .audiences = config.issuer.audiences,
                              .signing_algorithms = config.signing_algorithms};
  state->provider = OidcProvider::start(verifier, tls, executor, logger, timing);
  // kube resolves distributed claims for a groups claim only (not for a groups expression).
  if (const std::string& groups = config.claim_mappings.groups.claim; !groups.empty())
    state->resolver = std::make_unique<const ClaimResolver>(groups, verifier, tls, executor, logger, timing);
  state->metrics = metrics;
  state->issuer_hash = metrics::sha256_label(config.issuer.url);
  state->config = std::move(config);
  state->mapper = std::move(mapper);
  return std::make_shared<JwtAuthenticator>(std::move(state));
}

JwtAuthenticator::~JwtAuthenticator() = default;

const std::string& JwtAuthenticator::issuer() const { return state_->config.issuer.url; }

bool JwtAuthenticator::ready() const { return state_->provider->ready(); }

asio::awaitable<Result> JwtAuthenticator::authenticate_token(std::string_view token, const Audiences&) const {
  // Not this issuer's: nothing said, nothing counted (kube's instrumentedAuthenticator skips it too).
  if (jwt::untrusted_issuer(token) != state_->config.issuer.url) co_return Result::not_applicable();
  const auto start = std::chrono::steady_clock::now();
  auto verifying = verify_and_map(std::string(token));
  Result result = co_await std::move(verifying);
  if (state_->metrics) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    const char* outcome = result.outcome == Result::Outcome::Authenticated ? "success" : "failure";
    state_->metrics->jwt_authenticator_latency.observe({state_->issuer_hash, outcome}, took.count());
  }
  co_return result;
}

asio::awaitable<Result> JwtAuthenticator::verify_and_map(std::string token) const {
  if (!ready()) co_return Result::failed("oidc: authenticator not initialized");
  std::string error;
  auto verifying = state_->provider->verify(std::move(token), error);
  std::optional<boost::json::object> claims = co_await std::move(verifying);
  if (!claims) co_return Result::failed("oidc: verify token: " + error);
  if (state_->resolver) {
    auto expanding = state_->resolver->expand(*claims);
    const std::string expand_error = co_await std::move(expanding);
    if (!expand_error.empty()) co_return Result::failed("oidc: could not expand distributed claims: " + expand_error);
  }
  ClaimMapper::Mapped mapped = state_->mapper.map(*claims);
  if (!mapped.user) co_return Result::failed(std::move(mapped.error));
  co_return Result::authenticated(std::move(*mapped.user));
}

}  // namespace kapi::authentication

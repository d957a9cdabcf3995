#include "server/authentication/oidc_provider.h"

#include "base/go_quote.h"
#include "base/go_url.h"
#include "base/sleep.h"
#include "server/authentication/jwk.h"
#include "server/authentication/jwt.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <ctime>
#include <mutex>

namespace kapi::authentication {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Keys = std::vector<jwk::Key>;

// go-oidc's allowed clock skew for nbf.
constexpr auto kNotBeforeLeeway = 5min;
// Go's io.ReadAll has no bound; kapi reads at most this much of a discovery document or key set.
constexpr std::size_t kMaxDocumentBytes = 1 << 20;

// Go's time.Time.String() of a UTC time: "2006-01-02 15:04:05 +0000 UTC".
std::string go_time_string(std::int64_t seconds) {
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  if (!gmtime_r(&time, &parts)) return std::to_string(seconds);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S +0000 UTC", &parts);
  return text;
}

// go-oidc's jsonTime: a number of seconds, integral or not; absent is Go's zero time.
std::optional<std::int64_t> numeric_date_claim(const json::object& claims, std::string_view name) {
  const json::value* value = claims.if_contains(name);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->as_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(std::min<std::uint64_t>(value->as_uint64(), INT64_MAX));
  if (value->is_double() && value->as_double() > -9.2e18 && value->as_double() < 9.2e18)
    return static_cast<std::int64_t>(value->as_double());
  return std::nullopt;
}
constexpr std::int64_t kGoZeroTime = -62135596800;  // 0001-01-01 00:00:00 UTC

// go-jose's audience: one string or a list of them.
std::vector<std::string> token_audiences(const json::object& claims) {
  std::vector<std::string> out;
  const json::value* value = claims.if_contains("aud");
  if (value && value->is_string()) out.emplace_back(value->as_string());
  if (value && value->is_array())
    for (const auto& item : value->as_array())
      if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

// Go's %q of a []string: ["a" "b"].
std::string go_quote_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? " " : "") + base::go_quote(item);
  return out + "]";
}

struct FetchTarget {
  proxy::Backend backend;
  std::string target;
  std::string host_header;
};

FetchTarget fetch_target(const std::string& url, std::shared_ptr<asio::ssl::context> tls) {
  auto parsed = base::parse_go_url(url);
  if (const auto* error = std::get_if<base::GoUrlError>(&parsed)) throw std::runtime_error(error->message);
  const auto& u = std::get<base::GoUrl>(parsed);
  if (u.scheme != "https") throw std::runtime_error("Get \"" + url + "\": unsupported protocol scheme \"" + u.scheme + "\"");
  FetchTarget out;
  out.backend.host = u.hostname();
  out.backend.port = static_cast<std::uint16_t>(u.port().empty() ? 443 : std::stoi(u.port()));
  out.backend.server_name = u.hostname();
  out.backend.tls = std::move(tls);
  out.target = u.escaped_path().empty() ? "/" : u.escaped_path();
  if (!u.raw_query.empty()) out.target += "?" + u.raw_query;
  out.host_header = u.host;
  return out;
}

}  // namespace

asio::awaitable<proxy::BackendResponse> oidc_get(std::string url, http::Headers headers,
                                                 const proxy::LazyTlsContext& tls, std::chrono::milliseconds timeout) {
  FetchTarget target = fetch_target(url, tls.get());
  headers.set("Host", target.host_header);
  headers.set("User-Agent", "Go-http-client/1.1");
  auto fetching = proxy::fetch_from_backend(target.backend, "GET", target.target, std::move(headers), timeout,
                                            kMaxDocumentBytes);
  co_return co_await std::move(fetching);
}

struct OidcProvider::State {
  OidcProviderConfig config;
  proxy::LazyTlsContext tls;
  base::Logger& logger;
  JwtTiming timing;
  std::function<std::chrono::system_clock::time_point()> now = [] { return std::chrono::system_clock::now(); };

  mutable std::mutex mutex;
  bool stopped = false;
  std::string jwks_uri;                // set once the discovery document was read
  std::shared_ptr<const Keys> keys;    // the last key set fetched
  bool fetching = false;
  std::uint64_t fetches_done = 0;

  State(OidcProviderConfig c, proxy::LazyTlsContext t, base::Logger& l, JwtTiming timing_)
      : config(std::move(c)), tls(std::move(t)), logger(l), timing(timing_) {}

  bool is_stopped() const {
    std::lock_guard lock(mutex);
    return stopped;
  }
};

namespace {

using ProviderState = OidcProvider::State;

// One GET with a 200 answer, its body; throws with go-oidc's wording otherwise.
asio::awaitable<std::string> get_document(std::shared_ptr<ProviderState> state, std::string url) {
  auto fetching = oidc_get(std::move(url), {}, state->tls, state->timing.fetch_timeout);
  proxy::BackendResponse response = co_await std::move(fetching);
  if (response.status != 200)
    throw std::runtime_error(std::to_string(response.status) + ": " + response.body.substr(0, 256));
  co_return std::move(response.body);
}

// go-oidc's NewProvider: the discovery document must name this issuer and a jwks_uri.
asio::awaitable<void> discover(std::shared_ptr<ProviderState> state) {
  const std::string& issuer = state->config.issuer;
  std::string url = state->config.discovery_url;
  if (url.empty()) {
    url = issuer;
    while (url.ends_with('/')) url.pop_back();
    url += "/.well-known/openid-configuration";
  }
  auto getting = get_document(state, url);
  const std::string body = co_await std::move(getting);
  boost::system::error_code error;
  json::value document = json::parse(body, error);
  if (error || !document.is_object()) throw std::runtime_error("oidc: failed to decode provider discovery object");
  const json::object& fields = document.as_object();
  const json::value* named = fields.if_contains("issuer");
  const std::string named_issuer = named && named->is_string() ? std::string(named->as_string()) : "";
  if (named_issuer != issuer)
    throw std::runtime_error("oidc: issuer did not match the issuer returned by provider, expected " +
                             base::go_quote(issuer) + " got " + base::go_quote(named_issuer));
  const json::value* jwks = fields.if_contains("jwks_uri");
  if (!jwks || !jwks->is_string() || jwks->as_string().empty())
    throw std::runtime_error("oidc: provider discovery object has no jwks_uri");
  std::lock_guard lock(state->mutex);
  state->jwks_uri = std::string(jwks->as_string());
}

// go-oidc's keysFromRemote: one fetch at a time; who comes while one runs waits for its result.
asio::awaitable<std::shared_ptr<const Keys>> refresh_keys(std::shared_ptr<ProviderState> state) {
  std::string uri;
  std::uint64_t waiting_for = 0;
  bool leader = false;
  {
    std::lock_guard lock(state->mutex);
    uri = state->jwks_uri;
    if (!state->fetching) {
      state->fetching = leader = true;
    } else {
      waiting_for = state->fetches_done + 1;
    }
  }
  if (!leader) {
    const auto give_up = std::chrono::steady_clock::now() + state->timing.fetch_timeout + 1s;
    for (;;) {
      {
        std::lock_guard lock(state->mutex);
        if (state->fetches_done >= waiting_for || std::chrono::steady_clock::now() > give_up) co_return state->keys;
      }
      auto pausing = base::sleep_for(5ms);
      co_await std::move(pausing);
    }
  }
  std::shared_ptr<const Keys> fetched;
  std::string failure;
  try {
    auto getting = get_document(state, uri);
    const std::string body = co_await std::move(getting);
    fetched = std::make_shared<const Keys>(jwk::parse_key_set(body));
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty())
    state->logger.error("oidc authenticator: fetching keys of issuer " + state->config.issuer + " from " + uri +
                        ": " + failure);
  std::lock_guard lock(state->mutex);
  if (fetched) state->keys = fetched;
  state->fetching = false;
  ++state->fetches_done;
  co_return state->keys;
}

// Discovery until it works (kube: at once, then every 10 s), the first key set, then a refetch now and then.
asio::awaitable<void> keep_keys(std::shared_ptr<ProviderState> state) {
  auto stopped = [&state] { return state->is_stopped(); };
  for (;;) {
    if (stopped()) co_return;
    std::string failure;
    try {
      auto discovering = discover(state);
      co_await std::move(discovering);
    } catch (const std::exception& error) {
      failure = error.what();
    }
    if (failure.empty()) break;
    state->logger.error(state->config.discovery_failure_log + failure);
    auto pausing = base::sleep_unless(state->timing.discovery_retry, stopped, 100ms);
    co_await std::move(pausing);
  }
  for (;;) {
    auto refreshing = refresh_keys(state);
    co_await std::move(refreshing);
    auto pausing = base::sleep_unless(state->timing.key_refresh, stopped, 100ms);
    const bool slept = co_await std::move(pausing);
    if (!slept) co_return;
  }
}

bool verifies(const jwt::Token& token, const std::shared_ptr<const Keys>& keys, const std::string& key_id) {
  if (!keys) return false;
  std::vector<jwt::SharedKey> candidates;
  for (const auto& key : *keys)
    if (key_id.empty() || key.key_id == key_id) candidates.push_back(key.key);
  return jwt::verify(token, candidates);
}

std::string string_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

// go-oidc's IDTokenVerifier.Verify and kube's audience check; the claims, or why not.
asio::awaitable<std::optional<json::object>> verify_token(std::shared_ptr<ProviderState> state, std::string token,
                                                         std::string& error) {
  const OidcProviderConfig& config = state->config;
  auto parsed = jwt::parse(token);
  if (!parsed) {
    error = "oidc: malformed jwt: go-jose/go-jose: compact JWS format must have three parts";
    co_return std::nullopt;
  }
  const std::string algorithm = string_member(parsed->header, "alg");
  const auto& allowed = config.signing_algorithms;
  if (std::find(allowed.begin(), allowed.end(), algorithm) == allowed.end()) {
    error = "oidc: malformed jwt: go-jose/go-jose: unexpected signature algorithm " + base::go_quote(algorithm) +
            "; expected " + go_quote_strings(allowed);
    co_return std::nullopt;
  }
  json::object& claims = parsed->claims;
  const std::string issuer = string_member(claims, "iss");
  if (issuer != config.issuer) {
    error = "oidc: id token issued by a different provider, expected " + base::go_quote(config.issuer) + " got " +
            base::go_quote(issuer);
    co_return std::nullopt;
  }
  const std::vector<std::string> audiences = token_audiences(claims);
  const auto& wanted = config.audiences;
  if (wanted.size() == 1 && std::find(audiences.begin(), audiences.end(), wanted.front()) == audiences.end()) {
    error = "oidc: expected audience " + base::go_quote(wanted.front()) + " got " + go_quote_strings(audiences);
    co_return std::nullopt;
  }
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(state->now().time_since_epoch()).count();
  const std::int64_t expiry = numeric_date_claim(claims, "exp").value_or(kGoZeroTime);
  if (expiry < now) {
    error = "oidc: token is expired (Token Expiry: " + go_time_string(expiry) + ")";
    co_return std::nullopt;
  }
  if (auto not_before = numeric_date_claim(claims, "nbf"); not_before && *not_before > now + kNotBeforeLeeway.count()) {
    error = "oidc: current time " + go_time_string(now) + " before the nbf (not before) time: " + go_time_string(*not_before);
    co_return std::nullopt;
  }
  const std::string key_id = string_member(parsed->header, "kid");
  std::shared_ptr<const Keys> keys;
  {
    std::lock_guard lock(state->mutex);
    keys = state->keys;
  }
  if (!verifies(*parsed, keys, key_id)) {
    // A key the issuer published since the last fetch (a rotation): fetch the set again, once.
    auto refreshing = refresh_keys(state);
    keys = co_await std::move(refreshing);
    if (!verifies(*parsed, keys, key_id)) {
      error = keys ? "failed to verify signature: failed to verify id token signature"
                   : "failed to verify signature: fetching keys oidc: get keys failed";
      co_return std::nullopt;
    }
  }
  if (wanted.size() > 1 &&
      std::none_of(audiences.begin(), audiences.end(),
                   [&](const std::string& a) { return std::find(wanted.begin(), wanted.end(), a) != wanted.end(); })) {
    std::vector<std::string> sorted = wanted;
    std::sort(sorted.begin(), sorted.end());
    error = "oidc: expected audience in " + go_quote_strings(sorted) + " got " + go_quote_strings(audiences);
    co_return std::nullopt;
  }
  co_return std::move(claims);
}

}  // namespace

std::shared_ptr<OidcProvider> OidcProvider::start(OidcProviderConfig config, proxy::LazyTlsContext tls,
                                                  asio::any_io_executor executor, base::Logger& logger,
                                                  JwtTiming timing) {
  auto state = std::make_shared<State>(std::move(config), std::move(tls), logger, timing);
  asio::co_spawn(executor, keep_keys(state), asio::detached);
  return std::make_shared<OidcProvider>(std::move(state));
}

OidcProvider::~OidcProvider() {
  std::lock_guard lock(state_->mutex);
  state_->stopped = true;
}

const std::string& OidcProvider::issuer() const { return state_->config.issuer; }

bool OidcProvider::ready() const {
  std::lock_guard lock(state_->mutex);
  return !state_->jwks_uri.empty();
}

asio::awaitable<std::optional<boost::json::object>> OidcProvider::verify(std::string token, std::string& error) const {
  auto verifying = verify_token(state_, std::move(token), error);
  co_return co_await std::move(verifying);
}

}  // namespace kapi::authentication

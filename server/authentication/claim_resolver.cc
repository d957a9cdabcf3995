#include "server/authentication/claim_resolver.h"

#include "base/base64.h"
#include "base/go_json_errors.h"
#include "base/go_quote.h"

#include <boost/json.hpp>

#include <cctype>

namespace kapi::authentication {
namespace {

namespace json = boost::json;

std::string cannot_unmarshal(const json::value& value, std::string_view into) {
  return base::GoUnmarshalTypeError{.value = std::string(base::go_json_kind(value)), .type = std::string(into)}.message();
}

// Go's strings.EqualFold for ASCII names: encoding/json matches object keys to struct fields that way.
bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// kube's endpoint: a distributed claim's source.
struct Endpoint {
  std::string url;           // "endpoint"
  std::string access_token;  // "access_token"
};

// json.Unmarshal into map[string]string (null is an empty map). Empty error when it reads.
std::string read_claim_names(const json::value& value, std::map<std::string, std::string>& out) {
  if (value.is_null()) return {};
  if (!value.is_object()) return cannot_unmarshal(value, "map[string]string");
  for (const auto& [name, source] : value.as_object()) {
    if (source.is_null()) continue;
    if (!source.is_string()) return cannot_unmarshal(source, "string");
    out[std::string(name)] = std::string(source.as_string());
  }
  return {};
}

// json.Unmarshal into map[string]endpoint (null is an empty map, a null source a zero endpoint).
std::string read_claim_sources(const json::value& value, std::map<std::string, Endpoint>& out) {
  if (value.is_null()) return {};
  if (!value.is_object()) return cannot_unmarshal(value, "map[string]oidc.endpoint");
  for (const auto& [name, source] : value.as_object()) {
    Endpoint& endpoint = out[std::string(name)];
    if (source.is_null()) continue;
    if (!source.is_object()) return cannot_unmarshal(source, "oidc.endpoint");
    for (const auto& [key, field] : source.as_object()) {
      std::string* target = equal_fold(key, "endpoint")       ? &endpoint.url
                            : equal_fold(key, "access_token") ? &endpoint.access_token
                            : nullptr;
      if (!target && !equal_fold(key, "JWT")) continue;  // aggregated claims: read by kube, never used
      if (field.is_null()) continue;
      if (!field.is_string())
        return base::GoUnmarshalTypeError{.value = std::string(base::go_json_kind(field)), .type = "string",
                                          .owner = "endpoint", .field = std::string(key)}
            .message();
      if (target) *target = std::string(field.as_string());
    }
  }
  return {};
}

// kube's untrustedIssuer, with its errors.
std::string untrusted_issuer_of(std::string_view token, std::string& error) {
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && token[first] == '{') {
    error = "token is not compact JWT";
    return {};
  }
  const auto dot = token.find('.');
  const auto second = dot == std::string_view::npos ? dot : token.find('.', dot + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    error = "malformed token";
    return {};
  }
  auto payload = base::base64_decode(token.substr(dot + 1, second - dot - 1), base::Base64::kRawUrl);
  if (!payload) {
    error = "error decoding token: illegal base64 data";
    return {};
  }
  boost::system::error_code parse_error;
  json::value claims = json::parse(*payload, parse_error);
  if (parse_error) {
    error = "while unmarshaling token: invalid character in JSON";
    return {};
  }
  if (!claims.is_object()) {  // kube unmarshals into an anonymous struct with the one field
    error = "while unmarshaling token: " + cannot_unmarshal(claims, "struct { Issuer string \"json:\\\"iss\\\"\" }");
    return {};
  }
  const json::value* iss = claims.as_object().if_contains("iss");
  if (iss && !iss->is_string() && !iss->is_null()) {
    // The claims are decoded into an anonymous struct, whose name is empty.
    error = "while unmarshaling token: " +
            base::GoUnmarshalTypeError{.value = std::string(base::go_json_kind(*iss)), .type = "string", .field = "iss"}
                .message();
    return {};
  }
  const std::string issuer = iss && iss->is_string() ? std::string(iss->as_string()) : std::string();
  return issuer == "accounts.google.com" ? "https://accounts.google.com" : issuer;
}

// What Go's http.Response.Status says for the codes a claims endpoint is likely to answer.
std::string go_status(int code) {
  const char* text = "";
  switch (code) {
    case 301: text = "Moved Permanently"; break;
    case 302: text = "Found"; break;
    case 304: text = "Not Modified"; break;
    case 400: text = "Bad Request"; break;
    case 401: text = "Unauthorized"; break;
    case 403: text = "Forbidden"; break;
    case 404: text = "Not Found"; break;
    case 405: text = "Method Not Allowed"; break;
    case 429: text = "Too Many Requests"; break;
    case 500: text = "Internal Server Error"; break;
    case 502: text = "Bad Gateway"; break;
    case 503: text = "Service Unavailable"; break;
    case 504: text = "Gateway Timeout"; break;
    default: break;
  }
  return std::to_string(code) + (*text ? " " : "") + text;
}

std::string trim_trailing_slashes(std::string url) {
  while (url.ends_with('/')) url.pop_back();
  return url;
}

}  // namespace

ClaimResolver::ClaimResolver(std::string claim, OidcProviderConfig verifier, proxy::LazyTlsContext tls,
                             asio::any_io_executor executor, base::Logger& logger, JwtTiming timing)
    : claim_(std::move(claim)), verifier_(std::move(verifier)), tls_(std::move(tls)), executor_(std::move(executor)),
      logger_(logger), timing_(timing) {}

std::shared_ptr<const OidcProvider> ClaimResolver::verifier_for(const std::string& issuer) const {
  std::shared_ptr<const OidcProvider> verifier;
  {
    std::lock_guard lock(mutex_);
    std::shared_ptr<const OidcProvider>& slot = verifiers_[issuer];
    if (!slot) {
      OidcProviderConfig config = verifier_;
      config.issuer = issuer;
      // The authenticator's client sends its issuer's well-known URL to the discovery URL, whoever asks.
      if (trim_trailing_slashes(issuer) != trim_trailing_slashes(verifier_.issuer)) config.discovery_url.clear();
      config.discovery_failure_log =
          "oidc authenticator: async token verifier for issuer: " + base::go_quote(issuer) + ": init verifier failed: ";
      slot = OidcProvider::start(std::move(config), tls_, executor_, logger_, timing_);
    }
    verifier = slot;
  }
  return verifier->ready() ? verifier : nullptr;
}

asio::awaitable<std::string> ClaimResolver::expand(json::object& claims) const {
  if (claims.contains(claim_)) co_return std::string();  // the token carries the claim itself
  const json::value* names = claims.if_contains("_claim_names");
  if (!names) co_return std::string();
  std::map<std::string, std::string> claim_to_source;
  if (std::string error = read_claim_names(*names, claim_to_source); !error.empty())
    co_return "oidc: error parsing distributed claim names: " + error;
  const json::value* raw_sources = claims.if_contains("_claim_sources");
  if (!raw_sources) co_return std::string("oidc: no claim sources");
  std::map<std::string, Endpoint> sources;
  if (std::string error = read_claim_sources(*raw_sources, sources); !error.empty())
    co_return "oidc: could not parse claim sources: " + error;
  const auto source = claim_to_source.find(claim_);
  if (source == claim_to_source.end()) co_return std::string();
  const auto endpoint = sources.find(source->second);
  if (endpoint == sources.end())
    co_return "id token _claim_names contained a source " + source->second + " missing in _claims_sources";
  if (endpoint->second.url.empty()) co_return std::string();  // perhaps an aggregated claim, which kube ignores
  auto resolving = resolve(endpoint->second.url, endpoint->second.access_token, claims);
  co_return co_await std::move(resolving);
}

asio::awaitable<std::string> ClaimResolver::resolve(const std::string& url, const std::string& access_token,
                                                    json::object& claims) const {
  const std::string while_getting = "while getting distributed claim " + base::go_quote(claim_) + ": ";
  http::Headers headers;
  if (!access_token.empty()) headers.set("Authorization", "Bearer " + access_token);
  std::string failure;
  proxy::BackendResponse response;
  try {
    auto getting = oidc_get(url, std::move(headers), tls_, timing_.fetch_timeout);
    response = co_await std::move(getting);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty())  // Go's client.Do names the request before the transport's reason
    co_return while_getting + (failure.starts_with("Get ") ? "" : "Get " + base::go_quote(url) + ": ") + failure;
  if (response.status < 200 || response.status > 226)
    co_return while_getting + "error while getting distributed claim JWT: " + go_status(response.status);
  const std::string& token = response.body;

  std::string error;
  const std::string issuer = untrusted_issuer_of(token, error);
  if (!error.empty())
    co_return "getting untrusted issuer from endpoint " + url + " failed for claim " + base::go_quote(claim_) + ": " +
        error;
  std::shared_ptr<const OidcProvider> verifier = verifier_for(issuer);
  if (!verifier)
    co_return "verifying untrusted issuer " + issuer + " failed: verifier not initialized for issuer: " +
        base::go_quote(issuer);
  auto verifying = verifier->verify(token, error);
  std::optional<json::object> distributed = co_await std::move(verifying);
  if (!distributed) co_return "verify distributed claim token: " + error;
  const json::value* value = distributed->if_contains(claim_);
  if (!value)
    co_return "jwt returned by distributed claim endpoint " + base::go_quote(url) + " did not contain claim: " + claim_;
  claims[claim_] = *value;
  co_return std::string();
}

}  // namespace kapi::authentication

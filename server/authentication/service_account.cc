#include "server/authentication/service_account.h"

#include "base/base64.h"
#include "base/go_quote.h"
#include "base/go_time.h"

#include <boost/json.hpp>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdio>
#include <limits>

namespace kapi::authentication {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// go-jose's jwt.DefaultLeeway: clocks of issuer and server may differ this much.
constexpr auto kLeeway = 60s;

std::int64_t unix_seconds(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

std::string random_uuid() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  char text[37];
  std::snprintf(text, sizeof text, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", bytes[0],
                bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return text;
}

json::object reference(const ObjectReference& object) { return {{"name", object.name}, {"uid", object.uid}}; }

std::string_view string_claim(const json::object* claims, std::string_view key) {
  if (!claims) return {};
  const json::value* value = claims->if_contains(key);
  return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}

// go-jose's NumericDate: the number read as a float64 and converted to int64 as Go does on amd64, where a value out
// of int64's range becomes its minimum (C++ leaves that conversion undefined).
std::optional<std::int64_t> time_claim(const json::object& claims, std::string_view key) {
  const json::value* value = claims.if_contains(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->as_int64();
  double seconds = 0;
  if (value->is_uint64()) seconds = static_cast<double>(value->as_uint64());
  else if (value->is_double()) seconds = value->as_double();
  else return std::nullopt;
  if (!(seconds >= -0x1p63 && seconds < 0x1p63)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(seconds);
}

// go-jose's Audience: one string or a list of them.
Audiences audience_claim(const json::object& claims) {
  Audiences audiences;
  const json::value* value = claims.if_contains("aud");
  if (value && value->is_string()) audiences.emplace_back(value->as_string());
  if (value && value->is_array())
    for (const auto& item : value->as_array())
      if (item.is_string()) audiences.emplace_back(item.as_string());
  return audiences;
}

Audiences intersect(const Audiences& a, const Audiences& b) {
  Audiences both;
  for (const auto& audience : a)
    if (std::find(b.begin(), b.end(), audience) != b.end()) both.push_back(audience);
  return both;
}

std::string_view metadata_string(const json::object& object, std::string_view key) {
  return string_claim(object.if_contains("metadata") ? object.at("metadata").if_object() : nullptr, key);
}

}  // namespace

std::string service_account_username(std::string_view namespace_, std::string_view name) {
  return "system:serviceaccount:" + std::string(namespace_) + ":" + std::string(name);
}

std::vector<std::string> service_account_groups(std::string_view namespace_) {
  return {"system:serviceaccounts", "system:serviceaccounts:" + std::string(namespace_)};
}

IssuedToken TokenIssuer::issue(const BoundTokenClaims& claims, std::chrono::system_clock::time_point now) const {
  const auto expires_at = now + claims.expiration;
  json::object kubernetes{{"namespace", claims.namespace_}};
  if (claims.node) kubernetes["node"] = reference(*claims.node);
  if (claims.pod) kubernetes["pod"] = reference(*claims.pod);
  if (claims.secret) kubernetes["secret"] = reference(*claims.secret);
  kubernetes["serviceaccount"] = reference(claims.service_account);
  if (claims.warn_after) kubernetes["warnafter"] = unix_seconds(now + *claims.warn_after);
  // go-jose writes the claims as a Go map, so in key order, and a single audience as a plain string.
  json::object payload;
  if (claims.audiences.size() == 1) payload["aud"] = claims.audiences.front();
  else payload["aud"] = json::value_from(claims.audiences);
  payload["exp"] = unix_seconds(expires_at);
  payload["iat"] = unix_seconds(now);
  payload["iss"] = issuer_;
  payload["jti"] = random_uuid();
  payload["kubernetes.io"] = std::move(kubernetes);
  payload["nbf"] = unix_seconds(now);
  payload["sub"] = service_account_username(claims.namespace_, claims.service_account.name);
  return {signer_.sign(payload), std::chrono::time_point_cast<std::chrono::seconds>(expires_at)};
}

std::string TokenIssuer::issue_legacy(std::string_view namespace_, const ObjectReference& service_account,
                                      std::string_view secret_name) const {
  const json::object payload{{"iss", kLegacyServiceAccountIssuer},
                             {"kubernetes.io/serviceaccount/namespace", namespace_},
                             {"kubernetes.io/serviceaccount/secret.name", secret_name},
                             {"kubernetes.io/serviceaccount/service-account.name", service_account.name},
                             {"kubernetes.io/serviceaccount/service-account.uid", service_account.uid},
                             {"sub", service_account_username(namespace_, service_account.name)}};
  return signer_.sign(payload);
}

asio::awaitable<Result> ServiceAccountTokenAuthenticator::authenticate_token(std::string_view token,
                                                                             const Audiences& audiences) const {
  auto parsed = jwt::parse(token);
  if (!parsed) co_return Result::not_applicable();
  const std::string issuer(string_claim(&parsed->claims, "iss"));
  const bool legacy = issuer == kLegacyServiceAccountIssuer;
  if (!legacy && std::find(options_.issuers.begin(), options_.issuers.end(), issuer) == options_.issuers.end())
    co_return Result::not_applicable();  // someone else's JWT
  if (!jwt::verify(*parsed, options_.keys)) co_return Result::failed("go-jose/go-jose: error in cryptographic primitive");

  // Legacy tokens name no audience: they are for this server only.
  Audiences token_audiences = legacy ? Audiences{} : audience_claim(parsed->claims);
  if (token_audiences.empty()) token_audiences = options_.api_audiences;
  const Audiences& requested = audiences.empty() ? options_.api_audiences : audiences;
  Audiences valid_for = intersect(token_audiences, requested);
  if (valid_for.empty() && !options_.api_audiences.empty())
    co_return Result::failed("token audiences " + base::go_quote_list(token_audiences) + " is invalid for the target audiences " +
                             base::go_quote_list(requested));

  // One co_await per statement, and no temporaries in it: g++ 12 miscompiles both.
  Result result;
  if (legacy) result = co_await validate_legacy(parsed->claims, token);
  else result = co_await validate_bound(parsed->claims);
  if (result.outcome == Result::Outcome::Authenticated) result.audiences = std::move(valid_for);
  co_return result;
}

asio::awaitable<Result> ServiceAccountTokenAuthenticator::validate_bound(const json::object& claims) const {
  const std::int64_t now = unix_seconds(options_.now());
  const std::int64_t leeway = kLeeway.count();
  // Leeway comes off the clock, never onto a claim that may sit at int64's maximum.
  if (auto expiry = time_claim(claims, "exp"); expiry && now - leeway > *expiry)
    co_return Result::failed("service account token has expired");
  if (auto not_before = time_claim(claims, "nbf"); not_before && now + leeway < *not_before)
    co_return Result::failed("go-jose/go-jose/jwt: validation failed, token not valid yet (nbf)");
  if (auto issued_at = time_claim(claims, "iat"); issued_at && now + leeway < *issued_at)
    co_return Result::failed("go-jose/go-jose/jwt: validation field, token issued in the future (iat)");

  const json::value* kubernetes_value = claims.if_contains("kubernetes.io");
  const json::object* kubernetes = kubernetes_value ? kubernetes_value->if_object() : nullptr;
  const std::string namespace_(string_claim(kubernetes, "namespace"));
  auto ref = [&](std::string_view key) -> const json::object* {
    const json::value* value = kubernetes ? kubernetes->if_contains(key) : nullptr;
    return value ? value->if_object() : nullptr;
  };
  const json::object* service_account = ref("serviceaccount");
  if (namespace_.empty() || !service_account || string_claim(service_account, "name").empty())
    co_return Result::failed("service account token claims could not be validated due to unexpected private claim");

  const std::string invalidated = "service account token has been invalidated";
  const std::string_view account_name = string_claim(service_account, "name");
  UserInfo user;
  user.name = service_account_username(namespace_, account_name);
  user.groups = service_account_groups(namespace_);
  auto found = co_await still_there("serviceaccounts", namespace_, account_name, string_claim(service_account, "uid"));
  if (!found) co_return Result::failed(invalidated);
  user.uid = std::string(metadata_string(*found, "uid"));
  if (const json::object* pod = ref("pod")) {
    const std::string_view pod_name = string_claim(pod, "name"), pod_uid = string_claim(pod, "uid");
    auto pod_found = co_await still_there("pods", namespace_, pod_name, pod_uid);
    if (!pod_found) co_return Result::failed(invalidated);
    user.extra["authentication.kubernetes.io/pod-name"] = {std::string(pod_name)};
    user.extra["authentication.kubernetes.io/pod-uid"] = {std::string(pod_uid)};
  }
  if (const json::object* secret = ref("secret")) {
    auto secret_found = co_await still_there("secrets", namespace_, string_claim(secret, "name"), string_claim(secret, "uid"));
    if (!secret_found) co_return Result::failed(invalidated);
  }
  if (const json::object* node = ref("node")) {
    const std::string_view node_name = string_claim(node, "name"), node_uid = string_claim(node, "uid");
    // A pod-bound token only mentions the pod's node; a node-bound one is revoked with its node.
    if (!ref("pod")) {
      auto node_found = co_await still_there("nodes", "", node_name, node_uid);
      if (!node_found) co_return Result::failed(invalidated);
    }
    user.extra["authentication.kubernetes.io/node-name"] = {std::string(node_name)};
    user.extra["authentication.kubernetes.io/node-uid"] = {std::string(node_uid)};
  }
  if (auto jti = string_claim(&claims, "jti"); !jti.empty())
    user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + std::string(jti)};
  co_return Result::authenticated(std::move(user));
}

asio::awaitable<Result> ServiceAccountTokenAuthenticator::validate_legacy(const json::object& claims,
                                                                          std::string_view token) const {
  const std::string namespace_(string_claim(&claims, "kubernetes.io/serviceaccount/namespace"));
  const std::string secret_name(string_claim(&claims, "kubernetes.io/serviceaccount/secret.name"));
  const std::string name(string_claim(&claims, "kubernetes.io/serviceaccount/service-account.name"));
  const std::string uid(string_claim(&claims, "kubernetes.io/serviceaccount/service-account.uid"));
  if (string_claim(&claims, "sub").empty()) co_return Result::failed("sub claim is missing");
  if (namespace_.empty()) co_return Result::failed("namespace claim is missing");
  if (secret_name.empty()) co_return Result::failed("secretName claim is missing");
  if (name.empty()) co_return Result::failed("serviceAccountName claim is missing");
  if (uid.empty()) co_return Result::failed("serviceAccountUID claim is missing");
  if (string_claim(&claims, "sub") != service_account_username(namespace_, name))
    co_return Result::failed("sub claim is invalid");

  auto secret = co_await still_there("secrets", namespace_, secret_name, "");
  if (!secret) co_return Result::failed("token has been invalidated");
  const json::value* data = secret->if_contains("data");
  const std::string_view stored = string_claim(data ? data->if_object() : nullptr, "token");
  if (base::base64_decode(stored).value_or("") != token) co_return Result::failed("token does not match server's copy");
  auto account = co_await still_there("serviceaccounts", namespace_, name, uid);
  if (!account) co_return Result::failed("token has been invalidated");

  UserInfo user;
  user.name = service_account_username(namespace_, name);
  user.uid = uid;
  user.groups = service_account_groups(namespace_);
  co_return Result::authenticated(std::move(user));
}

asio::awaitable<std::optional<json::object>> ServiceAccountTokenAuthenticator::still_there(
    std::string_view resource, std::string_view namespace_, std::string_view name, std::string_view uid) const {
  if (name.empty() || !options_.objects) co_return std::nullopt;
  auto lookup = options_.objects(std::string(resource), std::string(namespace_), std::string(name));
  auto object = co_await std::move(lookup);
  if (!object) co_return std::nullopt;
  // Something deleted longer ago than clocks may differ counts as gone (kube's invalidIfDeletedBefore).
  if (!metadata_string(*object, "deletionTimestamp").empty()) {
    auto deleted = base::parse_rfc3339(metadata_string(*object, "deletionTimestamp"));
    if (!deleted || deleted->seconds < unix_seconds(options_.now() - kLeeway)) co_return std::nullopt;
  }
  if (!uid.empty() && metadata_string(*object, "uid") != uid) co_return std::nullopt;
  co_return object;
}

}  // namespace kapi::authentication

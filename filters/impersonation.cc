#include "filters/impersonation.h"

#include "filters/internal_error.h"

#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/http/query.h"
#include "server/http/sanitize.h"
#include "server/http/status_response.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace kapi::filters {
namespace {

constexpr std::string_view kUserHeader = "Impersonate-User";
constexpr std::string_view kGroupHeader = "Impersonate-Group";
constexpr std::string_view kUidHeader = "Impersonate-Uid";
constexpr std::string_view kExtraHeaderPrefix = "Impersonate-Extra-";
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";
constexpr std::string_view kAnonymousUser = "system:anonymous";
constexpr std::string_view kAuthenticatedGroup = "system:authenticated";
constexpr std::string_view kUnauthenticatedGroup = "system:unauthenticated";

// serviceaccount.SplitUsername: only a well-formed `system:serviceaccount:<namespace>:<name>` is a service account;
// anything else under that prefix is impersonated as a plain user of that name.
std::optional<std::pair<std::string, std::string>> split_service_account(std::string_view username) {
  if (!username.starts_with(kServiceAccountPrefix)) return std::nullopt;
  std::string_view rest = username.substr(kServiceAccountPrefix.size());
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || rest.find(':', colon + 1) != std::string_view::npos) return std::nullopt;
  std::string_view account_namespace = rest.substr(0, colon), name = rest.substr(colon + 1);
  if (!validation::is_dns1123_label(account_namespace).empty() || !validation::is_dns1123_subdomain(name).empty())
    return std::nullopt;
  return std::pair{std::string(account_namespace), std::string(name)};
}

// How Go's %v prints the v1.ObjectReference kube built for the request: its seven fields (kind, namespace, name,
// uid, apiVersion, resourceVersion, fieldPath), space-separated.
std::string go_object_reference(const ImpersonationRequest& request) {
  using Kind = ImpersonationRequest::Kind;
  std::string_view kind, api_version;
  switch (request.kind) {
    case Kind::User: kind = "User"; break;
    case Kind::ServiceAccount: kind = "ServiceAccount"; break;
    case Kind::Group: kind = "Group"; break;
    case Kind::UserExtra: kind = "UserExtra"; break;
    case Kind::Uid: kind = "UID"; break;
  }
  if (request.kind == Kind::UserExtra || request.kind == Kind::Uid) api_version = "authentication.k8s.io/v1";
  std::string out = "{";
  for (std::string_view field : {kind, std::string_view(request.namespace_), std::string_view(request.name),
                                 std::string_view(), api_version, std::string_view(),
                                 std::string_view(request.extra_key)})
    out.append(field).append(" ");
  out.back() = '}';
  return out;
}

// responsewriters.InternalError: kube answers these with a plain-text 500, not a Status.
bool is_impersonation_header(std::string_view name) {
  return http::iequals(name, kUserHeader) || http::iequals(name, kGroupHeader) || http::iequals(name, kUidHeader) ||
         http::starts_with_ignoring_case(name, kExtraHeaderPrefix);
}

}  // namespace

ParsedImpersonation parse_impersonation_headers(const http::Headers& headers) {
  using Kind = ImpersonationRequest::Kind;
  ParsedImpersonation parsed;
  const std::string_view user = headers.get(kUserHeader).value_or("");
  if (!user.empty()) {
    if (auto account = split_service_account(user))
      parsed.requests.push_back({Kind::ServiceAccount, std::move(account->second), std::move(account->first), ""});
    else
      parsed.requests.push_back({Kind::User, std::string(user), "", ""});
  }
  for (std::string_view group : headers.all(kGroupHeader))
    parsed.requests.push_back({Kind::Group, std::string(group), "", ""});
  for (const auto& field : headers) {
    if (!http::starts_with_ignoring_case(field.name, kExtraHeaderPrefix)) continue;
    std::string key = http::user_extra_key(std::string_view(field.name).substr(kExtraHeaderPrefix.size()));
    parsed.requests.push_back({Kind::UserExtra, field.value, "", std::move(key)});
  }
  if (auto uid = headers.get(kUidHeader); uid && !uid->empty())
    parsed.requests.push_back({Kind::Uid, std::string(*uid), "", ""});

  if (!parsed.requests.empty() && user.empty()) {
    std::string listed;
    for (const auto& request : parsed.requests) listed += (listed.empty() ? "" : " ") + go_object_reference(request);
    parsed.error = "requested [" + listed + "] without impersonating a user";
    parsed.requests.clear();
  }
  return parsed;
}

authorization::Attributes impersonation_attributes(const UserInfo& requestor, const ImpersonationRequest& request) {
  using Kind = ImpersonationRequest::Kind;
  authorization::Attributes attributes;
  attributes.user = requestor;
  attributes.verb = "impersonate";
  attributes.resource_request = true;
  attributes.name = request.name;
  switch (request.kind) {
    case Kind::User: attributes.resource = "users"; break;
    case Kind::ServiceAccount:
      attributes.resource = "serviceaccounts";
      attributes.namespace_ = request.namespace_;
      break;
    case Kind::Group: attributes.resource = "groups"; break;
    case Kind::UserExtra:
      attributes.resource = "userextras";
      attributes.subresource = request.extra_key;
      break;
    case Kind::Uid: attributes.resource = "uids"; break;
  }
  if (request.kind == Kind::UserExtra || request.kind == Kind::Uid) {
    attributes.api_group = kAuthenticationGroup;
    attributes.api_version = "v1";
  }
  return attributes;
}

UserInfo impersonated_user(const std::vector<ImpersonationRequest>& requests) {
  using Kind = ImpersonationRequest::Kind;
  // Named groups replace a service account's own, which otherwise follow from its namespace.
  const bool groups_named =
      std::any_of(requests.begin(), requests.end(), [](const auto& request) { return request.kind == Kind::Group; });
  UserInfo user;
  for (const auto& request : requests) {
    switch (request.kind) {
      case Kind::User: user.name = request.name; break;
      case Kind::ServiceAccount:
        user.name = std::string(kServiceAccountPrefix) + request.namespace_ + ":" + request.name;
        if (!groups_named) user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + request.namespace_};
        break;
      case Kind::Group: user.groups.push_back(request.name); break;
      case Kind::UserExtra: user.extra[request.extra_key].push_back(request.name); break;
      case Kind::Uid: user.uid = request.name; break;
    }
  }
  auto has_group = [&](std::string_view group) {
    return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
  };
  if (user.name != kAnonymousUser) {
    if (!has_group(kAuthenticatedGroup) && !has_group(kUnauthenticatedGroup))
      user.groups.emplace_back(kAuthenticatedGroup);
  } else if (!has_group(kUnauthenticatedGroup)) {
    user.groups.emplace_back(kUnauthenticatedGroup);
  }
  return user;
}

asio::awaitable<void> ImpersonationFilter::handle(Exchange& exchange, Next next) {
  ParsedImpersonation parsed = parse_impersonation_headers(exchange.request.headers);
  if (!parsed.error.empty()) return write_internal_error(exchange, parsed.error);
  if (parsed.requests.empty()) return next(exchange);  // most requests: no frame of this stage's own
  return impersonate(exchange, next, std::move(parsed.requests));
}

asio::awaitable<void> ImpersonationFilter::impersonate(Exchange& exchange, Next next,
                                                       std::vector<ImpersonationRequest> requests) const {
  if (!exchange.context.user) co_return co_await write_internal_error(exchange, "no user found for request");

  for (const auto& request : requests) {
    authorization::Attributes attributes = impersonation_attributes(*exchange.context.user, request);
    authorization::Result result;
    if (authorizer_->decides_in_memory()) {
      result = authorizer_->authorize(attributes);
    } else {
      auto deciding = authorizer_->authorize_async(attributes);
      result = co_await std::move(deciding);
    }
    if (result.decision == authorization::Decision::Allow) continue;
    if (!result.error.empty()) co_return co_await write_internal_error(exchange, result.error);
    std::string message = authorization::forbidden_message(attributes);
    if (!result.reason.empty()) message += ": " + result.reason;
    exchange.response->headers().set("X-Content-Type-Options", "nosniff");
    apierrors::Status status = apierrors::forbidden(attributes.api_group, attributes.resource, attributes.name,
                                                    std::move(message));
    co_return co_await http::write_status(*exchange.response, status);
  }

  exchange.context.impersonated_by = std::exchange(exchange.context.user, impersonated_user(requests));
  // As kube: the headers are consumed here; nothing after this stage (a proxied request above all) passes them on.
  http::Headers kept;
  for (const auto& field : exchange.request.headers)
    if (!is_impersonation_header(field.name)) kept.add(field.name, field.value);
  exchange.request.headers = std::move(kept);
  co_await next(exchange);
}

}  // namespace kapi::filters

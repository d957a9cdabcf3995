#include "server/authentication/request_header.h"

#include <algorithm>

namespace kapi::authentication {
namespace {

using http::starts_with_ignoring_case;

// Go's h.Get over the names in order: the first header of a name, if any has a value.
std::string first_value(const http::Headers& headers, const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (auto value = headers.get(name); value && !value->empty()) return std::string(*value);
  return "";
}

}  // namespace

Result user_from_headers(http::Headers& headers, const RequestHeaderConfig& config) {
  UserInfo user;
  user.name = first_value(headers, config.username_headers);
  if (user.name.empty()) return Result::not_applicable();
  user.uid = first_value(headers, config.uid_headers);
  for (const auto& name : config.group_headers)
    for (auto value : headers.all(name))
      if (!value.empty()) user.groups.emplace_back(value);
  // Prefix by prefix, so each key's values keep the order of the prefixes (kube's newExtra).
  for (const auto& prefix : config.extra_header_prefixes)
    for (const auto& field : headers)
      if (starts_with_ignoring_case(field.name, prefix)) {
        user.extra[http::user_extra_key(std::string_view(field.name).substr(prefix.size()))].push_back(field.value);
      }

  // kube's ClearAuthenticationHeaders: what the proxy asserted goes no further than this stage.
  http::Headers kept;
  for (const auto& field : headers) {
    auto named = [&](const std::vector<std::string>& names) {
      return std::any_of(names.begin(), names.end(), [&](const auto& name) { return http::iequals(field.name, name); });
    };
    bool prefixed = std::any_of(config.extra_header_prefixes.begin(), config.extra_header_prefixes.end(),
                                [&](const auto& prefix) { return starts_with_ignoring_case(field.name, prefix); });
    if (!named(config.username_headers) && !named(config.uid_headers) && !named(config.group_headers) && !prefixed)
      kept.add(field.name, field.value);
  }
  headers = std::move(kept);
  return Result::authenticated(std::move(user));
}

asio::awaitable<Result> RequestHeaderAuthenticator::authenticate(http::Request& request) const {
  const auto& certificate = request.peer_certificate;
  if (!certificate) co_return Result::not_applicable();
  if (auto error = verifier_.verify(*certificate)) co_return Result::failed("x509: " + *error);
  const auto& allowed = config_.allowed_names;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), certificate->common_name) == allowed.end())
    co_return Result::failed("x509: subject with cn=" + certificate->common_name + " is not in the allowed list");
  co_return user_from_headers(request.headers, config_);
}

}  // namespace kapi::authentication

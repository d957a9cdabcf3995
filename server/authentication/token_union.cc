#include "server/authentication/token_union.h"

#include <algorithm>

namespace kapi::authentication {

std::string aggregate_errors(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::vector<std::string> seen;
  std::string joined;
  for (const auto& error : errors) {
    if (std::find(seen.begin(), seen.end(), error) != seen.end()) continue;
    if (!seen.empty()) joined += ", ";
    seen.push_back(error);
    joined += error;
  }
  return seen.size() == 1 ? joined : "[" + joined + "]";
}

asio::awaitable<Result> authenticate_with_any(const std::vector<std::shared_ptr<const TokenAuthenticator>>& authenticators,
                                              std::string_view token, const Audiences& audiences) {
  std::vector<std::string> errors;
  for (const auto& authenticator : authenticators) {
    auto authenticating = authenticator->authenticate_token(token, audiences);
    Result result = co_await std::move(authenticating);
    if (result.outcome == Result::Outcome::Authenticated) co_return result;
    if (result.outcome == Result::Outcome::Failed) errors.push_back(std::move(result.error));
  }
  if (errors.empty()) co_return Result::not_applicable();
  co_return Result::failed(aggregate_errors(errors));
}

asio::awaitable<Result> TokenUnion::authenticate_token(std::string_view token, const Audiences& audiences) const {
  auto authenticating = authenticate_with_any(authenticators_, token, audiences);
  co_return co_await std::move(authenticating);
}

}  // namespace kapi::authentication

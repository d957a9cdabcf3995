#include "server/authentication/bearer_token.h"

#include <algorithm>
#include <cctype>

namespace kapi::authentication {
namespace {

// kube's strings.Fields of the header: "Bearer <token> [anything]", the scheme in any case.
std::string_view bearer_token(std::string_view header) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  auto next_field = [&](std::string_view& rest) {
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
    std::size_t length = 0;
    while (length < rest.size() && !is_space(rest[length])) ++length;
    std::string_view field = rest.substr(0, length);
    rest.remove_prefix(length);
    return field;
  };
  std::string_view rest = header;
  const std::string_view scheme = next_field(rest);
  const std::string_view token = next_field(rest);
  const bool bearer = std::equal(scheme.begin(), scheme.end(), std::string_view("bearer").begin(),
                                 std::string_view("bearer").end(),
                                 [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return bearer ? token : std::string_view();
}

}  // namespace

asio::awaitable<Result> BearerTokenAuthenticator::authenticate(http::Request& request) const {
  const auto header = request.headers.get("Authorization");
  if (!header) co_return Result::not_applicable();
  const std::string token(bearer_token(*header));
  if (token.empty()) co_return Result::not_applicable();
  const Audiences api_audiences;  // none asked: this server's own
  auto authenticating = token_->authenticate_token(token, api_audiences);
  Result result = co_await std::move(authenticating);
  if (result.outcome == Result::Outcome::Authenticated) {
    request.headers.remove("Authorization");  // no stage after this one may use it
    co_return result;
  }
  // A token no authenticator had an error about still is no credential to go on with.
  if (result.outcome == Result::Outcome::NotApplicable) co_return Result::failed("invalid bearer token");
  co_return result;
}

}  // namespace kapi::authentication

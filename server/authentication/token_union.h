#pragma once
// kube's union of token authenticators (k8s.io/apiserver/pkg/authentication/token/union, New): each is asked in
// order, the first to find a user wins, and when none does every error is reported together
// (utilerrors.NewAggregate's wording). kube-apiserver puts its token authenticators in one (token file, service
// accounts, JWT authenticators, webhook) and caches the union's answers (token_cache.h).
#include "server/authentication/authenticator.h"

#include <memory>
#include <vector>

namespace kapi::authentication {

class TokenUnion final : public TokenAuthenticator {
 public:
  explicit TokenUnion(std::vector<std::shared_ptr<const TokenAuthenticator>> authenticators)
      : authenticators_(std::move(authenticators)) {}
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;

 private:
  std::vector<std::shared_ptr<const TokenAuthenticator>> authenticators_;
};

// The first user any of `authenticators` finds in `token`, else the errors aggregated (NotApplicable when none).
asio::awaitable<Result> authenticate_with_any(const std::vector<std::shared_ptr<const TokenAuthenticator>>& authenticators,
                                              std::string_view token, const Audiences& audiences);

// utilerrors.NewAggregate(errors).Error(): one error as itself, several deduplicated as "[a, b]".
std::string aggregate_errors(const std::vector<std::string>& errors);

}  // namespace kapi::authentication

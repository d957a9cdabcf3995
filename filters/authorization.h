#pragma once
// WithAuthorization — the foundation runs with --authorization-mode=AlwaysAllow; RBAC, Node and the review
// APIs are the security issue's work.
#include "filters/filter.h"

namespace kapi::filters {

class AuthorizationFilter final : public Filter {
 public:
  std::string_view name() const override { return "authorization"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override { co_await next(exchange); }
};

}  // namespace kapi::filters

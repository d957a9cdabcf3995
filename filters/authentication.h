#pragma once
// WithAuthentication: the request's user from its credentials (server/authentication), or 401 Unauthorized as
// kube-apiserver answers, with nothing said about why (the reason is the server's to log, not the client's).
#include "base/go_quote.h"
#include "base/log.h"
#include "filters/filter.h"
#include "server/authentication/request_authenticator.h"
#include "server/http/status_response.h"

#include <memory>

namespace kapi::filters {

class AuthenticationFilter final : public Filter {
 public:
  // `unauthorized` answers a request whose credentials failed (kube's failedHandler, which the chain wraps in the
  // failed-authentication audit).
  // `logger` gets why a credential failed, as kube logs "Unable to authenticate the request".
  explicit AuthenticationFilter(std::shared_ptr<const authentication::RequestAuthenticator> authenticator,
                                Handler unauthorized = write_unauthorized, base::Logger* logger = nullptr)
      : authenticator_(std::move(authenticator)), unauthorized_(std::move(unauthorized)), logger_(logger) {}
  std::string_view name() const override { return "authentication"; }

  static asio::awaitable<void> write_unauthorized(Exchange& exchange) {
    co_await http::write_status(*exchange.response, apierrors::unauthorized("Unauthorized"));
  }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    authentication::Result result = co_await authenticator_->authenticate(exchange.request);
    if (result.outcome != authentication::Result::Outcome::Authenticated) {
      if (logger_ && result.outcome == authentication::Result::Outcome::Failed)
        logger_->error("\"Unable to authenticate the request\" err=" + base::go_quote(result.error));
      co_await unauthorized_(exchange);
      co_return;
    }
    exchange.context.user = std::move(result.user);
    exchange.request.headers.remove("Authorization");  // as kube: no stage after this one needs it
    co_await next(exchange);
  }

 private:
  std::shared_ptr<const authentication::RequestAuthenticator> authenticator_;
  Handler unauthorized_;
  base::Logger* logger_;
};

}  // namespace kapi::filters

#pragma once
// WithAuthentication — the foundation's x509-only form; the security issue adds tokens, service accounts,
// front-proxy headers and --anonymous-auth. A verified client certificate is the user CN with groups O; an
// unverifiable one is 401 like kube-apiserver; no certificate is system:anonymous.
#include "filters/filter.h"
#include "server/http/status_response.h"

namespace kapi::filters {

class AuthenticationFilter final : public Filter {
 public:
  std::string_view name() const override { return "authentication"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    const auto& certificate = exchange.request.peer_certificate;
    UserInfo user;
    if (certificate && !certificate->verified) {
      co_await http::write_status(*exchange.response, apierrors::unauthorized("Unauthorized"));
      co_return;
    }
    if (certificate && !certificate->common_name.empty()) {
      user.name = certificate->common_name;
      user.groups = certificate->organizations;
      user.groups.push_back("system:authenticated");
    } else {
      user.name = "system:anonymous";
      user.groups = {"system:unauthenticated"};
    }
    exchange.context.user = std::move(user);
    exchange.request.headers.remove("Authorization");  // credentials go no further than this stage
    co_await next(exchange);
  }
};

}  // namespace kapi::filters

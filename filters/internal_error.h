#pragma once
// responsewriters.InternalError: the plain-text 500 kube's filters write when they cannot go on (impersonation
// headers it cannot read, an authorizer that could not decide): "Internal Server Error: \"<request URI>\": <error>",
// sanitized so it never reads as HTML.
#include "base/go_quote.h"
#include "filters/filter.h"
#include "server/http/sanitize.h"

#include <string>
#include <string_view>

namespace kapi::filters {

inline asio::awaitable<void> write_internal_error(Exchange& exchange, std::string_view error) {
  auto& response = *exchange.response;
  response.headers().set("Content-Type", "text/plain; charset=utf-8");
  response.headers().set("X-Content-Type-Options", "nosniff");
  std::string body =
      http::html_sanitized("Internal Server Error: " + base::go_quote(exchange.request.target) + ": " + std::string(error)) + "\n";
  return response.write(500, std::move(body));  // not a coroutine: `error` is read before this returns
}

}  // namespace kapi::filters

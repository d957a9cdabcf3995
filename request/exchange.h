#pragma once
// One request in flight as every layer above HTTP sees it: the role of the *http.Request and its context that
// kube passes from the filters down to the handlers.
#include "request/request_context.h"
#include "server/http/request.h"
#include "server/http/response_writer.h"

#include <asio/awaitable.hpp>

#include <functional>

namespace kapi::request {

// What was asked, how to answer, and what the filter chain has learned so far.
struct Exchange {
  http::Request& request;
  http::ResponseWriter* response;  // a filter may swap in a decorator for the stages after it
  RequestContext context;
};

// Serves an exchange: the end of the filter chain, a server of the delegation chain, a route.
using Handler = std::function<asio::awaitable<void>(Exchange&)>;

}  // namespace kapi::request

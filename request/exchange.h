#pragma once
// One request in flight as every layer above HTTP sees it: the role of the *http.Request and its context that
// kube passes from the filters down to the handlers.
#include "request/request_context.h"
#include "server/http/request.h"
#include "server/http/response_writer.h"

#include <asio/awaitable.hpp>

#include <functional>
#include <utility>

namespace kapi::request {

// What was asked, how to answer, and what the filter chain has learned so far.
struct Exchange {
  http::Request& request;
  http::ResponseWriter* response;  // a filter may swap in a decorator for the stages after it
  RequestContext context;
  // The rest of a long-running response (a watch's events for hours), handed off by its handler once the
  // response has begun. The routes and stages between the handler and the first stage with work after the
  // response ends (the request metrics) then return, and their coroutine frames are freed rather than held by
  // every idle watcher; that stage runs the rest where the handler's end used to be (take_handed_off). The rest
  // writes through `*response` as it is when it runs: the decorators of the stages it left are gone, which is
  // why a handler hands off only once its response has begun (their work was on the status and headers).
  asio::awaitable<void> handed_off;
};

// Serves an exchange: the end of the filter chain, a server of the delegation chain, a route.
using Handler = std::function<asio::awaitable<void>(Exchange&)>;

// The handed-off rest of the exchange's response, taken out of it to be awaited (the exchange must have one:
// `exchange.handed_off.valid()`). Its caller awaits it only when there is one, so that the requests that hand off
// nothing, nearly all, pay no coroutine frame for the check.
inline asio::awaitable<void> take_handed_off(Exchange& exchange) { return std::move(exchange.handed_off); }

}  // namespace kapi::request

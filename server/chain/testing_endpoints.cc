#include "server/chain/testing_endpoints.h"

#include "base/duration.h"
#include "server/http/status_response.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <stdexcept>

namespace kapi::server::chain {
namespace {

using asio::use_awaitable;

asio::awaitable<void> sleep_then_answer(request::Exchange& exchange) {
  auto duration = base::parse_go_duration(exchange.request.query.get("duration").value_or("1s"));
  if (!duration) {
    co_await http::write_status(*exchange.response, apierrors::bad_request("invalid duration"));
    co_return;
  }
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(*duration);
  co_await timer.async_wait(use_awaitable);  // cancelled (throws) when the timeout filter gives up on us
  exchange.response->headers().set("Content-Type", "text/plain");
  co_await exchange.response->write(200, "slept\n");
}

asio::awaitable<void> stream_until_ended(request::Exchange& exchange, Lifecycle& lifecycle) {
  struct StreamState {
    bool ended = false;
    asio::steady_timer* timer = nullptr;
  };
  auto executor = co_await asio::this_coro::executor;
  auto state = std::make_shared<StreamState>();
  asio::steady_timer timer(executor);
  state->timer = &timer;
  auto registration = lifecycle.add_long_running(executor, [state] {
    state->ended = true;
    if (state->timer) state->timer->cancel();
  });
  struct Unregister {
    Lifecycle& lifecycle;
    std::uint64_t id;
    std::shared_ptr<StreamState> state;
    ~Unregister() {
      state->timer = nullptr;
      lifecycle.remove_long_running(id);
    }
  } unregister{lifecycle, registration, state};

  exchange.response->headers().set("Content-Type", "text/plain");
  co_await exchange.response->begin_stream(200);
  for (int tick = 0; !state->ended; ++tick) {
    co_await exchange.response->write_chunk("tick " + std::to_string(tick) + "\n");
    timer.expires_after(std::chrono::milliseconds(100));
    co_await timer.async_wait(asio::experimental::as_tuple(use_awaitable));
  }
  co_await exchange.response->write_chunk("ended\n");
  co_await exchange.response->end_stream();
}

}  // namespace

void install_testing_endpoints(PathMux& mux, Lifecycle& lifecycle) {
  mux.handle("/debug/kapi/sleep", &sleep_then_answer);
  mux.handle("/debug/kapi/panic", [](request::Exchange&) -> asio::awaitable<void> {
    throw std::runtime_error("deliberate panic from /debug/kapi/panic");
    co_return;
  });
  mux.handle("/debug/kapi/echo", [](request::Exchange& exchange) -> asio::awaitable<void> {
    exchange.response->headers().set("Content-Type", "application/octet-stream");
    co_await exchange.response->write(200, exchange.request.body);
  });
  mux.handle(std::string(kTestingStreamPath),
             [&lifecycle](request::Exchange& exchange) { return stream_until_ended(exchange, lifecycle); });
}

}  // namespace kapi::server::chain

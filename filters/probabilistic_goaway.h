#pragma once
// WithProbabilisticGoaway (--goaway-chance): a small random fraction of HTTP/2 requests are answered with
// "Connection: close", which the HTTP/2 connection turns into GOAWAY once the response is out, as Go's server does.
// The client's other streams finish, and its next connection may land on another server behind the load balancer.
#include "filters/filter.h"

#include <atomic>
#include <cstdint>
#include <random>

namespace kapi::filters {

class ProbabilisticGoawayFilter final : public Filter {
 public:
  explicit ProbabilisticGoawayFilter(double chance) : chance_(chance), state_(std::random_device{}()) {}
  std::string_view name() const override { return "probabilistic-goaway"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (exchange.request.http2 && uniform() < chance_) exchange.response->headers().set("Connection", "close");
    co_await next(exchange);
  }

 private:
  // splitmix64 over a shared counter: uniform in [0, 1), from any thread, without a lock.
  double uniform() {
    std::uint64_t z = state_.fetch_add(0x9e3779b97f4a7c15ULL, std::memory_order_relaxed) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

  double chance_;
  std::atomic<std::uint64_t> state_;
};

}  // namespace kapi::filters

#pragma once
// WithMaxInFlightLimit: at most --max-requests-inflight read-only and --max-mutating-requests-inflight mutating
// requests at once (0 = no limit); beyond that 429 with Retry-After. Long-running requests and system:masters
// are never limited, as in kube-apiserver.
#include "filters/filter.h"
#include "filters/request_kind.h"
#include "filters/response_swap.h"
#include "server/http/status_response.h"
#include "server/metrics/registry.h"

#include <algorithm>
#include <atomic>

namespace kapi::filters {

// A request's place in the count; it goes back at the latest when the request ends.
class InFlightSeat {
 public:
  InFlightSeat(std::atomic<int>& in_flight, metrics::Registry& metrics, const char* kind)
      : in_flight_(in_flight), metrics_(metrics), kind_(kind) {}
  ~InFlightSeat() { release(); }
  InFlightSeat(const InFlightSeat&) = delete;
  InFlightSeat& operator=(const InFlightSeat&) = delete;
  void release() {
    if (!held_) return;
    held_ = false;
    in_flight_.fetch_sub(1);
    metrics_.current_inflight.add({kind_}, -1);
  }

 private:
  std::atomic<int>& in_flight_;
  metrics::Registry& metrics_;
  const char* kind_;
  bool held_ = true;
};

// Gives the seat back just before the response's last bytes go out, as kube-apiserver's handler returns (and frees
// its seat) before Go flushes the response: a client that has read its answer finds the seat free again.
class InFlightSeatReleasingWriter final : public http::ResponseWriterDecorator {
 public:
  InFlightSeatReleasingWriter(http::ResponseWriter& inner, InFlightSeat& seat) : ResponseWriterDecorator(inner), seat_(seat) {}
  asio::awaitable<void> write(int status, std::string body) override {
    seat_.release();
    return inner().write(status, std::move(body));
  }
  asio::awaitable<void> end_stream() override {
    seat_.release();
    return inner().end_stream();
  }

 private:
  InFlightSeat& seat_;
};

class MaxInFlightFilter final : public Filter {
 public:
  MaxInFlightFilter(int max_read_only, int max_mutating, metrics::Registry& metrics)
      : max_read_only_(max_read_only), max_mutating_(max_mutating), metrics_(metrics) {}
  std::string_view name() const override { return "max-in-flight"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    const auto& info = exchange.context.request_info;
    if (exchange.context.long_running || !info) co_return co_await next(exchange);
    const bool mutating = !is_read_only_verb(info->verb);
    int limit = mutating ? max_mutating_ : max_read_only_;
    if (limit <= 0) co_return co_await next(exchange);
    auto& in_flight = mutating ? mutating_ : read_only_;
    const char* kind = request_kind(info->verb);

    if (in_flight.fetch_add(1) >= limit) {
      in_flight.fetch_sub(1);
      if (!privileged(exchange.context)) {
        metrics_.dropped_requests.inc({kind});
        co_await http::write_status(*exchange.response,
                                    apierrors::too_many_requests("Too many requests, please try again later.", 1));
        co_return;
      }
      co_return co_await next(exchange);  // a system:masters caller is always answered, outside the count
    }
    metrics_.current_inflight.add({kind}, 1);
    InFlightSeat seat(in_flight, metrics_, kind);
    InFlightSeatReleasingWriter writer(*exchange.response, seat);
    ResponseSwap swap(exchange, writer);
    co_await next(exchange);
  }

 private:
  static bool privileged(const RequestContext& context) {
    if (!context.user) return false;
    const auto& groups = context.user->groups;
    return std::find(groups.begin(), groups.end(), "system:masters") != groups.end();
  }

  int max_read_only_;
  int max_mutating_;
  metrics::Registry& metrics_;
  std::atomic<int> read_only_{0};
  std::atomic<int> mutating_{0};
};

}  // namespace kapi::filters

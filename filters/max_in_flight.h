#pragma once
// WithMaxInFlightLimit: at most --max-requests-inflight read-only and --max-mutating-requests-inflight mutating
// requests at once (0 = no limit); beyond that 429 with Retry-After. Long-running requests and system:masters
// are never limited, as in kube-apiserver.
#include "filters/filter.h"
#include "filters/request_kind.h"
#include "server/http/status_response.h"
#include "server/metrics/registry.h"

#include <algorithm>
#include <atomic>

namespace kapi::filters {

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
    struct Release {
      std::atomic<int>& in_flight;
      metrics::Registry& metrics;
      const char* kind;
      ~Release() {
        in_flight.fetch_sub(1);
        metrics.current_inflight.add({kind}, -1);
      }
    } release{in_flight, metrics_, kind};
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

#include "filters/priority_and_fairness.h"

#include "filters/request_kind.h"
#include "filters/response_swap.h"
#include "server/http/low_priority_lane.h"
#include "server/http/status_response.h"

#include <asio/co_spawn.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>

namespace kapi::filters {
namespace {

using namespace std::chrono_literals;

// kube's defaultRequestWaitLimit and its hard limit.
constexpr auto kDefaultWaitLimit = 15s;
constexpr auto kMaximumWaitLimit = 1min;

// How long the request may wait for seats (kube's getRequestWaitContext), from when it arrived.
flowcontrol::Clock::time_point wait_deadline(const RequestContext& context) {
  const auto arrived = context.received_steady == flowcontrol::Clock::time_point{} ? flowcontrol::Clock::now()
                                                                                   : context.received_steady;
  flowcontrol::Clock::duration limit = kDefaultWaitLimit;
  if (context.deadline) limit = (*context.deadline - arrived) / 4;
  return arrived + std::min<flowcontrol::Clock::duration>(limit, kMaximumWaitLimit);
}

// Ends a WATCH's admission when its response starts: from then on it is a long-running stream, not work in
// progress (kube releases its seats when the watch is initialized).
class WatchInitialization final : public http::ResponseWriterDecorator {
 public:
  WatchInitialization(http::ResponseWriter& inner, std::function<void()> initialized)
      : ResponseWriterDecorator(inner), initialized_(std::move(initialized)) {}
  asio::awaitable<void> write(int status, std::string body) override {
    initialized_();
    return inner().write(status, std::move(body));
  }
  asio::awaitable<void> begin_stream(int status) override {
    initialized_();
    return inner().begin_stream(status);
  }

 private:
  std::function<void()> initialized_;
};

}  // namespace

asio::awaitable<void> PriorityAndFairnessFilter::handle(Exchange& exchange, Next next) {
  const auto& info = exchange.context.request_info;
  const bool is_watch = info && info->verb == "watch";
  if (!info || !exchange.context.user || (exchange.context.long_running && !is_watch)) co_return co_await next(exchange);

  auto pending = controller_->admit(*info, *exchange.context.user, exchange.request.query, wait_deadline(exchange.context));
  flowcontrol::Decision decision = co_await std::move(pending);
  auto& headers = exchange.response->headers();
  headers.set("X-Kubernetes-PF-FlowSchema-UID", decision.classification.flow_schema_uid);
  headers.set("X-Kubernetes-PF-PriorityLevel-UID", decision.classification.priority_level_uid);

  if (decision.rejected) {
    metrics_.dropped_requests.inc({request_kind(info->verb)});
    const std::string& level = decision.classification.priority_level;
    dropped_.record(level, std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count());
    co_await http::write_status(*exchange.response,
                                apierrors::too_many_requests("Too many requests, please try again later.",
                                                             static_cast<int>(dropped_.retry_after(level))));
    co_return;
  }
  struct Finish {
    flowcontrol::Decision& decision;
    ~Finish() { decision.finish(); }
  } finish{decision};

  if (!is_watch) {
    // Admitted to a limited level, the request runs in its reactor's low-priority lane, so the exempt requests of
    // that reactor never wait behind all the executing ones (low_priority_lane.h).
    const auto executor = co_await asio::this_coro::executor;
    if (const auto lane = decision.exempt ? std::nullopt : http::LaneAdmission::on(executor)) {
      auto rest = asio::co_spawn(lane->executor(), next(exchange), asio::use_awaitable);
      co_return co_await std::move(rest);
    }
    co_return co_await next(exchange);
  }
  WatchInitialization watch(*exchange.response, [&decision] { decision.finish(); });
  ResponseSwap swap(exchange, watch);
  co_await next(exchange);
}

}  // namespace kapi::filters

#include "server/http/low_priority_lane.h"

#include "base/executor_target.h"

namespace kapi::http {

void LowPriorityLane::join(std::unique_ptr<Work> work) {
  waiting_.push_back(std::move(work));
  schedule_turn();
}

void LowPriorityLane::schedule_turn() {
  if (turn_scheduled_ || waiting_.empty()) return;
  turn_scheduled_ = true;
  asio::post(reactor_, [this] { take_turn(); });
}

void LowPriorityLane::take_turn() {
  // Still scheduled while it runs, so that what the work queues joins this turn rather than posting another;
  // the next turn is queued on the way out, also when a function throws (which Asio's run() passes on).
  struct Next {
    LowPriorityLane& lane;
    ~Next() {
      lane.turn_scheduled_ = false;
      lane.schedule_turn();
    }
  } next{*this};
  const auto ends = std::chrono::steady_clock::now() + kTurn;
  do {
    std::unique_ptr<Work> work = std::move(waiting_.front());
    waiting_.pop_front();
    work->run();
  } while (!waiting_.empty() && std::chrono::steady_clock::now() < ends);
}

void LowPriorityLane::shutdown() {
  // Destroyed outside the queue: destroying a coroutine's frame may destroy executors of this lane.
  auto unrun = std::move(waiting_);
  waiting_.clear();
  unrun.clear();
}

void add_low_priority_lane(asio::io_context& reactor) { asio::use_service<LowPriorityLane>(reactor); }

std::optional<asio::any_io_executor> low_priority_executor(const asio::any_io_executor& executor) {
  const auto* reactor = base::executor_target<asio::io_context::executor_type>(executor);
  if (!reactor || !asio::has_service<LowPriorityLane>(reactor->context())) return std::nullopt;
  auto& lane = asio::use_service<LowPriorityLane>(reactor->context());
  return asio::any_io_executor(LowPriorityExecutor<asio::io_context::executor_type>(lane, *reactor));
}

std::optional<LaneAdmission> LaneAdmission::on(const asio::any_io_executor& reactor_executor) {
  std::optional<asio::any_io_executor> lane = low_priority_executor(reactor_executor);
  if (!lane) return std::nullopt;
  return LaneAdmission(base::executor_target<LowPriorityExecutor<asio::io_context::executor_type>>(*lane)->lane(),
                       *lane);
}

}  // namespace kapi::http

#pragma once
// A reactor's lane for the work that priority and fairness admitted to a limited level: it runs on the reactor's
// thread but takes one bounded turn per pass of the reactor's queue, so the work APF exempts waits at most one
// turn behind it, not behind all of it.
//
// Why: an io_context runs its ready handlers in the order they became ready, and every I/O completion, every
// store's answer and the next epoll_wait join the back of that queue. Under a flood of writes that APF admitted
// (kube's default 600 seats), one pass holds a step of each of hundreds of executing requests, tens of
// milliseconds of work, and an exempt request waits a whole pass for each of its steps (issue 24's P7: an
// exempt GET's p99 went from 2 ms to 40 ms). Go's scheduler gives no priority either; APF only orders who gets a
// seat. Here the admitted work runs in the lane instead: while the lane is backlogged, a handler that resumes
// admitted work only moves it to the lane, and the lane runs for kTurn, then queues its next turn behind whatever
// became ready meanwhile.
//
// Contract:
//  - One lane per reactor of a ReactorPool (each run by one thread), made by the pool. low_priority_executor()
//    finds it from a reactor's plain executor, and answers nothing for any other executor (a strand, a server
//    built without a pool), whose work then runs as before.
//  - LowPriorityExecutor is a standard executor (it converts to asio::any_io_executor). On the reactor's thread,
//    execute() joins the lane, or runs the function at once when the lane is not backlogged and the executor
//    allows it (blocking.possibly: dispatch, a completion; never for post), as an io_context's own executor runs
//    it in its thread. Backlogged: work waits in the lane or a turn is queued, or more than kQuietAdmissions
//    requests run in the lane on this reactor (LaneAdmission counts them), since their steps would otherwise take
//    the reactor's queue ahead of exempt work. So a reactor with a few admitted requests (a controller's writes
//    beside a watch fan-out) pays no extra pass of its queue for them. From any other thread the function is
//    posted to the reactor, which there runs it or joins the lane by the same rule. Everything in the lane runs
//    on the reactor's thread, in order.
//  - Work still in the lane when its io_context is destroyed is destroyed with it, unrun, as Asio destroys
//    handlers still queued.
#include <asio/any_io_executor.hpp>
#include <asio/execution.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/query.hpp>
#include <asio/require.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace kapi::http {

class LowPriorityLane final : public asio::execution_context::service {
 public:
  using key_type = LowPriorityLane;
  static inline asio::execution_context::id id;

  // How long the lane runs before it lets the reactor's queue have a pass: short against an exempt request's own
  // latency (about a millisecond idle), long against the cost of one trip through the queue (about a microsecond).
  static constexpr std::chrono::microseconds kTurn{500};
  // Admitted requests on a reactor up to which a dispatch that finds the lane empty runs at once.
  static constexpr int kQuietAdmissions = 4;

  explicit LowPriorityLane(asio::io_context& reactor) : service(reactor), reactor_(reactor) {}

  // Runs `function` in the lane, or at once when `may_run_now` and the lane is idle (see the contract). Any thread.
  template <typename Function>
  void execute(Function&& function, bool may_run_now) {
    if (reactor_.get_executor().running_in_this_thread()) {
      if (may_run_now && !backlogged()) {
        std::decay_t<Function>(std::forward<Function>(function))();
        return;
      }
      join(std::make_unique<WorkOf<std::decay_t<Function>>>(std::forward<Function>(function)));
      return;
    }
    std::unique_ptr<Work> work = std::make_unique<WorkOf<std::decay_t<Function>>>(std::forward<Function>(function));
    asio::post(reactor_, [this, work = std::move(work)]() mutable {
      if (backlogged()) return join(std::move(work));
      work->run();
    });
  }

 private:
  struct Work {
    virtual ~Work() = default;
    virtual void run() = 0;
  };
  template <typename Function>
  struct WorkOf final : Work {
    explicit WorkOf(Function&& f) : function(std::move(f)) {}
    explicit WorkOf(const Function& f) : function(f) {}
    void run() override { std::move(function)(); }
    Function function;
  };

  friend class LaneAdmission;
  bool backlogged() const { return turn_scheduled_ || !waiting_.empty() || *admissions_ > kQuietAdmissions; }
  void shutdown() override;
  void join(std::unique_ptr<Work> work);
  void take_turn();
  void schedule_turn();

  asio::io_context& reactor_;
  std::deque<std::unique_ptr<Work>> waiting_;  // the reactor's thread only
  bool turn_scheduled_ = false;
  // Shared with each LaneAdmission: a request's frame may be destroyed after its reactor (and this lane) is.
  std::shared_ptr<int> admissions_ = std::make_shared<int>(0);
};

// The executor of a reactor's lane: what a coroutine spawned on it awaits resumes it in the lane. Inner is the
// reactor's own executor type, whose properties (outstanding work, allocator) it carries as asio::strand does.
template <typename Inner>
class LowPriorityExecutor {
 public:
  LowPriorityExecutor(LowPriorityLane& lane, Inner inner) noexcept : lane_(&lane), inner_(std::move(inner)) {}

  // The inner executor carries the blocking property asked of this one.
  template <typename Function>
  void execute(Function&& function) const {
    lane_->execute(std::forward<Function>(function),
                   asio::query(inner_, asio::execution::blocking) != asio::execution::blocking.never);
  }

  template <typename Property>
    requires asio::can_query<const Inner&, Property>::value
  decltype(auto) query(const Property& property) const noexcept {
    return asio::query(inner_, property);
  }

  template <typename Property>
    requires asio::can_require<const Inner&, Property>::value
  auto require(const Property& property) const {
    return rewrap(asio::require(inner_, property));
  }
  template <typename Property>
    requires asio::can_prefer<const Inner&, Property>::value
  auto prefer(const Property& property) const {
    return rewrap(asio::prefer(inner_, property));
  }

  const Inner& reactor_executor() const noexcept { return inner_; }
  LowPriorityLane& lane() const noexcept { return *lane_; }

  friend bool operator==(const LowPriorityExecutor& a, const LowPriorityExecutor& b) noexcept {
    return a.lane_ == b.lane_ && a.inner_ == b.inner_;
  }

 private:
  template <typename Other>
  LowPriorityExecutor<Other> rewrap(Other other) const {
    return LowPriorityExecutor<Other>(*lane_, std::move(other));
  }

  LowPriorityLane* lane_;
  Inner inner_;
};

// Every reactor of a pool gets its lane (ReactorPool does this).
void add_low_priority_lane(asio::io_context& reactor);

// The lane's executor for work on `executor`'s reactor; nullopt when `executor` is not a reactor's own executor
// or its reactor has no lane.
std::optional<asio::any_io_executor> low_priority_executor(const asio::any_io_executor& executor);

// A request run in its reactor's lane, counted there while this lives. Made and destroyed on the reactor's
// thread, or after it stopped.
class LaneAdmission {
 public:
  // nullopt where low_priority_executor() has no lane.
  static std::optional<LaneAdmission> on(const asio::any_io_executor& reactor_executor);
  LaneAdmission(LaneAdmission&& other) noexcept = default;
  LaneAdmission(const LaneAdmission&) = delete;
  LaneAdmission& operator=(const LaneAdmission&) = delete;
  LaneAdmission& operator=(LaneAdmission&&) = delete;
  ~LaneAdmission() {
    if (admissions_) --*admissions_;
  }

  const asio::any_io_executor& executor() const { return executor_; }

 private:
  LaneAdmission(const LowPriorityLane& lane, asio::any_io_executor executor)
      : admissions_(lane.admissions_), executor_(std::move(executor)) {
    ++*admissions_;
  }

  std::shared_ptr<int> admissions_;  // empty once moved from
  asio::any_io_executor executor_;
};

}  // namespace kapi::http

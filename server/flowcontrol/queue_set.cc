#include "server/flowcontrol/queue_set.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <cmath>

namespace kapi::flowcontrol {
namespace {

// What a dispatched request is charged in virtual time until its real duration is known (kube's
// estimatedServiceDuration); the difference is settled when it finishes.
constexpr double kEstimatedServiceSeconds = 3.0;

}  // namespace

std::string_view reason_label(RejectReason reason) {
  switch (reason) {
    case RejectReason::QueueFull:
      return "queue-full";
    case RejectReason::ConcurrencyLimit:
      return "concurrency-limit";
    case RejectReason::TimeOut:
      return "time-out";
  }
  return "";
}

struct QueueSet::Request {
  enum class State { Waiting, Executing, Rejected, Finished };
  std::uint64_t flow_hash = 0;
  std::string flow_schema;
  WorkEstimate work;
  State state = State::Waiting;
  int queue = -1;  // index in queues_ of the generation it was placed in
  std::uint64_t generation = 0;
  int seats_held = 0;
  Clock::time_point arrived{};
  Clock::time_point dispatched{};
  std::shared_ptr<Doorbell> bell;
};

QueueSet::QueueSet(std::optional<QueuingConfiguration> queuing, int concurrency_limit,
                   asio::any_io_executor executor, std::shared_ptr<QueueObserver> observer)
    : executor_(std::move(executor)), observer_(std::move(observer)), concurrency_limit_(concurrency_limit) {
  const Clock::time_point now = Clock::now();
  last_real_time_ = demand_since_ = demand_last_ = now;
  reshape_locked(std::move(queuing));
}

void QueueSet::configure(std::optional<QueuingConfiguration> queuing, int concurrency_limit) {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  advance_virtual_time_locked(now);
  bool same_shape = queuing.has_value() == queuing_.has_value() &&
                    (!queuing || (queuing->queues == queuing_->queues && queuing->hand_size == queuing_->hand_size &&
                                  queuing->queue_length_limit == queuing_->queue_length_limit));
  if (!same_shape) reshape_locked(std::move(queuing));
  concurrency_limit_ = concurrency_limit;
  dispatch_as_much_as_possible_locked(now);
}

void QueueSet::set_concurrency_limit(int concurrency_limit) {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  advance_virtual_time_locked(now);
  concurrency_limit_ = concurrency_limit;
  dispatch_as_much_as_possible_locked(now);
}

void QueueSet::reshape_locked(std::optional<QueuingConfiguration> queuing) {
  std::vector<std::shared_ptr<Request>> waiting;
  for (auto& queue : queues_)
    for (auto& request : queue.waiting) waiting.push_back(std::move(request));
  std::sort(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) { return a->arrived < b->arrived; });

  queuing_ = std::move(queuing);
  queues_.assign(queuing_ ? static_cast<std::size_t>(std::max(1, queuing_->queues)) : 0, Queue{});
  for (auto& queue : queues_) queue.next_dispatch_r = current_r_;
  dealer_.reset();
  if (queuing_) dealer_.emplace(static_cast<int>(queues_.size()), queuing_->hand_size);
  robin_index_ = 0;
  ++generation_;  // executing requests were counted in the old queues: they leave no trace in the new ones

  if (!queuing_) {  // a Reject level has no queue to wait in: whoever waited is told now
    for (auto& request : waiting) {
      request->state = Request::State::Rejected;
      waiting_requests_ -= 1;
      waiting_seats_ -= request->work.initial_seats;
      if (observer_) observer_->waiting(request->flow_schema, -1);
      request->bell->try_send(std::error_code{}, true);
    }
    return;
  }
  for (auto& request : waiting) {
    int index = choose_queue_locked(request->flow_hash);
    request->queue = index;
    request->generation = generation_;
    queues_[index].waiting_seats += request->work.initial_seats;
    queues_[index].waiting.push_back(std::move(request));
  }
}

void QueueSet::advance_virtual_time_locked(Clock::time_point now) {
  // Virtual time runs at the seats in use shared among the active queues: one unit per seat-second each queue
  // would get from perfectly fair service.
  const int active = active_queues_locked();
  if (active > 0 && now > last_real_time_)
    current_r_ += seconds(now - last_real_time_) * std::min(seats_in_use_, std::max(concurrency_limit_, 1)) / active;
  last_real_time_ = now;
  note_demand_locked(now);
}

void QueueSet::note_demand_locked(Clock::time_point now) {
  const double demand = seats_in_use_ + waiting_seats_;
  const double elapsed = seconds(now - demand_last_);
  if (elapsed > 0) {
    demand_integral_ += demand * elapsed;
    demand_square_integral_ += demand * demand * elapsed;
  }
  demand_last_ = now;
}

int QueueSet::active_queues_locked() const {
  return static_cast<int>(std::count_if(queues_.begin(), queues_.end(), [](const Queue& queue) {
    return !queue.waiting.empty() || queue.executing_requests > 0;
  }));
}

bool QueueSet::can_accommodate_locked(int seats) const {
  // A request wider than the whole level runs alone rather than never (kube's canAccommodateSeatsLocked).
  if (seats > concurrency_limit_) return executing_requests_ == 0;
  return seats_in_use_ + seats <= concurrency_limit_;
}

int QueueSet::choose_queue_locked(std::uint64_t flow_hash) const {
  // The least loaded queue of the hand, counting the seats it waits for and the seats it holds.
  int best = 0;
  int best_load = -1;
  dealer_->deal(flow_hash, [&](int card) {
    const Queue& queue = queues_[card];
    int load = queue.waiting_seats + queue.seats_in_use;
    if (best_load < 0 || load < best_load) {
      best = card;
      best_load = load;
    }
  });
  return best;
}

void QueueSet::start_locked(const std::shared_ptr<Request>& request, Clock::time_point now) {
  request->state = Request::State::Executing;
  request->dispatched = now;
  request->seats_held = request->work.initial_seats;
  seats_in_use_ += request->seats_held;
  executing_requests_ += 1;
  if (Queue* queue_ptr = queue_of_locked(*request)) {
    Queue& queue = *queue_ptr;
    queue.executing_requests += 1;
    queue.seats_in_use += request->seats_held;
    queue.next_dispatch_r += request->work.initial_seats * kEstimatedServiceSeconds;
  }
  demand_high_watermark_ = std::max(demand_high_watermark_, double(seats_in_use_ + waiting_seats_));
  if (observer_) observer_->executing(request->flow_schema, 1, request->seats_held);
}

void QueueSet::dispatch_as_much_as_possible_locked(Clock::time_point now) {
  while (waiting_requests_ > 0) {
    // The non-empty queue furthest behind in virtual time; ties go round robin.
    int chosen = -1;
    const std::size_t count = queues_.size();
    for (std::size_t offset = 0; offset < count; ++offset) {
      std::size_t index = (robin_index_ + offset) % count;
      const Queue& queue = queues_[index];
      if (queue.waiting.empty()) continue;
      if (chosen < 0 || queue.next_dispatch_r < queues_[chosen].next_dispatch_r) chosen = static_cast<int>(index);
    }
    if (chosen < 0) break;
    Queue& queue = queues_[chosen];
    std::shared_ptr<Request> head = queue.waiting.front();
    // A head that does not fit waits for room rather than being overtaken, so wide requests are not starved.
    if (!can_accommodate_locked(head->work.initial_seats)) break;
    queue.waiting.pop_front();
    queue.waiting_seats -= head->work.initial_seats;
    waiting_requests_ -= 1;
    waiting_seats_ -= head->work.initial_seats;
    if (observer_) observer_->waiting(head->flow_schema, -1);
    start_locked(head, now);
    robin_index_ = (static_cast<std::size_t>(chosen) + 1) % count;
    head->bell->try_send(std::error_code{}, true);
  }
}

asio::awaitable<QueueSet::Admission> QueueSet::admit(std::uint64_t flow_hash, std::string flow_schema,
                                                      WorkEstimate work, Clock::time_point deadline) {
  using namespace asio::experimental::awaitable_operators;
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto request = std::make_shared<Request>();
  request->flow_hash = flow_hash;
  request->flow_schema = std::move(flow_schema);
  request->work = work;
  request->arrived = Clock::now();
  request->bell = std::make_shared<Doorbell>(executor, 1);

  Admission admission;
  {
    std::lock_guard lock(mutex_);
    const Clock::time_point now = request->arrived;
    advance_virtual_time_locked(now);
    if (!queuing_) {
      if (can_accommodate_locked(work.initial_seats)) {
        start_locked(request, now);
        admission.request = request;
      } else {
        admission.rejected = RejectReason::ConcurrencyLimit;
      }
    } else {
      const int index = choose_queue_locked(flow_hash);
      Queue& queue = queues_[index];
      if (static_cast<int>(queue.waiting.size()) >= queuing_->queue_length_limit) {
        admission.rejected = RejectReason::QueueFull;
      } else {
        // A queue that was idle starts at the present: it gets no credit for the time nobody used it.
        if (queue.waiting.empty() && queue.executing_requests == 0)
          queue.next_dispatch_r = std::max(queue.next_dispatch_r, current_r_);
        request->queue = index;
        request->generation = generation_;
        queue.waiting.push_back(request);
        queue.waiting_seats += work.initial_seats;
        waiting_requests_ += 1;
        waiting_seats_ += work.initial_seats;
        demand_high_watermark_ = std::max(demand_high_watermark_, double(seats_in_use_ + waiting_seats_));
        if (observer_) observer_->waiting(request->flow_schema, 1);
        dispatch_as_much_as_possible_locked(now);
        if (request->state == Request::State::Executing) admission.request = request;
      }
    }
  }
  if (admission.rejected || admission.request) co_return admission;

  asio::steady_timer timer(executor);
  timer.expires_at(deadline);
  auto rung = request->bell->async_receive(asio::use_awaitable);
  auto expired = timer.async_wait(asio::use_awaitable);
  co_await (std::move(rung) || std::move(expired));

  std::lock_guard lock(mutex_);
  if (request->state == Request::State::Executing) {
    admission.request = request;
    admission.waited = request->dispatched - request->arrived;
    co_return admission;
  }
  admission.waited = Clock::now() - request->arrived;
  admission.rejected = RejectReason::TimeOut;
  if (request->state == Request::State::Waiting) {
    const Clock::time_point now = Clock::now();
    advance_virtual_time_locked(now);
    Queue& queue = queues_[request->queue];
    auto it = std::find(queue.waiting.begin(), queue.waiting.end(), request);
    if (it != queue.waiting.end()) {
      queue.waiting.erase(it);
      queue.waiting_seats -= work.initial_seats;
      waiting_requests_ -= 1;
      waiting_seats_ -= work.initial_seats;
      if (observer_) observer_->waiting(request->flow_schema, -1);
    }
    request->state = Request::State::Rejected;
    // The head may have been the one that did not fit: those behind it may fit now.
    dispatch_as_much_as_possible_locked(now);
  }
  co_return admission;
}

namespace {

asio::awaitable<void> release_after(Clock::duration latency, std::function<void()> release) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(latency);
  co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  release();
}

}  // namespace

QueueSet::Queue* QueueSet::queue_of_locked(const Request& request) {
  if (request.queue < 0 || request.generation != generation_) return nullptr;
  return &queues_[request.queue];
}

void QueueSet::release_locked(Request& request, int seats, Clock::time_point now) {
  seats_in_use_ -= seats;
  request.seats_held -= seats;
  Queue* queue = queue_of_locked(request);
  if (queue) queue->seats_in_use -= seats;
  if (observer_) observer_->executing(request.flow_schema, request.seats_held == 0 ? -1 : 0, -seats);
  if (request.seats_held == 0) {
    executing_requests_ -= 1;
    if (queue) queue->executing_requests -= 1;
    request.state = Request::State::Finished;
  }
  dispatch_as_much_as_possible_locked(now);
}

void QueueSet::finish(const std::shared_ptr<Request>& request) {
  std::lock_guard lock(mutex_);
  if (request->state != Request::State::Executing) return;
  const Clock::time_point now = Clock::now();
  advance_virtual_time_locked(now);
  if (Queue* queue = queue_of_locked(*request)) {
    // Settle the virtual time charged at dispatch with what the request really took.
    double actual = seconds(now - request->dispatched);
    queue->next_dispatch_r -= (kEstimatedServiceSeconds - actual) * request->work.initial_seats;
  }
  const WorkEstimate& work = request->work;
  if (work.final_seats <= 0 || work.additional_latency <= Clock::duration::zero()) {
    release_locked(*request, request->seats_held, now);
    return;
  }
  // The write's watch events are still being sent: hold the final seats a little longer.
  const int delta = work.final_seats - request->seats_held;
  seats_in_use_ += delta;
  request->seats_held = work.final_seats;
  if (Queue* queue = queue_of_locked(*request)) queue->seats_in_use += delta;
  if (observer_) observer_->executing(request->flow_schema, 0, delta);
  if (delta < 0) dispatch_as_much_as_possible_locked(now);
  request->state = Request::State::Finished;  // finish() is not repeated; the timer releases the rest
  std::weak_ptr<QueueSet> weak = weak_from_this();
  asio::co_spawn(executor_,
                 release_after(work.additional_latency,
                               [weak, request]() {
                                 if (auto self = weak.lock()) {
                                   std::lock_guard lock(self->mutex_);
                                   const Clock::time_point now = Clock::now();
                                   self->advance_virtual_time_locked(now);
                                   self->release_locked(*request, request->seats_held, now);
                                 }
                               }),
                 asio::detached);
}

QueueSet::Stats QueueSet::stats() const {
  std::lock_guard lock(mutex_);
  return {executing_requests_, seats_in_use_, waiting_requests_, concurrency_limit_};
}

SeatDemand QueueSet::take_seat_demand() {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  note_demand_locked(now);
  SeatDemand demand;
  const double period = seconds(now - demand_since_);
  if (period > 0) {
    demand.average = demand_integral_ / period;
    double variance = demand_square_integral_ / period - demand.average * demand.average;
    demand.standard_deviation = std::sqrt(std::max(0.0, variance));
  }
  demand.high_watermark = std::max(demand_high_watermark_, double(seats_in_use_ + waiting_seats_));
  demand_integral_ = demand_square_integral_ = 0;
  demand_high_watermark_ = seats_in_use_ + waiting_seats_;
  demand_since_ = now;
  return demand;
}

}  // namespace kapi::flowcontrol

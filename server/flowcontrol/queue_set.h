#pragma once
// One Limited priority level's seats and queues (kube's fairqueuing/queueset): a request takes its estimated seats
// when they are free; otherwise it waits in the shortest queue of its flow's shuffle-sharded hand, and queues are
// served in fair (virtual finish time) order, so a flow that floods the level mostly delays itself. A request that
// finds its queue full, or waits past its deadline, is rejected; a level configured to Reject never queues.
// Safe to use from any reactor thread.
#include "server/flowcontrol/configuration.h"
#include "server/flowcontrol/shuffle_sharding.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/experimental/concurrent_channel.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kapi::flowcontrol {

using Clock = std::chrono::steady_clock;

// A duration in seconds, as the metrics and the fair-queuing arithmetic count them.
inline double seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

// What serving a request costs (kube's WorkEstimate): seats while it runs, then `final_seats` for
// `additional_latency` after it (the watch events its write causes).
struct WorkEstimate {
  int initial_seats = 1;
  int final_seats = 0;
  Clock::duration additional_latency{};
  int max_seats() const { return std::max(initial_seats, final_seats); }
};

enum class RejectReason { QueueFull, ConcurrencyLimit, TimeOut };
// The `reason` label of apiserver_flowcontrol_rejected_requests_total.
std::string_view reason_label(RejectReason reason);

// Seat demand over a period (executing plus waiting seats): what borrowing is computed from.
struct SeatDemand {
  double average = 0;
  double standard_deviation = 0;
  double high_watermark = 0;
};

// What the level reports as requests move (for apiserver_flowcontrol_current_* gauges).
class QueueObserver {
 public:
  virtual ~QueueObserver() = default;
  virtual void waiting(std::string_view flow_schema, int delta) = 0;
  virtual void executing(std::string_view flow_schema, int requests, int seats) = 0;
};

class QueueSet : public std::enable_shared_from_this<QueueSet> {
 public:
  struct Request;

  struct Admission {
    std::optional<RejectReason> rejected;
    Clock::duration waited{};
    std::shared_ptr<Request> request;  // when admitted: hand it back to finish()
  };

  struct Stats {
    int executing_requests = 0;
    int seats_in_use = 0;
    int waiting_requests = 0;
    int concurrency_limit = 0;
  };

  QueueSet(std::optional<QueuingConfiguration> queuing, int concurrency_limit, asio::any_io_executor executor,
           std::shared_ptr<QueueObserver> observer = nullptr);

  // A new shape or limit; waiting requests are dealt again into the new queues, and a raised limit dispatches.
  void configure(std::optional<QueuingConfiguration> queuing, int concurrency_limit);
  void set_concurrency_limit(int concurrency_limit);

  // Waits for seats until `deadline` at the latest.
  asio::awaitable<Admission> admit(std::uint64_t flow_hash, std::string flow_schema, WorkEstimate work,
                                   Clock::time_point deadline);
  // The request is done: its seats are freed, after its additional latency for its final seats.
  void finish(const std::shared_ptr<Request>& request);

  Stats stats() const;
  // The demand since the last call.
  SeatDemand take_seat_demand();

 private:
  using Doorbell = asio::experimental::concurrent_channel<void(std::error_code, bool)>;
  struct Queue {
    std::deque<std::shared_ptr<Request>> waiting;
    double next_dispatch_r = 0;  // seat-seconds of virtual time
    int executing_requests = 0;
    int waiting_seats = 0;
    int seats_in_use = 0;
  };

  void reshape_locked(std::optional<QueuingConfiguration> queuing);
  void advance_virtual_time_locked(Clock::time_point now);
  void note_demand_locked(Clock::time_point now);
  bool can_accommodate_locked(int seats) const;
  int choose_queue_locked(std::uint64_t flow_hash) const;
  void start_locked(const std::shared_ptr<Request>& request, Clock::time_point now);
  void dispatch_as_much_as_possible_locked(Clock::time_point now);
  void release_locked(Request& request, int seats, Clock::time_point now);
  int active_queues_locked() const;
  // The queue `request` was placed in, unless the queues were reshaped since.
  Queue* queue_of_locked(const Request& request);

  mutable std::mutex mutex_;
  const asio::any_io_executor executor_;
  const std::shared_ptr<QueueObserver> observer_;
  std::optional<QueuingConfiguration> queuing_;
  std::optional<Dealer> dealer_;
  int concurrency_limit_;
  std::vector<Queue> queues_;
  std::size_t robin_index_ = 0;
  std::uint64_t generation_ = 0;
  int seats_in_use_ = 0;
  int executing_requests_ = 0;
  int waiting_requests_ = 0;
  int waiting_seats_ = 0;
  double current_r_ = 0;
  Clock::time_point last_real_time_;
  // Seat demand integrals since take_seat_demand().
  Clock::time_point demand_since_;
  Clock::time_point demand_last_;
  double demand_integral_ = 0;
  double demand_square_integral_ = 0;
  double demand_high_watermark_ = 0;
};

}  // namespace kapi::flowcontrol

#pragma once
// The priority-and-fairness controller (kube's util/flowcontrol apf_controller): it follows the stored FlowSchemas
// and PriorityLevelConfigurations, keeps one QueueSet per Limited level, classifies each request and waits for its
// seats, rebalances the levels' limits every 10 seconds from their demand (borrowing), and marks FlowSchemas whose
// priority level does not exist as Dangling.
#include "server/flowcontrol/classifier.h"
#include "server/flowcontrol/concurrency_limits.h"
#include "server/flowcontrol/queue_set.h"
#include "server/flowcontrol/work_estimator.h"
#include "server/metrics/flowcontrol.h"
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/strand.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::flowcontrol {

// Where a request was classified: what the X-Kubernetes-PF-* headers name.
struct Classification {
  std::string flow_schema;
  std::string flow_schema_uid;
  std::string priority_level;
  std::string priority_level_uid;
};

// The outcome of admission. An admitted request calls finish() once it is served. A decision holds what its
// ending needs, so that a request ended late (its coroutine destroyed at shutdown) never needs the controller.
struct Decision {
  Classification classification;
  std::optional<RejectReason> rejected;
  bool exempt = false;
  WorkEstimate work;
  Clock::time_point started{};
  std::shared_ptr<QueueSet> queues;
  std::shared_ptr<QueueSet::Request> request;
  metrics::FlowControlFamilies* metrics = nullptr;  // the server's registry, which outlives every request
  bool finished = false;

  // Releases the request's seats; once only, and nothing for a refused request.
  void finish();
};

class Controller {
 public:
  // `server_concurrency_limit`: --max-requests-inflight + --max-mutating-requests-inflight, shared by all levels.
  Controller(int server_concurrency_limit, WorkEstimator estimator, metrics::FlowControlFamilies& metrics,
             asio::any_io_executor executor, base::Logger& logger);

  // Classifies the request and waits for its seats until `wait_deadline`.
  asio::awaitable<Decision> admit(const request::RequestInfo& info, const request::UserInfo& user,
                                  const http::QueryParams& query, Clock::time_point wait_deadline);
  // Follows the configuration and rebalances until `stopping` is set.
  void start(registry::Store& flow_schemas, registry::Store& priority_levels,
             std::shared_ptr<const std::atomic<bool>> stopping);
  // True once the controller classifies by the stored configuration: it has read every mandatory and suggested
  // object, which the config producer stores before the server is ready. Until then it classifies by the
  // mandatory objects alone, as kube imagines them (no UIDs). Stays true.
  bool read_stored_configuration() const { return read_stored_configuration_.load(); }

 private:
  // One level as the filter uses it; immutable once published, but for the QueueSet (thread-safe).
  struct Level {
    PriorityLevel config;
    LevelLimits limits;
    std::shared_ptr<QueueSet> queues;  // none for an Exempt level
  };
  struct Snapshot {
    std::vector<FlowSchema> schemas;  // in matching order, each with an existing level
    std::map<std::string, std::shared_ptr<const Level>, std::less<>> levels;
  };
  // What the strand keeps about a level between snapshots.
  struct LevelMemory {
    std::shared_ptr<QueueSet> queues;
    LevelLimits limits;
    double smoothed_demand = 0;
  };

  std::shared_ptr<const Snapshot> snapshot() const;
  // Builds and publishes the snapshot of the stored objects; on the strand.
  void rebuild();
  void rebalance();
  // Keeps `objects` (by name) as the store holds them, rebuilding after each change.
  // `listed` turns true once the first list is in.
  asio::awaitable<void> follow(registry::Store& store, std::map<std::string, boost::json::object>& objects,
                               bool& listed, std::string what, std::shared_ptr<const std::atomic<bool>> stopping);
  asio::awaitable<void> keep_rebalancing(std::shared_ptr<const std::atomic<bool>> stopping);
  asio::awaitable<void> update_dangling_conditions();
  // Runs update_dangling_conditions beside the watches, not in their way: each write is a round trip, and a first
  // start's twenty would hold back the events behind them (kube's controller writes them from its own worker).
  void update_dangling_conditions_aside();

  const int server_concurrency_limit_;
  const WorkEstimator estimator_;
  metrics::FlowControlFamilies& metrics_;
  const asio::any_io_executor executor_;
  asio::strand<asio::any_io_executor> strand_;
  base::Logger& logger_;

  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const Snapshot> snapshot_;

  // Owned by the strand.
  registry::Store* flow_schema_store_ = nullptr;
  std::map<std::string, boost::json::object> stored_flow_schemas_;
  std::map<std::string, boost::json::object> stored_levels_;
  std::map<std::string, LevelMemory> memory_;
  // Dangling is judged once both kinds are listed, as kube's controller waits for its informers' sync: before
  // the levels are in, every FlowSchema would look dangling, and each start would write their status twice.
  bool levels_listed_ = false;
  bool flow_schemas_listed_ = false;
  bool updating_conditions_ = false;
  bool conditions_outdated_ = false;
  std::atomic<bool> read_stored_configuration_ = false;
};

}  // namespace kapi::flowcontrol

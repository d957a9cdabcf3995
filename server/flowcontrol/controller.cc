#include "server/flowcontrol/controller.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/flowcontrol/bootstrap_configuration.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <numeric>

namespace kapi::flowcontrol {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// kube's borrowingAdjustmentPeriod.
constexpr auto kRebalancePeriod = 10s;

// Keeps the per-flow gauges of one priority level.
class LevelObserver final : public QueueObserver {
 public:
  LevelObserver(metrics::FlowControlFamilies& metrics, std::string level) : metrics_(metrics), level_(std::move(level)) {}
  void waiting(std::string_view flow_schema, int delta) override {
    metrics_.current_inqueue_requests.add({std::string(flow_schema), level_}, delta);
  }
  void executing(std::string_view flow_schema, int requests, int seats) override {
    if (requests != 0) metrics_.current_executing_requests.add({std::string(flow_schema), level_}, requests);
    if (seats != 0) metrics_.current_executing_seats.add({std::string(flow_schema), level_}, seats);
  }

 private:
  metrics::FlowControlFamilies& metrics_;
  const std::string level_;
};

struct DanglingCondition {
  std::string status, reason, message;
};

DanglingCondition dangling_condition(std::string_view level, bool dangling) {
  std::string quoted = json::serialize(json::value(json::string(level)));  // Go's %q of a plain name
  if (dangling)
    return {"True", "NotFound",
            "This FlowSchema references the PriorityLevelConfiguration object named " + quoted +
                " but there is no such object"};
  return {"False", "Found",
          "This FlowSchema references the PriorityLevelConfiguration object named " + quoted + " and it exists"};
}

bool has_condition(const json::object& flow_schema, const DanglingCondition& wanted) {
  const json::object* status = registry::fields::object_at(flow_schema, "status");
  const json::array* conditions = status ? registry::fields::array_at(*status, "conditions") : nullptr;
  if (!conditions) return false;
  for (const auto& value : *conditions) {
    if (!value.is_object()) continue;
    const json::object& condition = value.get_object();
    if (registry::fields::string_at(condition, "type") != "Dangling") continue;
    return registry::fields::string_at(condition, "status") == wanted.status &&
           registry::fields::string_at(condition, "reason") == wanted.reason &&
           registry::fields::string_at(condition, "message") == wanted.message;
  }
  return false;
}

void set_condition(json::object& flow_schema, const DanglingCondition& wanted) {
  json::object condition{{"type", "Dangling"},
                         {"status", wanted.status},
                         {"lastTransitionTime", registry::rfc3339_now()},
                         {"reason", wanted.reason},
                         {"message", wanted.message}};
  json::object& status = registry::fields::ensure_object(flow_schema, "status");
  json::array conditions;
  if (const json::array* old = registry::fields::array_at(status, "conditions"))
    for (const auto& value : *old)
      if (!value.is_object() || registry::fields::string_at(value.get_object(), "type") != "Dangling") conditions.push_back(value);
  conditions.push_back(std::move(condition));
  status["conditions"] = std::move(conditions);
}

// Whether every mandatory and suggested object is among those stored.
bool holds_bootstrap_configuration(const std::map<std::string, json::object>& levels,
                                   const std::map<std::string, json::object>& flow_schemas) {
  auto all_in = [](const std::vector<json::object>& wanted, const std::map<std::string, json::object>& stored) {
    return std::ranges::all_of(wanted, [&stored](const json::object& object) {
      return stored.contains(std::string(registry::meta_string(object, "name")));
    });
  };
  return all_in(mandatory_priority_levels(), levels) && all_in(suggested_priority_levels(), levels) &&
         all_in(mandatory_flow_schemas(), flow_schemas) && all_in(suggested_flow_schemas(), flow_schemas);
}

}  // namespace

Controller::Controller(int server_concurrency_limit, WorkEstimator estimator, metrics::FlowControlFamilies& metrics,
                       asio::any_io_executor executor, base::Logger& logger)
    : server_concurrency_limit_(server_concurrency_limit),
      estimator_(std::move(estimator)),
      metrics_(metrics),
      executor_(executor),
      strand_(asio::make_strand(executor)),
      logger_(logger) {
  rebuild();  // the mandatory configuration until the stored one is read
}

std::shared_ptr<const Controller::Snapshot> Controller::snapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

void Controller::rebuild() {
  std::vector<PriorityLevel> levels;
  for (const auto& [name, object] : stored_levels_) levels.push_back(priority_level_from_json(object));
  // kube imagines the mandatory levels that are not stored (yet, or any more).
  for (const auto& object : mandatory_priority_levels()) {
    PriorityLevel level = priority_level_from_json(object);
    if (!stored_levels_.contains(level.name)) levels.push_back(std::move(level));
  }
  const std::vector<LevelLimits> limits = nominal_limits(levels, server_concurrency_limit_);

  auto next = std::make_shared<Snapshot>();
  std::map<std::string, LevelMemory> memory;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    auto level = std::make_shared<Level>();
    level->config = levels[i];
    level->limits = limits[i];
    const std::string& name = level->config.name;
    LevelMemory remembered;
    if (auto it = memory_.find(name); it != memory_.end()) remembered = std::move(it->second);
    if (!level->config.exempt) {
      // A level keeps its queues (and whoever waits in them) across changes; its limit restarts from nominal
      // only when its bounds changed.
      if (remembered.queues) {
        const bool same_limits = remembered.limits.nominal == limits[i].nominal &&
                                 remembered.limits.min_current == limits[i].min_current &&
                                 remembered.limits.max_current == limits[i].max_current;
        int current = same_limits ? remembered.queues->stats().concurrency_limit : limits[i].nominal;
        remembered.queues->configure(level->config.queuing, current);
      } else {
        remembered.queues = std::make_shared<QueueSet>(level->config.queuing, limits[i].nominal, executor_,
                                                        std::make_shared<LevelObserver>(metrics_, name));
      }
      level->queues = remembered.queues;
      metrics_.current_limit_seats.set({name}, remembered.queues->stats().concurrency_limit);
    }
    remembered.limits = limits[i];
    metrics_.nominal_limit_seats.set({name}, limits[i].nominal);
    metrics_.lower_limit_seats.set({name}, limits[i].min_current);
    metrics_.upper_limit_seats.set({name}, limits[i].max_current);
    memory.emplace(name, std::move(remembered));
    next->levels.emplace(name, std::move(level));
  }
  memory_ = std::move(memory);

  // FlowSchemas whose level is not stored are left out (they are Dangling); the mandatory ones stand in for
  // missing exempt and catch-all, first and last.
  bool have_exempt = false, have_catch_all = false;
  for (const auto& [name, object] : stored_flow_schemas_) {
    FlowSchema schema = flow_schema_from_json(object);
    if (!stored_levels_.contains(schema.priority_level)) continue;
    have_exempt = have_exempt || schema.name == "exempt";
    have_catch_all = have_catch_all || schema.name == "catch-all";
    next->schemas.push_back(std::move(schema));
  }
  sort_for_matching(next->schemas);
  for (const auto& object : mandatory_flow_schemas()) {
    FlowSchema schema = flow_schema_from_json(object);
    if (schema.name == "exempt" && !have_exempt) next->schemas.insert(next->schemas.begin(), std::move(schema));
    else if (schema.name == "catch-all" && !have_catch_all) next->schemas.push_back(std::move(schema));
  }

  {
    std::lock_guard lock(snapshot_mutex_);
    snapshot_ = std::move(next);
  }
  if (!read_stored_configuration_.load() && holds_bootstrap_configuration(stored_levels_, stored_flow_schemas_))
    read_stored_configuration_.store(true);
}

void Controller::rebalance() {
  auto current = snapshot();
  std::vector<std::string> names;
  std::vector<AllocationClass> classes;
  int total = 0;
  for (const auto& [name, level] : current->levels) {
    LevelMemory& remembered = memory_[name];
    SeatDemand demand = level->queues ? level->queues->take_seat_demand() : SeatDemand{};
    remembered.smoothed_demand = smoothed_demand(demand, remembered.smoothed_demand);
    classes.push_back(allocation_class(level->limits, demand, remembered.smoothed_demand));
    names.push_back(name);
    total += level->limits.nominal;
  }
  const std::vector<int> allocation = allocate_concurrency(classes, total);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& level = current->levels.at(names[i]);
    if (!level->queues) continue;
    level->queues->set_concurrency_limit(allocation[i]);
    metrics_.current_limit_seats.set({names[i]}, allocation[i]);
  }
}

asio::awaitable<Decision> Controller::admit(const request::RequestInfo& info, const request::UserInfo& user,
                                            const http::QueryParams& query, Clock::time_point wait_deadline) {
  const std::shared_ptr<const Snapshot> current = snapshot();
  const RequestDigest digest{info, user};
  const FlowSchema* schema = &current->schemas.back();  // catch-all, should nothing match
  for (const auto& candidate : current->schemas)
    if (matches(candidate, digest)) {
      schema = &candidate;
      break;
    }
  const Level& level = *current->levels.at(schema->priority_level);

  Decision decision;
  decision.metrics = &metrics_;
  decision.classification = {schema->name, schema->uid, level.config.name, level.config.uid};
  // Label values inline at each use (metrics::LabelView): no vector built per request.
  if (level.config.exempt) {
    decision.exempt = true;
    decision.started = Clock::now();
    metrics_.dispatched_requests.inc({schema->name, level.config.name});
    metrics_.request_wait_duration.observe({"true", schema->name, level.config.name}, 0);
    metrics_.current_executing_requests.add({schema->name, level.config.name}, 1);
    co_return decision;
  }

  decision.work = estimator_.estimate(info, query, level.queues->stats().concurrency_limit);
  metrics_.work_estimated_seats.observe({schema->name, level.config.name}, decision.work.max_seats());
  const std::uint64_t hash = flow_hash(schema->name, flow_distinguisher(*schema, digest));
  auto pending = level.queues->admit(hash, schema->name, decision.work, wait_deadline);
  QueueSet::Admission admission = co_await std::move(pending);
  metrics_.request_wait_duration.observe({admission.rejected ? "false" : "true", schema->name, level.config.name},
                                         seconds(admission.waited));
  if (admission.rejected) {
    decision.rejected = admission.rejected;
    metrics_.rejected_requests.inc({schema->name, level.config.name, reason_label(*admission.rejected)});
    co_return decision;
  }
  decision.queues = level.queues;
  decision.request = std::move(admission.request);
  decision.started = Clock::now();
  metrics_.dispatched_requests.inc({schema->name, level.config.name});
  co_return decision;
}

void Decision::finish() {
  if (rejected || finished || !metrics) return;
  finished = true;
  metrics->request_execution.observe({classification.flow_schema, classification.priority_level, "regular"},
                                     seconds(Clock::now() - started));
  if (exempt) {
    metrics->current_executing_requests.add({classification.flow_schema, classification.priority_level}, -1);
    return;
  }
  queues->finish(request);
  request.reset();
}

void Controller::start(registry::Store& flow_schemas, registry::Store& priority_levels,
                       std::shared_ptr<const std::atomic<bool>> stopping) {
  flow_schema_store_ = &flow_schemas;
  auto log_failure = [this](std::string_view what) {
    return [this, what](std::exception_ptr error) {
      if (!error) return;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        logger_.error("priority and fairness: " + std::string(what) + " stopped: " + e.what());
      }
    };
  };
  asio::co_spawn(strand_, follow(priority_levels, stored_levels_, levels_listed_, "the priority levels", stopping),
                 log_failure("following priority levels"));
  asio::co_spawn(strand_,
                 follow(flow_schemas, stored_flow_schemas_, flow_schemas_listed_, "the flow schemas", stopping),
                 log_failure("following flow schemas"));
  asio::co_spawn(strand_, keep_rebalancing(stopping), log_failure("rebalancing"));
}

asio::awaitable<void> Controller::follow(registry::Store& store, std::map<std::string, json::object>& objects,
                                         bool& listed, std::string what,
                                         std::shared_ptr<const std::atomic<bool>> stopping) {
  registry::ReflectorHandlers handlers;
  handlers.replace = [this, &objects, &listed](std::vector<json::object> items,
                                               storage::Revision) -> asio::awaitable<void> {
    objects.clear();
    for (auto& object : items) {
      std::string name(registry::meta_string(object, "name"));
      objects.emplace(std::move(name), std::move(object));
    }
    listed = true;
    rebuild();
    update_dangling_conditions_aside();
    co_return;
  };
  handlers.apply = [this, &objects](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    std::string name(registry::meta_string(object, "name"));
    if (event.type == storage::WatchEventType::Deleted) objects.erase(name);
    else objects[std::move(name)] = std::move(object);
    rebuild();
    update_dangling_conditions_aside();
    co_return;
  };
  registry::ReflectorOptions options{std::move(what), std::chrono::seconds(1)};
  auto following = registry::reflect(store, std::move(handlers), std::move(options), stopping, logger_);
  co_await std::move(following);
}

asio::awaitable<void> Controller::keep_rebalancing(std::shared_ptr<const std::atomic<bool>> stopping) {
  while (!stopping->load()) {
    co_await base::sleep_for(kRebalancePeriod);
    if (!stopping->load()) rebalance();
  }
}

void Controller::update_dangling_conditions_aside() {
  asio::co_spawn(strand_, update_dangling_conditions(), [this](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      logger_.error(std::string("priority and fairness: updating the Dangling conditions failed: ") + e.what());
    }
  });
}

asio::awaitable<void> Controller::update_dangling_conditions() {
  if (!levels_listed_ || !flow_schemas_listed_) co_return;  // the later list brings this back
  // One writer at a time; a change meanwhile makes it look again.
  if (updating_conditions_ || !flow_schema_store_) {
    conditions_outdated_ = true;
    co_return;
  }
  updating_conditions_ = true;
  struct Done {
    bool& updating;
    ~Done() { updating = false; }  // on the strand, also when a write throws
  } done{updating_conditions_};
  do {
    conditions_outdated_ = false;
    std::vector<std::pair<std::string, DanglingCondition>> updates;
    for (const auto& [name, object] : stored_flow_schemas_) {
      FlowSchema schema = flow_schema_from_json(object);
      DanglingCondition wanted =
          dangling_condition(schema.priority_level, !stored_levels_.contains(schema.priority_level));
      if (!has_condition(object, wanted)) updates.emplace_back(name, std::move(wanted));
    }
    for (auto& [name, wanted] : updates) {
      registry::UpdateFunction update = [&wanted](const json::object* current) -> json::object {
        if (!current) throw apierrors::ApiError(apierrors::not_found("flowcontrol.apiserver.k8s.io", "flowschemas", ""));
        json::object object = *current;
        set_condition(object, wanted);
        return object;
      };
      registry::WriteOptions options;
      options.subresource = "status";
      try {
        auto pending = flow_schema_store_->update("", name, std::move(update), std::move(options));
        co_await std::move(pending);
      } catch (const apierrors::ApiError& error) {
        // Gone meanwhile, or refused: the watch brings the next state, and with it the next attempt.
        if (error.status().code != 404)
          logger_.warning("priority and fairness: updating the status of flowschema " + name + ": " +
                          error.status().message);
      }
    }
  } while (conditions_outdated_);
}

}  // namespace kapi::flowcontrol

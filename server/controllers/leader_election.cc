#include "server/controllers/leader_election.h"

#include "base/go_time.h"
#include "base/host_address.h"
#include "base/log.h"
#include "base/race.h"
#include "base/sleep.h"
#include "base/uuid.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>


#include <random>

namespace kapi::controllers {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// client-go's JitterFactor: a candidate waits between one and 2.2 retry periods between attempts to acquire.
constexpr double kJitterFactor = 1.2;

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::int64_t int_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_int64() ? value->as_int64() : 0;
}

// Sleeps for `duration` unless `stop` comes first; true when it slept the whole time.
asio::awaitable<bool> sleep_unless_stopped(Clock::duration duration, const base::StopSignal& stop) {
  auto sleeping = base::sleep_for(duration);
  auto stopped = stop.wait();
  auto racing = base::race(std::move(sleeping), std::move(stopped));
  const int winner = co_await std::move(racing);
  co_return winner == 0 && !stop.requested();
}

}  // namespace

std::string leader_election_identity() {
  return base::hostname() + "_" + base::new_uuid();
}

LeaderElector::LeaderElector(registry::Store& leases, LeaderElectionConfig config, base::Logger& logger)
    : leases_(leases), config_(std::move(config)), logger_(logger) {}

LeaderElector::Record LeaderElector::record_of(const json::object& lease) {
  Record record;
  const json::value* spec = lease.if_contains("spec");
  if (!spec || !spec->is_object()) return record;
  const json::object& fields = spec->as_object();
  record.holder = string_at(fields, "holderIdentity");
  record.lease_duration_seconds = int_at(fields, "leaseDurationSeconds");
  record.acquire_time = string_at(fields, "acquireTime");
  record.renew_time = string_at(fields, "renewTime");
  record.transitions = int_at(fields, "leaseTransitions");
  return record;
}

// LeaderElectionRecordToLeaseSpec.
json::object LeaderElector::spec_of(const Record& record) {
  json::object spec{{"holderIdentity", record.holder}, {"leaseDurationSeconds", record.lease_duration_seconds}};
  if (!record.acquire_time.empty()) spec["acquireTime"] = record.acquire_time;
  if (!record.renew_time.empty()) spec["renewTime"] = record.renew_time;
  spec["leaseTransitions"] = record.transitions;
  return spec;
}

bool LeaderElector::lease_valid(Clock::time_point now) const {
  return observed_ && observed_time_ + config_.lease_duration > now;
}

void LeaderElector::observe(Record record) {
  observed_ = std::move(record);
  observed_time_ = Clock::now();
}

asio::awaitable<bool> LeaderElector::update(const Record& record) {
  json::object lease = *lease_;
  lease["spec"] = spec_of(record);
  registry::UpdateFunction write = [&lease](const json::object*) { return lease; };
  try {
    auto updating =
        leases_.update(config_.lease_namespace, config_.lease_name, std::move(write), registry::WriteOptions{});
    const std::pair<std::string, bool> stored = co_await std::move(updating);
    lease_ = registry::parse_json_object(stored.first);
    co_return true;
  } catch (const apierrors::ApiError& error) {
    logger_.warning("leader election: updating lease " + config_.lease_namespace + "/" + config_.lease_name +
                    " failed: " + error.status().message);
  }
  co_return false;
}

asio::awaitable<bool> LeaderElector::try_acquire_or_renew() {
  const std::string now = base::micro_time_now();
  Record desired{
      .holder = config_.identity,
      .lease_duration_seconds = std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count(),
      .acquire_time = now,
      .renew_time = now,
      .transitions = 0};
  // 1. The leader renews optimistically over the Lease it last wrote.
  if (is_leader() && lease_valid(Clock::now()) && lease_) {
    desired.acquire_time = observed_->acquire_time;
    desired.transitions = observed_->transitions;
    const bool renewed = co_await update(desired);
    if (renewed) {
      observe(desired);
      co_return true;
    }
  }
  // 2. Read the Lease, or create it.
  std::optional<json::object> current;
  try {
    auto reading = leases_.get(config_.lease_namespace, config_.lease_name, "");
    registry::ReadObject read = co_await std::move(reading);
    current = registry::parse_json_object(read.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) {
      logger_.warning("leader election: reading lease " + config_.lease_namespace + "/" + config_.lease_name +
                      " failed: " + error.status().message);
      co_return false;
    }
  }
  if (!current) {
    json::object lease{{"apiVersion", "coordination.k8s.io/v1"},
                       {"kind", "Lease"},
                       {"metadata", json::object{{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
                       {"spec", spec_of(desired)}};
    try {
      auto creating = leases_.create(config_.lease_namespace, std::move(lease), registry::WriteOptions{});
      std::string stored = co_await std::move(creating);
      lease_ = registry::parse_json_object(stored);
    } catch (const apierrors::ApiError& error) {
      logger_.warning("leader election: creating lease " + config_.lease_namespace + "/" + config_.lease_name +
                      " failed: " + error.status().message);
      co_return false;
    }
    observe(desired);
    co_return true;
  }
  // 3. Someone else's Lease that has been renewed within the lease duration (as observed here) is left alone.
  lease_ = *current;
  const Record existing = record_of(*current);
  const json::value* spec = current->if_contains("spec");
  std::string raw = spec ? json::serialize(*spec) : std::string();
  if (raw != observed_raw_ || !observed_) {
    observe(existing);
    observed_raw_ = std::move(raw);
  }
  if (!existing.holder.empty() && lease_valid(Clock::now()) && !is_leader()) co_return false;
  // 4. Take it over (or renew it after the fast path failed).
  if (is_leader()) {
    desired.acquire_time = existing.acquire_time;
    desired.transitions = existing.transitions;
  } else {
    desired.transitions = existing.transitions + 1;
  }
  const bool written = co_await update(desired);
  if (!written) co_return false;
  observe(desired);
  co_return true;
}

asio::awaitable<bool> LeaderElector::acquire(const base::StopSignal& stop) {
  std::minstd_rand random(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.0, kJitterFactor);
  logger_.info("leader election: attempting to acquire lease " + config_.lease_namespace + "/" + config_.lease_name);
  while (!stop.requested()) {
    const bool acquired = co_await try_acquire_or_renew();
    if (acquired) {
      logger_.info("leader election: successfully acquired lease " + config_.lease_namespace + "/" +
                   config_.lease_name + " as " + config_.identity);
      co_return true;
    }
    const auto wait = std::chrono::duration_cast<Clock::duration>(config_.retry_period * (1.0 + jitter(random)));
    const bool slept = co_await sleep_unless_stopped(wait, stop);
    if (!slept) break;
  }
  co_return false;
}

asio::awaitable<void> LeaderElector::keep_renewing(const base::StopSignal& stop) {
  while (!stop.requested()) {
    // wait.PollImmediateUntil(retryPeriod, tryAcquireOrRenew, renewDeadline): each attempt is bounded by what is
    // left of the deadline, so a store that does not answer loses the lease too.
    const Clock::time_point deadline = Clock::now() + config_.renew_deadline;
    bool renewed = false;
    while (!renewed && !stop.requested() && Clock::now() < deadline) {
      auto attempt = [this, &renewed]() -> asio::awaitable<void> { renewed = co_await try_acquire_or_renew(); };
      auto attempting = attempt();
      auto timing_out = base::sleep_for(deadline - Clock::now());
      auto racing = base::race(std::move(attempting), std::move(timing_out));
      const int winner = co_await std::move(racing);
      if (winner == 1 || renewed) break;
      const Clock::duration left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) break;
      const bool slept = co_await sleep_unless_stopped(std::min<Clock::duration>(config_.retry_period, left), stop);
      if (!slept) co_return;
    }
    if (stop.requested()) co_return;
    if (!renewed) {
      logger_.warning("leader election: failed to renew lease " + config_.lease_namespace + "/" + config_.lease_name +
                      ": timed out waiting for the condition");
      observed_.reset();  // no longer the leader as far as this candidate knows
      co_return;
    }
    const bool slept = co_await sleep_unless_stopped(config_.retry_period, stop);
    if (!slept) co_return;
  }
}

}  // namespace kapi::controllers

#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection (LeaderElector with a
// LeaseLock) runs it for kube-controller-manager: a candidate takes the Lease when it is free or its holder has not
// renewed it for leaseDurationSeconds as this candidate observed it (local time since the record last changed, so
// clocks need not agree); the leader renews it every retry period and has lost it when no renewal succeeded within
// the renew deadline. Every write is conditional on the resourceVersion last read, so two candidates never both
// succeed; a new holder counts one more leaseTransition.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;
  std::string identity;  // holderIdentity: unique per candidate
  // kube-controller-manager's --leader-elect-lease-duration, --leader-elect-renew-deadline and
  // --leader-elect-retry-period.
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
};

// "<hostname>_<uuid>", kube-controller-manager's holder identity.
std::string leader_election_identity();

class LeaderElector {
 public:
  LeaderElector(registry::Store& leases, LeaderElectionConfig config, base::Logger& logger);

  // Tries every retry period (with client-go's jitter) until this candidate holds the Lease: true, or false once
  // `stop` is requested.
  asio::awaitable<bool> acquire(const base::StopSignal& stop);
  // Renews every retry period while leading; returns when a renewal did not succeed within the renew deadline (the
  // lease is lost) or `stop` is requested.
  asio::awaitable<void> keep_renewing(const base::StopSignal& stop);
  // tryAcquireOrRenew: one attempt to take or renew the Lease; false when another holder's lease is still valid or
  // a write failed.
  asio::awaitable<bool> try_acquire_or_renew();

  const LeaderElectionConfig& config() const { return config_; }

 private:
  struct Record {  // LeaderElectionRecord
    std::string holder;
    std::int64_t lease_duration_seconds = 0;
    std::string acquire_time;
    std::string renew_time;
    std::int64_t transitions = 0;
  };
  static Record record_of(const boost::json::object& lease);
  static boost::json::object spec_of(const Record& record);
  bool is_leader() const { return observed_ && observed_->holder == config_.identity; }
  bool lease_valid(std::chrono::steady_clock::time_point now) const;
  void observe(Record record);
  // Writes `record` over the Lease last read (conditional on its resourceVersion); false on a conflict.
  asio::awaitable<bool> update(const Record& record);

  registry::Store& leases_;
  LeaderElectionConfig config_;
  base::Logger& logger_;
  std::optional<boost::json::object> lease_;  // as last read or written, with its resourceVersion
  std::optional<Record> observed_;
  std::string observed_raw_;  // the observed Lease's spec as read, to notice any change
  std::chrono::steady_clock::time_point observed_time_;
};

}  // namespace kapi::controllers

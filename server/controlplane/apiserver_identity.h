#pragma once
// kube's API server identity (APIServerIdentity, on by default in 1.32): each server keeps a Lease
// kube-system/apiserver-<hash of its hostname>, labelled apiserver.kubernetes.io/identity=kube-apiserver and
// kubernetes.io/hostname=<hostname>, held as <lease name>_<uuid> for 3600 s and renewed every 10 s (k8s.io/apiserver
// server/config.go for the name, component-helpers' lease controller, controlplane/apiserver/server.go); and every
// server deletes the identity Leases of kube-system that expired, once at start and then hourly (apiserverleasegc),
// so the Leases name the servers that are alive.
#include "server/lifecycle.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace kapi::base {
class Logger;
}

namespace kapi::controlplane {

inline constexpr std::string_view kIdentityLeaseLabel = "apiserver.kubernetes.io/identity";
inline constexpr std::string_view kIdentityLeaseNamespace = "kube-system";

// kube's IdentityLeaseRenewIntervalPeriod, IdentityLeaseDurationSeconds and IdentityLeaseGCPeriod.
struct IdentityLeaseTiming {
  std::chrono::seconds renew_interval{10};
  std::int32_t lease_duration_seconds = 3600;
  std::chrono::seconds gc_period{3600};
};

// "apiserver-" + the lower-case unpadded base32 of the first 16 bytes of SHA-256 over the hostname and
// "kube-apiserver", each preceded by its length as 16 big-endian bits (cryptobyte's length-prefixed bytes).
std::string apiserver_identity(std::string_view hostname);

// The Lease as the lease controller writes it over `current` (null: none yet): its labels kept and ours set, the
// spec held by `holder` and renewed at `renew_time` (a metav1.MicroTime).
boost::json::object identity_lease(const boost::json::object* current, const std::string& name,
                                   const std::string& hostname, const std::string& holder,
                                   const std::string& renew_time, const IdentityLeaseTiming& timing);

// isLeaseExpired: no renewTime or duration, or renewed longer ago than its duration.
bool identity_lease_expired(const boost::json::object& lease, std::chrono::system_clock::time_point now);

// Creates this server's Lease, then renews it every renew_interval (every second while writes fail, e.g. before
// kube-system exists), until shutdown.
asio::awaitable<void> maintain_identity_lease(registry::Store& leases, std::string hostname, IdentityLeaseTiming timing,
                                              const server::Lifecycle& lifecycle, base::Logger& logger);

// Deletes expired identity Leases of kube-system at start and then every gc_period, until shutdown. A Lease is read
// again before it goes, and deleted only at the version found expired.
asio::awaitable<void> collect_expired_identity_leases(registry::Store& leases, IdentityLeaseTiming timing,
                                                      const server::Lifecycle& lifecycle, base::Logger& logger);

}  // namespace kapi::controlplane

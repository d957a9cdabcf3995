#pragma once
// kube-apiserver's lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go; --endpoint-reconciler-type=lease,
// the default), so that the `kubernetes` Service of `default` fronts every API server sharing the store:
// - each server keeps its own lease, <etcd prefix>/masterleases/<its IP>: an Endpoints naming the IP, written with a
//   15 s TTL and rewritten every 10 s (kube's DefaultEndpointReconcilerTTL and ...Interval);
// - after refreshing its lease, a server sets the `kubernetes` Endpoints to the leased IPs (one subset, addresses in
//   lexicographic order, the secure port as "https"), and the `kubernetes` EndpointSlice after them
//   (endpointsadapter.go);
// - a server that shuts down removes its lease and reconciles once more (kube's pre-shutdown hook), so it leaves
//   the Endpoints before it stops serving; one that dies leaves them when its lease expires.
// Every write is read-modify-write against the stored object, so servers reconciling at once converge.
#include "server/lifecycle.h"
#include "server/registry/store.h"
#include "storage/interface.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::apis::core {

// The servers' leases (kube's storageLeases) under `prefix` (e.g. "/registry/masterleases/").
class MasterLeases {
 public:
  MasterLeases(storage::Interface& storage, std::string prefix, std::chrono::seconds ttl)
      : storage_(storage), prefix_(std::move(prefix)), ttl_(ttl) {}

  // The IPs of the leases that have not expired (ListLeases), in key order.
  asio::awaitable<std::vector<std::string>> list();
  // Creates or rewrites `ip`'s lease, which resets its TTL (UpdateLease).
  asio::awaitable<void> update(const std::string& ip);
  // Deletes `ip`'s lease; a lease already gone is no error.
  asio::awaitable<void> remove(const std::string& ip);

 private:
  storage::Interface& storage_;
  std::string prefix_;
  std::chrono::seconds ttl_;
};

// The lease kube's UpdateLease writes over `current` (null: none yet): its subsets naming `ip`, its generation bumped
// (a write that changes nothing would not reset the TTL).
boost::json::object master_lease(const boost::json::object* current, const std::string& ip);

// The `kubernetes` Endpoints as doReconcile leaves `current` (null: none yet) for the leased `ips` and `ports`
// (EndpointPorts), the ports put right only when `reconcile_ports` (or the format was wrong); std::nullopt when
// `current` already has them (checkEndpointSubsetFormatWithLease) and the skip-mirror label.
std::optional<boost::json::object> reconciled_endpoints(const boost::json::object* current,
                                                        std::vector<std::string> ips, const boost::json::array& ports,
                                                        bool reconcile_ports);

struct LeaseEndpointReconcilerOptions {
  std::string ip;  // this server's advertise address
  int port = 6443;  // its secure port
  std::chrono::seconds interval{10};
};

class LeaseEndpointReconciler {
 public:
  LeaseEndpointReconciler(MasterLeases leases, registry::Store& endpoints, registry::Store& endpoint_slices,
                          LeaseEndpointReconcilerOptions options, base::Logger& logger);

  // ReconcileEndpoints every interval (every second while it fails) until shutdown begins, the first pass after
  // `first`. As kube's kubernetes service controller, the first pass puts the ports right and later ones leave them
  // as they are, so servers whose secure ports differ do not rewrite each other's.
  asio::awaitable<void> run(const server::Lifecycle& lifecycle, std::chrono::seconds first = std::chrono::seconds(0));
  // One pass of run(), its errors logged: how long until the next (the interval, or a second after a failure). The
  // bootstrap makes the first itself, so that it is done when that pass is, then hands over to run().
  asio::awaitable<std::chrono::seconds> pass();
  // One ReconcileEndpoints: this server's lease refreshed, then the Endpoints and EndpointSlice set to the leased
  // IPs. Nothing once remove_endpoints() was called; throws what storage or validation refuses.
  asio::awaitable<void> reconcile_endpoints();
  // A pass has ended with the Endpoints and the EndpointSlice naming this server, or with their validation
  // refusing its address (which retrying cannot change: a loopback --advertise-address, say).
  bool settled() const { return settled_; }
  // StopReconciling, then RemoveEndpoints: this server's lease goes and the Endpoints follow. Errors are logged.
  asio::awaitable<void> remove_endpoints();

 private:
  // doReconcile: the Endpoints and then the EndpointSlice set to the leased IPs. Throws on failure.
  asio::awaitable<void> reconcile(bool reconcile_ports);

  MasterLeases leases_;
  registry::Store& endpoints_;
  registry::Store& endpoint_slices_;
  LeaseEndpointReconcilerOptions options_;
  base::Logger& logger_;
  boost::json::array ports_;
  std::atomic<bool> stopped_{false};      // StopReconciling was called
  std::atomic<bool> reconciling_{false};  // run() is in a pass
  std::atomic<bool> settled_{false};
};

}  // namespace kapi::apis::core

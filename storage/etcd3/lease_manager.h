#pragma once
// Leases for writes with a TTL, shared between writes like kube-apiserver's leaseManager: attaching every TTL'd
// key (events, mostly) to its own lease would make etcd track one lease per object. A lease is reused while it
// outlives the requested TTL by no more than the reuse window (5% of the TTL, at most 60 s) and carries fewer than
// 1000 objects; a new one is granted with the window added to its TTL.
#include "storage/etcd3/client.h"

#include <asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

namespace kapi::storage::etcd3 {

struct LeaseReuse {
  std::chrono::seconds max_window{60};
  double window_fraction = 0.05;
  std::int64_t max_objects_per_lease = 1000;
};

class LeaseManager {
 public:
  LeaseManager(std::shared_ptr<Client> client, LeaseReuse reuse = {});

  // A lease that keeps a key alive at least `ttl` and at most `ttl` plus the reuse window.
  asio::awaitable<std::int64_t> lease_for(std::chrono::seconds ttl);

 private:
  std::chrono::seconds reuse_window(std::chrono::seconds ttl) const;

  std::shared_ptr<Client> client_;
  LeaseReuse reuse_;
  std::mutex mutex_;
  std::int64_t lease_id_ = 0;
  std::chrono::steady_clock::time_point lease_expiry_{};
  std::int64_t attached_objects_ = 0;
};

}  // namespace kapi::storage::etcd3

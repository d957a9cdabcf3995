#include "storage/etcd3/lease_manager.h"

#include <algorithm>

namespace kapi::storage::etcd3 {

LeaseManager::LeaseManager(std::shared_ptr<Client> client, LeaseReuse reuse)
    : client_(std::move(client)), reuse_(reuse) {}

std::chrono::seconds LeaseManager::reuse_window(std::chrono::seconds ttl) const {
  auto fraction = std::chrono::seconds(static_cast<std::int64_t>(reuse_.window_fraction * static_cast<double>(ttl.count())));
  return std::min(fraction, reuse_.max_window);
}

asio::awaitable<std::int64_t> LeaseManager::lease_for(std::chrono::seconds ttl) {
  const auto now = std::chrono::steady_clock::now();
  const auto window = reuse_window(ttl);
  {
    std::lock_guard lock(mutex_);
    const bool outlives_ttl = now + ttl < lease_expiry_;
    const bool within_window = now + ttl + window > lease_expiry_;
    // Every request counts against the lease, whether or not its write succeeds (as kube-apiserver does).
    ++attached_objects_;
    if (lease_id_ != 0 && outlives_ttl && within_window && attached_objects_ <= reuse_.max_objects_per_lease) {
      co_return lease_id_;
    }
  }
  // kube-apiserver holds its lock across the grant; concurrent writers here may each grant one instead, which
  // costs a spare lease, not correctness.
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl((ttl + window).count());
  auto granted = co_await client_->lease_grant(std::move(request));
  if (!granted.error().empty()) throw RpcError(grpc::StatusCode::UNKNOWN, "etcd lease grant: " + granted.error());
  std::lock_guard lock(mutex_);
  lease_id_ = granted.id();
  lease_expiry_ = now + ttl + window;
  attached_objects_ = 1;
  co_return granted.id();
}

}  // namespace kapi::storage::etcd3

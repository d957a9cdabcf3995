#pragma once
// The two duties kube-apiserver's service registry has beyond requests: keeping the IP and port allocators in
// step with the stored services (what kube's repair controllers and the allocators' own storage do), and the
// `kubernetes` service in `default` that fronts the API server itself (the bootstrap controller's; its endpoints are
// lease_endpoint_reconciler.h's).
#include "server/apis/core/service_allocator.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <memory>

namespace kapi::base {
class Logger;
}
namespace kapi::server {
class Lifecycle;
}

namespace kapi::apis::core {

// Lists the services (the allocator is ready after that), then follows their watch from the list's revision,
// relisting whenever the watch ends or expires, until `stopping` is set. Storage errors are logged and retried.
asio::awaitable<void> track_service_allocations(registry::Store& services, std::shared_ptr<ServiceAllocator> allocator,
                                                std::shared_ptr<const std::atomic<bool>> stopping,
                                                base::Logger& logger);

// The `kubernetes` service as kube's bootstrap controller keeps it: ClusterIP at the range's first address,
// port 443 ("https") to the secure port. Created when missing, its ports put right when they differ; retried
// while storage is unreachable, until shutdown.
boost::json::object kubernetes_service(const ServiceNetwork& network);
asio::awaitable<void> ensure_kubernetes_service(registry::Store& services, const ServiceNetwork& network,
                                                const server::Lifecycle& lifecycle, base::Logger& logger);

}  // namespace kapi::apis::core

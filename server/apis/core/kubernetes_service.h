#pragma once
// The `kubernetes` service in `default` that fronts the API server itself, as kube's bootstrap controller keeps it
// (its endpoints are lease_endpoint_reconciler.h's).
#include "server/apis/core/service_allocator.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

namespace kapi::base {
class Logger;
}
namespace kapi::server {
class Lifecycle;
}

namespace kapi::apis::core {

// The `kubernetes` service as kube's bootstrap controller keeps it: ClusterIP at the range's first address,
// port 443 ("https") to the secure port. Created when missing, its ports put right when they differ; retried
// while storage is unreachable, until shutdown.
boost::json::object kubernetes_service(const ServiceNetwork& network);
asio::awaitable<void> ensure_kubernetes_service(registry::Store& services, const ServiceNetwork& network,
                                                const server::Lifecycle& lifecycle, base::Logger& logger);

}  // namespace kapi::apis::core

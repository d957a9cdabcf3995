#pragma once
// kube's repair controllers for the service ranges (pkg/registry/core/service/ipallocator/controller/repair.go and
// portallocator/controller/repair.go): a pass reads each stored range, lists the services, rebuilds each bitmap
// from what the services hold and writes it back with compare-and-swap. A value held in the range that no service
// holds is kept for three passes before it is freed, as kube keeps it (the service may be on its way to storage
// through another server); a write that lost the race to an allocation fails the pass, which runs again later.
// The first pass creates the ranges: a server allocates nothing before it.
//
// What kube reports as events on the service (ClusterIPNotAllocated, ClusterIPAlreadyAllocated, ClusterIPOutOfRange
// and the node port ones) is logged here.
#include "server/apis/core/service_allocator.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::apis::core {

class ServiceAllocationRepair {
 public:
  // kube's numRepairsBeforeLeakCleanup.
  static constexpr int kPassesBeforeLeakCleanup = 3;

  ServiceAllocationRepair(registry::Store& services, ServiceAllocator& allocator, base::Logger& logger)
      : services_(services), allocator_(allocator), logger_(logger) {}

  // One pass over both ranges. Throws when it could not list or write (a conflict included).
  asio::awaitable<void> run_once();
  // Passes every `interval` (kube-apiserver's is 3 minutes) until `stopping`, a failed one logged.
  asio::awaitable<void> run(std::chrono::milliseconds interval, std::shared_ptr<const std::atomic<bool>> stopping);

 private:
  struct Range;
  asio::awaitable<void> repair(const Range& range, RangeSnapshot snapshot,
                               const std::vector<boost::json::object>& services);

  registry::Store& services_;
  ServiceAllocator& allocator_;
  base::Logger& logger_;
  // Per range: the passes a leaked value has left before it is freed.
  std::map<std::uint64_t, int> ip_leaks_;
  std::map<std::uint64_t, int> port_leaks_;
};

}  // namespace kapi::apis::core

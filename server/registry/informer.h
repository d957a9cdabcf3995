#pragma once
// client-go's informer with its lister, for what is read on every request: a resource's objects kept in memory by
// a reflector (reflector.h), so that a read costs a pointer copy where a list of the watch cache costs a scan under
// its lock and a copy of every object's reference. Admission reads its webhook configurations, policies and
// bindings this way, as kube's plugins read theirs from informers.
//
//  - Until start() is called and the first list is in (client-go's HasSynced), objects() lists the store itself
//    each time, so a source is never served an empty set it has not read.
//  - Every change (a list, an added, modified or deleted object) makes a new Objects with a higher version:
//    readers rebuild what they derive from the objects only when the version they derived it from is gone.
//    Each change copies every object, which suits resources of a few objects (configurations, policies), not
//    pods or quotas.
//
// Threads: objects() may be called from any thread and executor; the reflector runs on start()'s executor.
// Lifetime: the store must outlive the reflector, which ends at its next event or relist once `stopping` is set;
// the Informer itself may go before it.
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::registry {

class Informer {
 public:
  struct Objects {
    std::vector<boost::json::object> items;  // in key order: by namespace, then name
    // 0 when read from the store for want of a synced copy: nothing derived from it may be kept as current.
    std::uint64_t version = 0;
  };

  // A null store has no objects.
  explicit Informer(Store* store);

  void start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping,
             base::Logger& logger, std::string following);

  // The followed objects; null until the first list is in.
  std::shared_ptr<const Objects> synced() const;
  // synced(), or until then the store's objects as listed now (version 0).
  asio::awaitable<std::shared_ptr<const Objects>> objects() const;

 private:
  struct State;
  Store* store_;
  std::shared_ptr<State> state_;
};

}  // namespace kapi::registry

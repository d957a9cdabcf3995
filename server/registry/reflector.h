#pragma once
// client-go's Reflector (ListAndWatch) for what the server follows itself: the RBAC policy feed, the service
// allocations, the controllers. It lists a store and hands over every object, then watches from the list's
// revision and hands over each change. A watch that just ends is started again from the newest revision seen; one
// that expires or fails costs a list again a moment later, until `stopping` is set.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::registry {

struct ReflectorHandlers {
  // Every object a list returned, at its revision: what was known before is replaced. A follower that only reacts
  // to changes leaves it empty, and the list's objects are then not even parsed.
  std::function<asio::awaitable<void>(std::vector<boost::json::object> objects, storage::Revision revision)> replace;
  // One change (Added, Modified or Deleted) and its object.
  std::function<asio::awaitable<void>(const storage::WatchEvent& event, boost::json::object object)> apply;
};

struct ReflectorOptions {
  std::string following;  // what is followed, for the log: "following <it>: <error>"
  std::chrono::milliseconds relist_delay{500};
  // Applied to each object as it is read, before the handlers or a relist's vector keep it: a follower that reads
  // a few fields keeps only those (as kube's metadata-only informers), so relisting a large resource stays small.
  std::function<void(boost::json::object&)> trim;
};

asio::awaitable<void> reflect(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                              std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger);
// The same until `stop` is requested, which also ends a watch waiting for its next event: a controller whose term of
// leadership ends stops at once rather than at its resource's next change.
asio::awaitable<void> reflect(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                              std::shared_ptr<const base::StopSignal> stop, base::Logger& logger);

}  // namespace kapi::registry

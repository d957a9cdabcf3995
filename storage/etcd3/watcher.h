#pragma once
// Watches over etcd's Watch stream, like kube-apiserver's etcd3 watcher on top of clientv3: one gRPC stream per
// watch, events translated (and filtered by the predicate) the way watchChan.transform does, and a broken stream
// resumed transparently from the last revision seen, as clientv3 does. Resuming never loses or repeats an event:
// the new stream starts right after the last revision handed to the consumer's queue, and anything at or below
// it is dropped; when etcd has compacted that history the watch ends with Error(Expired).
#include "storage/etcd3/client.h"
#include "storage/interface.h"

#include <asio/awaitable.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::storage::etcd3 {

class WatchSession;

// The live watches of one store, for request_watch_progress().
class WatchRegistry {
 public:
  void add(const std::shared_ptr<WatchSession>& session);
  // Sends a WatchProgressRequest on every live watch that asked for progress notifications.
  void request_progress();

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<WatchSession>> sessions_;
};

// Starts a watch of `key` (a prefix ending in '/' when options.recursive). For resource_version "" or "0" the
// current state is read first and delivered as Added events. Returns once etcd has registered the watch; throws
// StorageError (InvalidArgument for a bad resource version or send_initial_events with one, Unreachable when no
// endpoint answers in time).
asio::awaitable<std::unique_ptr<WatchStream>> start_watch(std::shared_ptr<Client> client,
                                                          std::shared_ptr<WatchRegistry> registry, std::string key,
                                                          WatchOptions options);

}  // namespace kapi::storage::etcd3

#pragma once
// What the etcd cluster behind a client can be relied on for, found from its members' versions the way
// kube-apiserver's etcd feature support checker does (k8s.io/apiserver/pkg/storage/feature): a feature counts
// only once every endpoint has answered with a version that has it, and until then it does not.
//
// The one feature kapi asks about is kube's RequestWatchProgress: whether etcd answers a WatchProgressRequest only
// after it has sent the watch every event up to the revision it reports. Before etcd 3.4.31 and 3.5.13 it does
// not (etcd-io/etcd#15220): the answer leaves on the stream's control channel at the store's current revision
// while the watch may still be catching up, so a watch cache that believed it would skip the events it had not
// yet received. Debian 12 ships etcd 3.4.23.
//
// Threads: request_watch_progress() may be called from any thread; the check runs on the given executor until
// every endpoint has answered once, retrying every second.
#include "base/log.h"
#include "storage/etcd3/client.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <memory>
#include <string_view>

namespace kapi::storage::etcd3 {

// Whether an etcd of this version ("3.4.23") answers progress requests in order with its events.
bool orders_progress_responses(std::string_view version);

class FeatureSupport {
 public:
  // Starts checking the endpoints of `client` on `executor`. `logger` may be null; it must outlive the check.
  FeatureSupport(asio::any_io_executor executor, std::shared_ptr<Client> client, base::Logger* logger);
  // Stops the check; one in flight ends on its own (bounded by its timeout).
  ~FeatureSupport();
  FeatureSupport(const FeatureSupport&) = delete;
  FeatureSupport& operator=(const FeatureSupport&) = delete;

  // kube's storage.RequestWatchProgress: false until every endpoint has been found to order its answers.
  bool request_watch_progress() const { return state_->request_watch_progress.load(); }
  // Every endpoint has answered once: request_watch_progress() will not change any more.
  bool checked() const { return state_->checked.load(); }

 private:
  struct State {
    std::atomic<bool> request_watch_progress{false};
    std::atomic<bool> checked{false};
    std::atomic<bool> stopped{false};
  };
  static asio::awaitable<void> check(std::shared_ptr<State> state, std::shared_ptr<Client> client,
                                     base::Logger* logger);
  std::shared_ptr<State> state_;
};

}  // namespace kapi::storage::etcd3

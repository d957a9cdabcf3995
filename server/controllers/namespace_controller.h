#pragma once
// The namespace controller (kube-controller-manager's pkg/controller/namespace), run inside kapi because a
// kapi control plane has no controller manager: once a namespace is Terminating it deletes every object in it,
// reports progress in the namespace's status conditions as kube's deleter does, and when nothing is left removes
// the "kubernetes" finalizer through /finalize, which deletes the namespace.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

class NamespaceController {
 public:
  // Every namespaced resource's store, asked afresh on each pass (kube's deleter rediscovers the resources); custom
  // resources come and go, so each pass holds the stores it was given.
  using ContentStores = std::function<std::vector<std::shared_ptr<registry::Store>>()>;

  NamespaceController(registry::Store& namespaces, ContentStores content, base::Logger& logger,
                      std::shared_ptr<const base::StopSignal> stopping);

  // Follows the namespaces until `stopping` is requested, starting one finalizing task per terminating namespace.
  asio::awaitable<void> run();

 private:
  struct PassResult;

  // Empties and finalizes one namespace, retrying while content remains.
  asio::awaitable<void> finalize_until_done(std::string name);
  // One pass of kube's deleter: true when the namespace is finalized, gone, or not ours to finalize.
  asio::awaitable<bool> sync(const std::string& name);
  asio::awaitable<PassResult> delete_content(const std::string& name);
  asio::awaitable<void> update_conditions(const std::string& name, const PassResult& pass);
  asio::awaitable<void> remove_finalizer(const std::string& name);
  bool claim(const std::string& name);
  void release(const std::string& name);

  registry::Store& namespaces_;
  ContentStores content_;
  base::Logger& logger_;
  std::shared_ptr<const base::StopSignal> stopping_;
  std::mutex mutex_;
  std::set<std::string> finalizing_;  // namespaces with a running finalizing task
};

}  // namespace kapi::controllers

#pragma once
// The custom resources the API extensions server serves, as they come and go: it publishes each new set, and a
// controller that follows every resource (the garbage collector, kube's discovery-driven monitor resync) listens for
// as long as its term runs. The feed lives with the built-in APIs, so it is there before either side starts.
#include "server/registry/store.h"

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace kapi::controllers {

class CustomResourceFeed {
 public:
  // Each served custom resource's Store, kept alive with what it reads from (every served version).
  using Stores = std::vector<std::shared_ptr<registry::Store>>;
  using Listener = std::function<void(Stores)>;

  // Replaces the set and tells every listener. Listeners run under the feed's lock, so once a subscription is
  // gone its listener is neither running nor called again.
  void publish(Stores stores) {
    std::lock_guard lock(mutex_);
    current_ = std::move(stores);
    for (const auto& listener : listeners_) (*listener)(current_);
  }

  // Calls `listener` with the current set at once, then with each new one until the returned handle goes.
  [[nodiscard]] std::shared_ptr<void> subscribe(Listener listener) {
    auto entry = std::make_shared<Listener>(std::move(listener));
    std::lock_guard lock(mutex_);
    (*entry)(current_);
    listeners_.push_back(entry);
    return std::shared_ptr<void>(nullptr, [this, entry](void*) {
      std::lock_guard unsubscribing(mutex_);
      std::erase(listeners_, entry);
    });
  }

 private:
  std::mutex mutex_;
  Stores current_;
  std::vector<std::shared_ptr<Listener>> listeners_;
};

}  // namespace kapi::controllers

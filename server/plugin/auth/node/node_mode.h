#pragma once
// --authorization-mode=Node put together: the authorizer, its graph, and the feed that keeps the graph in step
// with the stored pods, persistent volumes and volume attachments (kube's graph_populator over informers).
#include "server/plugin/auth/node/node_authorizer.h"
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>

#include <array>
#include <atomic>
#include <memory>

namespace kapi::base { class Logger; }

namespace kapi::authorization::node {

class NodeMode {
 public:
  // pods, persistentvolumes, volumeattachments (the last may be null when not served).
  using Stores = std::array<registry::Store*, 3>;
  // The static rules are the bootstrap system:node role's (kube's bootstrappolicy.NodeRules).
  NodeMode(Stores stores, base::Logger& logger);

  std::shared_ptr<const Authorizer> authorizer() const { return authorizer_; }

  // Starts following the three resources; the feed runs until stop().
  void run(const asio::any_io_executor& executor);
  void stop() { stopping_->store(true); }

 private:
  Stores stores_;
  std::shared_ptr<Graph> graph_ = std::make_shared<Graph>();
  std::shared_ptr<const Authorizer> authorizer_;
  base::Logger& logger_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace kapi::authorization::node

#pragma once
// scheduling.k8s.io/v1: PriorityClasses, and kube's system classes the server keeps in place.
#include "server/apis/resource_storage.h"
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

namespace kapi::apis {

ResourceStorage priorityclasses();

// kube's post-start hook scheduling/bootstrap-system-priority-classes: creates system-node-critical and
// system-cluster-critical where missing (retrying until the store answers), then sets `done`.
asio::awaitable<void> ensure_system_priority_classes(registry::Store& priority_classes,
                                                     const server::Lifecycle& lifecycle, base::Logger& logger,
                                                     std::shared_ptr<std::atomic<bool>> done);

}  // namespace kapi::apis

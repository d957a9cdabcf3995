#pragma once
// scheduling.k8s.io/v1: PriorityClasses, and kube's system classes the server keeps in place.
#include "server/apis/resource_storage.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace kapi::base {
class Logger;
}
namespace kapi::server {
class Lifecycle;
}

namespace kapi::apis {

// The PriorityClasses marked globalDefault, as the Priority admission plugin's lister sees them: followed from the
// store (follow_default_priority_classes), read by the strategy to keep a second default out.
class DefaultPriorityClasses {
 public:
  void replace(std::map<std::string, std::int64_t> defaults);
  // `value` set: `name` is a default with that value; unset: it is not (or no longer exists).
  void set(const std::string& name, std::optional<std::int64_t> value);
  // getDefaultPriorityClass: the default with the lowest value, by name; nullopt when there is none.
  std::optional<std::string> lowest() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::int64_t> defaults_;
};

// Creating a second globalDefault class, or marking another one default, is refused with kube's 403 while
// `defaults` knows one.
ResourceStorage priorityclasses(std::shared_ptr<const DefaultPriorityClasses> defaults);
ResourceStorage priorityclasses();

// Keeps `defaults` in step with the store until `stopping` is set.
asio::awaitable<void> follow_default_priority_classes(registry::Store& priority_classes,
                                                      std::shared_ptr<DefaultPriorityClasses> defaults,
                                                      std::shared_ptr<const std::atomic<bool>> stopping,
                                                      base::Logger& logger);

// kube's post-start hook scheduling/bootstrap-system-priority-classes: creates system-node-critical and
// system-cluster-critical where missing (retrying until the store answers), then sets `done`.
asio::awaitable<void> ensure_system_priority_classes(registry::Store& priority_classes,
                                                     const server::Lifecycle& lifecycle, base::Logger& logger,
                                                     std::shared_ptr<std::atomic<bool>> done);

}  // namespace kapi::apis

#pragma once
// Keeps an RbacAuthorizer's policy in step with the stored roles and bindings (kube's RBAC listers): each of
// the four resources is followed by a reflector (registry/reflector.h); every change builds a new PolicySnapshot
// for the authorizer.
#include "server/authorization/rbac/rbac_authorizer.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

namespace kapi::base {
class Logger;
}

namespace kapi::authorization::rbac {

class PolicyFeed {
 public:
  // roles, clusterroles, rolebindings, clusterrolebindings.
  using Stores = std::array<registry::Store*, 4>;
  PolicyFeed(Stores stores, std::shared_ptr<RbacAuthorizer> authorizer, base::Logger& logger)
      : stores_(stores), authorizer_(std::move(authorizer)), logger_(logger) {}

  // Follows one resource until `stopping`; RbacMode::run starts one per store.
  asio::awaitable<void> follow(std::size_t index, std::shared_ptr<const std::atomic<bool>> stopping);
  // Whether every resource has been listed once (the policy is complete).
  bool synced() const;
  // The latest revision of resource `index` the policy reflects.
  storage::Revision observed_revision(std::size_t index) const;

 private:
  void replace(std::size_t index, std::map<std::string, boost::json::object> objects, storage::Revision revision);
  void apply(std::size_t index, const storage::WatchEvent& event, boost::json::object object);
  void publish();  // with mutex_ held

  Stores stores_;
  std::shared_ptr<RbacAuthorizer> authorizer_;
  base::Logger& logger_;
  mutable std::mutex mutex_;
  std::array<std::map<std::string, boost::json::object>, 4> objects_;  // by key, per resource
  std::array<bool, 4> listed_{};
  std::array<storage::Revision, 4> observed_{};
};

}  // namespace kapi::authorization::rbac

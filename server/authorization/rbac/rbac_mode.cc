#include "server/authorization/rbac/rbac_mode.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

namespace kapi::authorization::rbac {

RbacMode::RbacMode(PolicyFeed::Stores stores, base::Logger& logger)
    : stores_(stores), feed_(std::make_shared<PolicyFeed>(stores, authorizer_, logger)) {}

std::function<bool(const BootstrapRevisions&)> RbacMode::has_policy() const {
  return [feed = feed_](const BootstrapRevisions& revisions) {
    // The policy's stores are roles, clusterroles, rolebindings, clusterrolebindings (PolicyFeed::Stores).
    return feed->synced() && feed->observed_revision(0) >= revisions.roles &&
           feed->observed_revision(1) >= revisions.cluster_roles &&
           feed->observed_revision(2) >= revisions.role_bindings &&
           feed->observed_revision(3) >= revisions.cluster_role_bindings;
  };
}

void RbacMode::run(const asio::any_io_executor& executor) {
  for (std::size_t i = 0; i < stores_.size(); ++i)
    asio::co_spawn(executor, [feed = feed_, i, stopping = stopping_]() { return feed->follow(i, stopping); },
                   asio::detached);
}

}  // namespace kapi::authorization::rbac

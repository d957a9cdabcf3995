#include "server/authorization/rbac/rbac_mode.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>

namespace kapi::authorization::rbac {

RbacMode::RbacMode(PolicyFeed::Stores stores, base::Logger& logger)
    : stores_(stores), logger_(logger), feed_(std::make_shared<PolicyFeed>(stores, authorizer_, logger)) {}

server::healthz::Check RbacMode::readiness_check() const {
  return {"poststarthook/rbac/bootstrap-roles",
          [feed = feed_, bootstrap = bootstrap_]() -> std::optional<std::string> {
            // The policy's stores are roles, clusterroles, rolebindings, clusterrolebindings (PolicyFeed::Stores).
            if (bootstrap->done.load() && feed->synced() &&
                feed->observed_revision(1) >= bootstrap->cluster_roles.load() &&
                feed->observed_revision(3) >= bootstrap->cluster_role_bindings.load())
              return std::nullopt;
            return "not finished";
          }};
}

asio::awaitable<void> RbacMode::run(const server::Lifecycle& lifecycle) {
  const auto executor = co_await asio::this_coro::executor;
  for (std::size_t i = 0; i < stores_.size(); ++i)
    asio::co_spawn(executor, [feed = feed_, i, stopping = stopping_]() { return feed->follow(i, stopping); },
                   asio::detached);
  while (!lifecycle.shutdown_initiated()) {
    try {
      const BootstrapRevisions revisions = co_await ensure_bootstrap_policy(*stores_[1], *stores_[3]);
      bootstrap_->cluster_roles.store(revisions.cluster_roles);
      bootstrap_->cluster_role_bindings.store(revisions.cluster_role_bindings);
      bootstrap_->done.store(true);
      logger_.info("RBAC: bootstrap cluster roles and bindings are in place");
      co_return;
    } catch (const apierrors::ApiError& error) {
      logger_.warning("RBAC: creating the bootstrap policy failed, retrying: " + error.status().message);
    } catch (const std::exception& error) {
      logger_.warning(std::string("RBAC: creating the bootstrap policy failed, retrying: ") + error.what());
    }
    co_await base::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace kapi::authorization::rbac

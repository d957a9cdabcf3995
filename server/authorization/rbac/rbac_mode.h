#pragma once
// --authorization-mode=RBAC put together: the authorizer, the feed that keeps its policy in step with the stored
// roles and bindings, and the bootstrap policy created at start. Until the policy is listed and the bootstrap
// roles exist, /readyz fails its "poststarthook/rbac/bootstrap-roles" check, as kube-apiserver's does.
#include "server/authorization/rbac/bootstrap_policy.h"
#include "server/authorization/rbac/policy_feed.h"
#include "server/healthz/healthz.h"
#include "server/lifecycle.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <memory>

namespace kapi::authorization::rbac {

class RbacMode {
 public:
  RbacMode(PolicyFeed::Stores stores, base::Logger& logger);

  std::shared_ptr<const Authorizer> authorizer() const { return authorizer_; }
  std::shared_ptr<const RbacAuthorizer> rbac_authorizer() const { return authorizer_; }
  server::healthz::Check readiness_check() const;

  // Starts following the policy and creates the bootstrap roles (retrying while storage fails); the feed runs
  // until stop().
  asio::awaitable<void> run(const server::Lifecycle& lifecycle);
  void stop() { stopping_->store(true); }

 private:
  PolicyFeed::Stores stores_;
  base::Logger& logger_;
  std::shared_ptr<RbacAuthorizer> authorizer_ = std::make_shared<RbacAuthorizer>();
  std::shared_ptr<PolicyFeed> feed_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  // Where the bootstrap policy was stored, once it is; ready when the feed has seen those revisions.
  struct Bootstrap {
    std::atomic<storage::Revision> cluster_roles{0};
    std::atomic<storage::Revision> cluster_role_bindings{0};
    std::atomic<bool> done{false};  // set after the revisions
  };
  std::shared_ptr<Bootstrap> bootstrap_ = std::make_shared<Bootstrap>();
};

}  // namespace kapi::authorization::rbac

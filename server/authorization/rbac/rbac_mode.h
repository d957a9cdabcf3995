#pragma once
// --authorization-mode=RBAC put together: the authorizer and the feed that keeps its policy in step with the stored
// roles and bindings. The bootstrap policy is stored by the built-in APIs (reconciliation.h); their readiness check
// also waits, with RBAC authorization, until this authorizer holds it (has_policy).
#include "server/authorization/rbac/policy_feed.h"
#include "server/authorization/rbac/reconciliation.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <memory>

namespace kapi::authorization::rbac {

class RbacMode {
 public:
  RbacMode(PolicyFeed::Stores stores, base::Logger& logger);

  std::shared_ptr<const Authorizer> authorizer() const { return authorizer_; }
  std::shared_ptr<const RbacAuthorizer> rbac_authorizer() const { return authorizer_; }
  // Whether the authorizer's policy is listed and reflects the given revisions (callable from any thread).
  std::function<bool(const BootstrapRevisions&)> has_policy() const;

  // Starts following the policy; the feed runs until stop().
  void run(const asio::any_io_executor& executor);
  void stop() { stopping_->store(true); }

 private:
  PolicyFeed::Stores stores_;
  std::shared_ptr<RbacAuthorizer> authorizer_ = std::make_shared<RbacAuthorizer>();
  std::shared_ptr<PolicyFeed> feed_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace kapi::authorization::rbac

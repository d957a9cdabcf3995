#pragma once
// The service accounts controller (kube-controller-manager's pkg/controller/serviceaccount/
// serviceaccounts_controller.go), run inside kapi because a kapi control plane has no controller manager: every
// active namespace has a "default" ServiceAccount, made when the namespace appears and again when it is deleted.
// Without it the ServiceAccount admission plugin refuses every pod that names no account, as kube-apiserver
// without its controller manager does.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

class ServiceAccountsController {
 public:
  ServiceAccountsController(registry::Store& namespaces, registry::Store& service_accounts, base::Logger& logger,
                            std::shared_ptr<const base::StopSignal> stopping)
      : namespaces_(namespaces), service_accounts_(service_accounts), logger_(logger), stopping_(std::move(stopping)) {}

  // Follows namespaces and service accounts until `stopping` is requested.
  asio::awaitable<void> run();

 private:
  asio::awaitable<void> follow_namespaces();
  asio::awaitable<void> follow_service_accounts();
  // syncNamespace: creates "default" in `namespace_` unless it exists or the namespace is not active.
  asio::awaitable<void> ensure_default(std::string namespace_);

  registry::Store& namespaces_;
  registry::Store& service_accounts_;
  base::Logger& logger_;
  std::shared_ptr<const base::StopSignal> stopping_;
};

}  // namespace kapi::controllers

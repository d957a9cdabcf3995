#pragma once
// The authorizer --authorization-config builds (kube's pkg/kubeapiserver/authorizer/reload.go): system:masters first,
// then the configured authorizers in order (each counted in apiserver_authorization_decisions_total), and the whole
// chain built again when the file's content changes — checked every `reload_interval` (kube: every minute). A file
// that no longer reads, loads, validates or builds is logged and the chain in use kept, as kube does; as kube's,
// each outcome is counted in apiserver_authorization_config_controller_automatic_reload* (a success once at start,
// then a failure or a success for each change, and a failure each time the file cannot be read).
#include "base/log.h"
#include "server/authorization/authorization_config.h"
#include "server/metrics/authorization.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>

namespace kapi::authorization {

// The authorizers `config` names, behind the privileged group: `rbac` and `node` stand for RBAC and Node (their
// indexes are built once, whatever the file says later). Throws AuthorizationConfigError (an authorizer the caller
// has none for, or a webhook whose kubeconfig is unusable).
std::shared_ptr<const Authorizer> build_configured_authorizer(const AuthorizationConfiguration& config,
                                                              std::shared_ptr<const Authorizer> rbac,
                                                              std::shared_ptr<const Authorizer> node,
                                                              base::Logger* logger,
                                                              metrics::AuthorizationFamilies* metrics = nullptr);

// Where the reloads are counted (null: nowhere), labelled with the hash of the server's identity (kube's APIServerID).
struct ReloadMetrics {
  metrics::AuthorizationFamilies* families = nullptr;
  std::string apiserver_id;
};

class ReloadingAuthorizer final : public Authorizer {
 public:
  using Build = std::function<std::shared_ptr<const Authorizer>(const AuthorizationConfiguration&)>;
  // Loads the file now (throws AuthorizationConfigError), then watches it on `executor` for as long as the
  // authorizer lives.
  static std::shared_ptr<ReloadingAuthorizer> start(std::filesystem::path file, Build build,
                                                    asio::any_io_executor executor, base::Logger& logger,
                                                    std::chrono::milliseconds reload_interval = std::chrono::minutes(1),
                                                    ReloadMetrics metrics = {});

  Result authorize(const Attributes& attributes) const override { return current()->authorize(attributes); }
  bool decides_in_memory() const override { return current()->decides_in_memory(); }
  asio::awaitable<Result> authorize_async(const Attributes& attributes) const override;
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override {
    return current()->rules_for(user, namespace_);
  }

  struct State;
  explicit ReloadingAuthorizer(std::shared_ptr<State> state) : state_(std::move(state)) {}  // made by start()

 private:
  std::shared_ptr<const Authorizer> current() const;

  std::shared_ptr<State> state_;
};

}  // namespace kapi::authorization

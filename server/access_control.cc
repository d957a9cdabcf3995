#include "server/access_control.h"

#include "base/host_address.h"
#include "server/authorization/configured_authorizer.h"
#include "server/authorization/modes.h"
#include "server/authorization/webhook_authorizer.h"
#include "server/controlplane/apiserver_identity.h"
#include "server/startup_failure.h"

#include <algorithm>

namespace kapi::server {
namespace {

// The authorizer types in use: --authorization-mode's, or those of the --authorization-config file (RBAC and Node
// need their indexes whatever a reload of the file says later, as in kube).
std::vector<std::string> authorization_modes(const Options& options, base::Logger& logger) {
  if (options.authorization_config.empty()) return options.authorization_mode;
  try {
    std::vector<std::string> types;
    for (const auto& authorizer : authorization::load_authorization_configuration(options.authorization_config).authorizers)
      types.push_back(authorizer.type);
    return types;
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("invalid authorization config: ") + error.what());
  }
}

// Webhook, when --authorization-mode names it (BuiltInAuthorizationOptions.Validate's checks, then the
// --authorization-webhook-* flags as kube turns them into one webhook authorizer: failure policy NoOpinion, 30s).
std::shared_ptr<const authorization::Authorizer> webhook_authorizer_from(const Options& options,
                                                                         metrics::Registry& metrics,
                                                                         base::Logger& logger) {
  const auto& modes = options.authorization_mode;
  const bool webhook_mode = std::find(modes.begin(), modes.end(), "Webhook") != modes.end();
  if (webhook_mode && options.authorization_webhook_config_file.empty())
    throw authorization::AuthorizationModeError("authorization-mode Webhook's authorization config file not passed");
  if (!webhook_mode && !options.authorization_webhook_config_file.empty())
    throw authorization::AuthorizationModeError("cannot specify --authorization-webhook-config-file without mode Webhook");
  if (!webhook_mode) return nullptr;
  authorization::WebhookAuthorizerOptions webhook;
  webhook.target = kapi::webhook::load_kubeconfig(options.authorization_webhook_config_file);
  webhook.version = options.authorization_webhook_version;
  webhook.authorized_ttl = options.authorization_webhook_cache_authorized_ttl;
  webhook.unauthorized_ttl = options.authorization_webhook_cache_unauthorized_ttl;
  webhook.metrics = &metrics.authorization;
  return std::make_shared<authorization::WebhookAuthorizer>(std::move(webhook), &logger);
}

}  // namespace

std::shared_ptr<const authentication::RequestAuthenticator> authenticator_from(
    const Options& options, const std::filesystem::path& signing_key, apis::BuiltInApis& apis,
    asio::any_io_executor executor, metrics::Registry& metrics, base::Logger& logger) {
  try {
    authentication::AuthenticationOptions authentication_options;
    authentication_options.anonymous = options.anonymous_auth;
    authentication_options.anonymous_flag_given = options.anonymous_auth_given;
    authentication_options.request_header_ca_file = options.requestheader_client_ca_file;
    authentication_options.request_header = {options.requestheader_username_headers, options.requestheader_uid_headers,
                                             options.requestheader_group_headers,
                                             options.requestheader_extra_headers_prefix,
                                             options.requestheader_allowed_names};
    authentication_options.token_auth_file = options.token_auth_file;
    authentication_options.service_account_issuers = options.service_account_issuer;
    authentication_options.service_account_key_files = options.service_account_key_file;
    if (authentication_options.service_account_key_files.empty())
      authentication_options.service_account_key_files = {signing_key};
    authentication_options.api_audiences = options.api_audiences;
    authentication_options.service_account_objects = apis.object_getter();
    authentication_options.token_webhook.config_file = options.authentication_token_webhook_config_file;
    authentication_options.token_webhook.version = options.authentication_token_webhook_version;
    authentication_options.token_webhook.cache_ttl = options.authentication_token_webhook_cache_ttl;
    authentication_options.logger = &logger;
    // JWT authenticators, which fetch their issuers' keys on the reactor.
    if (!options.oidc.issuer_url.empty()) authentication_options.oidc = authentication::to_jwt_authenticator(options.oidc);
    authentication_options.authentication_config_file = options.authentication_config;
    authentication_options.executor = executor;
    authentication_options.metrics = &metrics.authentication;
    authentication_options.apiserver_id = controlplane::apiserver_identity(base::hostname());
    std::vector<std::string> warnings;
    auto authenticator = authentication::RequestAuthenticator::build(authentication_options, &warnings);
    for (const auto& warning : warnings) logger.warning(warning);
    return authenticator;
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("invalid authentication config: ") + error.what());
  }
}


std::unique_ptr<authorization::rbac::RbacMode> rbac_from(const Options& options, apis::BuiltInApis& apis,
                                                         base::Logger& logger) {
  const auto modes = authorization_modes(options, logger);
  if (std::find(modes.begin(), modes.end(), "RBAC") == modes.end()) return nullptr;
  constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
  authorization::rbac::PolicyFeed::Stores stores{
      apis.store(kRbacGroup, "roles"), apis.store(kRbacGroup, "clusterroles"), apis.store(kRbacGroup, "rolebindings"),
      apis.store(kRbacGroup, "clusterrolebindings")};
  if (std::find(stores.begin(), stores.end(), nullptr) != stores.end()) return nullptr;
  auto rbac = std::make_unique<authorization::rbac::RbacMode>(stores, logger);
  apis.wait_for_rbac_authorizer(rbac->has_policy());
  return rbac;
}

std::unique_ptr<authorization::node::NodeMode> node_mode_from(const Options& options, apis::BuiltInApis& apis,
                                                              base::Logger& logger) {
  const auto modes = authorization_modes(options, logger);
  if (std::find(modes.begin(), modes.end(), "Node") == modes.end()) return nullptr;
  authorization::node::NodeMode::Stores stores{apis.store("", "pods"), apis.store("", "persistentvolumes"),
                                               apis.store("storage.k8s.io", "volumeattachments")};
  return std::make_unique<authorization::node::NodeMode>(stores, logger);
}


std::shared_ptr<const authorization::Authorizer> authorizer_from(const Options& options,
                                                                 const authorization::rbac::RbacMode* rbac,
                                                                 const authorization::node::NodeMode* node,
                                                                 asio::any_io_executor executor,
                                                                 metrics::Registry& metrics, base::Logger& logger) {
  if (!options.authorization_config.empty()) {
    // BuiltInAuthorizationOptions.Validate, then the chain the file names, rebuilt when it changes.
    if (options.authorization_legacy_flags_set)
      fail_startup(logger, "--authorization-config can not be specified when --authorization-mode or "
                           "--authorization-webhook-* flags are defined");
    try {
      std::shared_ptr<const authorization::Authorizer> rbac_authorizer = rbac ? rbac->authorizer() : nullptr;
      std::shared_ptr<const authorization::Authorizer> node_authorizer = node ? node->authorizer() : nullptr;
      auto build = [rbac_authorizer, node_authorizer, &logger,
                    &metrics](const authorization::AuthorizationConfiguration& config) {
        return authorization::build_configured_authorizer(config, rbac_authorizer, node_authorizer, &logger,
                                                          &metrics.authorization);
      };
      return authorization::ReloadingAuthorizer::start(
          options.authorization_config, std::move(build), std::move(executor), logger,
          std::chrono::duration_cast<std::chrono::milliseconds>(options.authorization_config_reload_interval),
          {&metrics.authorization, controlplane::apiserver_identity(base::hostname())});
    } catch (const std::exception& error) {
      fail_startup(logger, std::string("invalid authorization config: ") + error.what());
    }
  }
  try {
    return authorization::build_authorizer(options.authorization_mode, rbac ? rbac->authorizer() : nullptr,
                                           node ? node->authorizer() : nullptr,
                                           webhook_authorizer_from(options, metrics, logger), &metrics.authorization);
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("invalid authorization config: ") + error.what());
  }
}

}  // namespace kapi::server

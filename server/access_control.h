#pragma once
// Who is asking and what they may do, from kapi-apiserver's flags: the authenticators (kube's
// BuiltInAuthenticationOptions.ToAuthenticationConfig) and the authorizers with the RBAC and Node indexes they read
// (BuiltInAuthorizationOptions.ToAuthorizationConfig, or the --authorization-config file reloaded when it
// changes). A flag or file they cannot use ends the start-up (StartupFailure) with kube's message.
#include "base/log.h"
#include "server/apis/builtin_apis.h"
#include "server/authentication/request_authenticator.h"
#include "server/authorization/rbac/rbac_mode.h"
#include "server/metrics/registry.h"
#include "server/options.h"
#include "server/plugin/auth/node/node_mode.h"

#include <asio/any_io_executor.hpp>

#include <filesystem>
#include <memory>

namespace kapi::server {

std::shared_ptr<const authentication::RequestAuthenticator> authenticator_from(
    const Options& options, const std::filesystem::path& signing_key, apis::BuiltInApis& apis,
    asio::any_io_executor executor, metrics::Registry& metrics, base::Logger& logger);

// RBAC, when the authorization modes name it, reads the policy the built-in rbac.authorization.k8s.io resources
// store; null otherwise.
std::unique_ptr<authorization::rbac::RbacMode> rbac_from(const Options& options, apis::BuiltInApis& apis,
                                                         base::Logger& logger);

// Node, when the authorization modes name it: kubelets' access follows the pods bound to them; null otherwise.
std::unique_ptr<authorization::node::NodeMode> node_mode_from(const Options& options, apis::BuiltInApis& apis,
                                                              base::Logger& logger);

std::shared_ptr<const authorization::Authorizer> authorizer_from(const Options& options,
                                                                 const authorization::rbac::RbacMode* rbac,
                                                                 const authorization::node::NodeMode* node,
                                                                 asio::any_io_executor executor,
                                                                 metrics::Registry& metrics, base::Logger& logger);

}  // namespace kapi::server

#pragma once
// --authorization-config (k8s.io/apiserver/pkg/apis/apiserver: AuthorizationConfiguration, v1 and v1beta1 as
// kube-apiserver 1.32 accepts them): the authorizers in order — Node, RBAC, AlwaysAllow, AlwaysDeny and any number
// of Webhooks, each webhook with its name, timeout, SAR versions, failure policy, cache TTLs, connection and CEL
// matchConditions — decoded strictly, defaulted and validated as kube does (ValidateAuthorizationConfiguration, its
// field paths and wording).
#include "server/authorization/webhook_authorizer.h"
#include "server/validation/field_error.h"

#include <boost/json/array.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::authorization {

// Compared as kube's reload compares a file it read again with the one in use (reflect.DeepEqual).
struct WebhookConfiguration {
  std::chrono::nanoseconds timeout{0};
  std::string subject_access_review_version;
  std::string match_condition_subject_access_review_version;
  std::string failure_policy;
  std::chrono::nanoseconds authorized_ttl{0};
  std::chrono::nanoseconds unauthorized_ttl{0};
  bool cache_authorized_requests = true;
  bool cache_unauthorized_requests = true;
  std::string connection_type;                       // KubeConfigFile or InClusterConfig
  std::optional<std::string> kube_config_file;
  std::vector<std::string> match_conditions;         // the expressions
  friend bool operator==(const WebhookConfiguration&, const WebhookConfiguration&) = default;
};

struct AuthorizerConfiguration {
  std::string type;
  std::string name;
  std::optional<WebhookConfiguration> webhook;
  friend bool operator==(const AuthorizerConfiguration&, const AuthorizerConfiguration&) = default;
};

struct AuthorizationConfiguration {
  std::vector<AuthorizerConfiguration> authorizers;
  friend bool operator==(const AuthorizationConfiguration&, const AuthorizationConfiguration&) = default;
};

// The file cannot be used: `what()` says why as kube does (a decoding error, or the validation errors aggregated
// as field.ErrorList.ToAggregate prints them).
class AuthorizationConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Decodes (YAML or JSON, unknown fields refused), defaults and validates. Throws AuthorizationConfigError.
AuthorizationConfiguration parse_authorization_configuration(std::string_view text);
AuthorizationConfiguration load_authorization_configuration(const std::filesystem::path& path);

// ValidateAuthorizationConfiguration on a decoded and defaulted configuration.
validation::ErrorList validate_authorization_configuration(const AuthorizationConfiguration& config);

// The webhook's matchConditions compiled with kube's authorization CEL environment (`request`: the v1
// SubjectAccessReviewSpec), as the matcher WebhookAuthorizerOptions::matches wants; null without conditions.
// Compilation errors are validation errors, so this only throws for expressions validation would refuse.
std::function<MatchOutcome(const boost::json::object& review)> compile_match_conditions(
    const std::vector<std::string>& expressions, const validation::Path& path, validation::ErrorList* errors);

// The options of one Webhook authorizer of the configuration, counted in `metrics` (may be null). Throws
// AuthorizationConfigError for a kubeconfig it cannot use (InClusterConfig is refused: kapi has no in-cluster
// credentials).
WebhookAuthorizerOptions webhook_options(const AuthorizerConfiguration& authorizer,
                                         metrics::AuthorizationFamilies* metrics = nullptr);

}  // namespace kapi::authorization

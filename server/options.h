#pragma once
// kapi-apiserver's command line. Flags keep kube-apiserver's names and defaults wherever kapi has the feature,
// so a user can switch between the two; kapi's own flags are marked (kapi) in --help.
#include "server/audit/options.h"
#include "server/authentication/authentication_config.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::server {

struct Options {
  // Serving.
  std::string bind_address = "0.0.0.0";
  int secure_port = 6443;
  int insecure_port = 0;  // (kapi) plain HTTP on loopback, for local benchmarks; 0 = off
  std::string insecure_bind_address = "127.0.0.1";
  std::filesystem::path tls_cert_file;
  std::filesystem::path tls_private_key_file;
  std::filesystem::path client_ca_file;
  std::filesystem::path cert_dir;  // default <data-dir>/pki
  std::string advertise_address;
  int reactor_threads = 0;  // (kapi) 0 = one per core

  // Storage.
  std::filesystem::path data_dir = "kapi-data";  // (kapi) the embedded store lives here
  std::vector<std::string> etcd_servers;
  std::string etcd_prefix = "/registry";
  std::filesystem::path etcd_cafile, etcd_certfile, etcd_keyfile;
  std::chrono::nanoseconds etcd_compaction_interval = std::chrono::minutes(5);
  std::chrono::nanoseconds embedded_compaction_interval = std::chrono::minutes(5);
  std::filesystem::path encryption_provider_config;
  std::string storage_media_type = "application/vnd.kubernetes.protobuf";

  // Services.
  std::string service_cluster_ip_range = "10.0.0.0/24";
  std::string service_node_port_range = "30000-32767";

  // Limits and timeouts.
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  bool enable_priority_and_fairness = true;
  std::chrono::nanoseconds request_timeout = std::chrono::minutes(1);
  std::chrono::nanoseconds read_header_timeout = std::chrono::seconds(32);  // (kapi) Go server's value
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(90);         // (kapi) Go server's value
  std::chrono::nanoseconds write_stall_timeout = std::chrono::minutes(1);   // (kapi) as --request-timeout
  bool disable_http2_serving = false;
  int http2_max_streams_per_connection = 1000;  // kube-apiserver's; 0: Go's default, 250
  double goaway_chance = 0;
  std::chrono::nanoseconds shutdown_delay_duration = std::chrono::seconds(0);
  std::chrono::nanoseconds shutdown_timeout = std::chrono::seconds(60);  // (kapi) bound on draining
  std::size_t max_request_body_bytes = 3 << 20;
  std::size_t max_request_header_bytes = 1 << 20;

  // Authentication.
  bool anonymous_auth = true;
  bool anonymous_auth_given = false;  // kube refuses the flag with an AuthenticationConfiguration's `anonymous`
  std::filesystem::path token_auth_file;
  // JWT authentication: an AuthenticationConfiguration file, or one issuer from the --oidc-* flags.
  std::filesystem::path authentication_config;
  authentication::OidcFlags oidc;
  // Webhook token authentication (--authentication-token-webhook-*): off without a config file.
  std::filesystem::path authentication_token_webhook_config_file;
  std::chrono::nanoseconds authentication_token_webhook_cache_ttl = std::chrono::minutes(2);
  std::string authentication_token_webhook_version = "v1";
  // Service account tokens. kube-apiserver requires an issuer and keys; kapi defaults to kubeadm's issuer and
  // the sa.key pair it generates in --cert-dir.
  std::vector<std::string> service_account_issuer = {"https://kubernetes.default.svc.cluster.local"};
  std::vector<std::filesystem::path> service_account_key_file;  // default: the signing key
  std::filesystem::path service_account_signing_key_file;       // default: <cert-dir>/sa.key
  std::vector<std::string> api_audiences;                       // default: the issuers
  std::chrono::nanoseconds service_account_max_token_expiration{0};
  // Request-header (front proxy) authentication, on when the CA file is given; kube-apiserver's lists default empty.
  std::filesystem::path requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;
  std::vector<std::string> requestheader_username_headers;
  std::vector<std::string> requestheader_uid_headers;
  std::vector<std::string> requestheader_group_headers;
  std::vector<std::string> requestheader_extra_headers_prefix;
  // The aggregator's client certificate towards extension API servers; by default the generated
  // front-proxy-client.crt/.key in --cert-dir.
  std::filesystem::path proxy_client_cert_file;
  std::filesystem::path proxy_client_key_file;
  // The kubelet client of pods/log, exec, attach, portforward and nodes/proxy.
  std::filesystem::path kubelet_client_certificate;
  std::filesystem::path kubelet_client_key;
  std::filesystem::path kubelet_certificate_authority;
  std::vector<std::string> kubelet_preferred_address_types = {"Hostname", "InternalDNS", "InternalIP", "ExternalDNS",
                                                              "ExternalIP"};
  std::chrono::nanoseconds kubelet_timeout{std::chrono::seconds(5)};

  // Authorization.
  // RBAC by default (kube-apiserver's own default is AlwaysAllow; every real cluster runs RBAC).
  std::vector<std::string> authorization_mode = {"RBAC"};
  // The Webhook mode's --authorization-webhook-* flags (kube's defaults).
  std::filesystem::path authorization_webhook_config_file;
  std::string authorization_webhook_version = "v1beta1";
  std::chrono::nanoseconds authorization_webhook_cache_authorized_ttl = std::chrono::minutes(5);
  std::chrono::nanoseconds authorization_webhook_cache_unauthorized_ttl = std::chrono::seconds(30);
  // --authorization-config: the AuthorizationConfiguration file, exclusive with the flags above (whether any of them
  // was given at all is kept), reloaded when it changes.
  std::filesystem::path authorization_config;
  bool authorization_legacy_flags_set = false;
  std::chrono::nanoseconds authorization_config_reload_interval = std::chrono::minutes(1);
  // Admission (kube's AdmissionOptions): plugins beyond the default set, plugins taken out of it, and the
  // AdmissionConfiguration file with the plugins' configurations.
  std::vector<std::string> enable_admission_plugins;
  std::vector<std::string> disable_admission_plugins;
  std::filesystem::path admission_control_config_file;
  // DefaultTolerationSeconds: how long a pod stays on a not-ready or unreachable node.
  std::int64_t default_not_ready_toleration_seconds = 300;
  std::int64_t default_unreachable_toleration_seconds = 300;

  // kube-controller-manager's controllers run in-process (server/controllers/manager.h). --controllers unset: every
  // controller on the embedded store, none with --etcd-servers (a kube-controller-manager is expected there).
  std::optional<std::vector<std::string>> controllers;
  bool leader_elect = true;
  std::chrono::nanoseconds leader_elect_lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds leader_elect_renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds leader_elect_retry_period = std::chrono::seconds(2);
  std::filesystem::path root_ca_file;  // default: the client CA (the generated CA unless --client-ca-file)

  // Filters.
  std::vector<std::string> cors_allowed_origins;
  std::vector<std::string> strict_transport_security_directives;

  // Audit (--audit-*, kube's defaults).
  audit::AuditOptions audit;

  // Diagnostics.
  int verbosity = 0;
  bool enable_testing_endpoints = false;  // (kapi, hidden) /debug/kapi/* for the integration tests
  bool show_help = false;
};

class OptionsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws OptionsError with pflag's wording ("unknown flag: --x", "invalid argument ...").
Options parse_options(int argc, const char* const* argv);
// The --controllers list in effect: the flag's, else its default for the chosen store.
std::vector<std::string> controller_selection(const Options& options);
std::string usage();

}  // namespace kapi::server

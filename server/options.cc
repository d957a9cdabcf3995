#include "server/options.h"

#include "base/duration.h"
#include "server/apis/core/service_allocator.h"
#include "server/controllers/manager.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>
#include <sstream>
#include <utility>

namespace kapi::server {
namespace {

struct Flag {
  std::string name;
  std::string help;
  bool is_bool = false;
  bool hidden = false;
  std::function<bool(std::string_view)> set;  // false: the value does not parse
};

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

template <typename Int>
std::function<bool(std::string_view)> integer(Int& target) {
  return [&target](std::string_view v) {
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), target);
    return ec == std::errc() && ptr == v.data() + v.size();
  };
}

std::function<bool(std::string_view)> real(double& target) {
  return [&target](std::string_view v) {
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), target);
    return ec == std::errc() && ptr == v.data() + v.size();
  };
}

// A legacy authorization flag (--authorization-mode, --authorization-webhook-*): kube refuses it beside
// --authorization-config, given at all, whatever its value.
std::function<bool(std::string_view)> legacy_authorization(Options& o, std::function<bool(std::string_view)> set) {
  return [&o, set = std::move(set)](std::string_view v) { return o.authorization_legacy_flags_set = true, set(v); };
}

std::function<bool(std::string_view)> text(std::string& target) {
  return [&target](std::string_view v) { return target = std::string(v), true; };
}

std::function<bool(std::string_view)> path(std::filesystem::path& target) {
  return [&target](std::string_view v) { return target = std::string(v), true; };
}

// A string flag whose absence differs from an empty value (kube defaults some --oidc-* flags by whether they were set).
std::function<bool(std::string_view)> optional_text(std::optional<std::string>& target) {
  return [&target](std::string_view v) { return target = std::string(v), true; };
}

// cliflag's MapStringStringNoSplit: each use adds one key=value; a repeated key takes the later value.
std::function<bool(std::string_view)> key_value(std::vector<std::pair<std::string, std::string>>& target) {
  return [&target](std::string_view v) {
    const auto equals = v.find('=');
    if (equals == std::string_view::npos) return false;
    std::string key(v.substr(0, equals)), value(v.substr(equals + 1));
    auto same = std::find_if(target.begin(), target.end(), [&](const auto& pair) { return pair.first == key; });
    if (same != target.end()) same->second = std::move(value);
    else target.emplace_back(std::move(key), std::move(value));
    return true;
  };
}

std::function<bool(std::string_view)> list(std::vector<std::string>& target) {
  return [&target](std::string_view v) { return target = split_list(v), true; };
}

// pflag's stringArray: each use of the flag adds one value.
template <typename Item>
std::function<bool(std::string_view)> each(std::vector<Item>& target) {
  return [&target, first = std::make_shared<bool>(true)](std::string_view v) {
    if (std::exchange(*first, false)) target.clear();  // the first use replaces the default
    target.emplace_back(std::string(v));
    return true;
  };
}

std::function<bool(std::string_view)> duration(std::chrono::nanoseconds& target) {
  return [&target](std::string_view v) {
    auto parsed = base::parse_go_duration(v);
    if (!parsed) return false;
    target = *parsed;
    return true;
  };
}

std::function<bool(std::string_view)> optional_list(std::optional<std::vector<std::string>>& target) {
  return [&target](std::string_view v) { return target = split_list(v), true; };
}

std::function<bool(std::string_view)> boolean(bool& target) {
  return [&target](std::string_view v) {
    if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return target = true, true;
    if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") return target = false, true;
    return false;
  };
}

// A text flag whose value must parse as `parse` parses it.
template <typename Parse>
std::function<bool(std::string_view)> checked_text(std::string& target, Parse parse) {
  return [&target, parse](std::string_view v) {
    if (!parse(v)) return false;
    target = std::string(v);
    return true;
  };
}

// AuditBatchOptions.AddFlags and AuditTruncateOptions.AddFlags, for --audit-log-* and --audit-webhook-*.
std::vector<Flag> audit_backend_flags(const std::string& plugin, audit::BatchOptions& batch,
                                      audit::TruncateOptions& truncate) {
  const std::string prefix = "audit-" + plugin + "-";
  return {
      {prefix + "mode", "Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.", false, false, text(batch.mode)},
      {prefix + "batch-buffer-size", "The size of the buffer to store events before batching and writing. Only used in batch mode.", false, false, integer(batch.config.buffer_size)},
      {prefix + "batch-max-size", "The maximum size of a batch. Only used in batch mode.", false, false, integer(batch.config.max_batch_size)},
      {prefix + "batch-max-wait", "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode.", false, false, duration(batch.config.max_batch_wait)},
      {prefix + "batch-throttle-enable", "Whether batching throttling is enabled. Only used in batch mode.", true, false, boolean(batch.config.throttle_enable)},
      {prefix + "batch-throttle-qps", "Maximum average number of batches per second. Only used in batch mode.", false, false, real(batch.config.throttle_qps)},
      {prefix + "batch-throttle-burst", "Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.", false, false, integer(batch.config.throttle_burst)},
      {prefix + "truncate-enabled", "Whether event and batch truncating is enabled.", true, false, boolean(truncate.enabled)},
      {prefix + "truncate-max-batch-size", "Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.", false, false, integer(truncate.config.max_batch_size)},
      {prefix + "truncate-max-event-size", "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.", false, false, integer(truncate.config.max_event_size)},
  };
}

std::vector<Flag> flags_for(Options& o) {
  std::vector<Flag> flags{
      {"bind-address", "The IP address on which to listen for the --secure-port port.", false, false, text(o.bind_address)},
      {"secure-port", "The port on which to serve HTTPS with authentication and authorization.", false, false, integer(o.secure_port)},
      {"insecure-port", "(kapi) Port for plain HTTP bound to --insecure-bind-address (loopback only), for local benchmarks. 0 disables it.", false, false, integer(o.insecure_port)},
      {"insecure-bind-address", "(kapi) Loopback address for --insecure-port.", false, false, text(o.insecure_bind_address)},
      {"tls-cert-file", "File containing the default x509 Certificate for HTTPS. Generated into --cert-dir when empty.", false, false, path(o.tls_cert_file)},
      {"tls-private-key-file", "File containing the default x509 private key matching --tls-cert-file.", false, false, path(o.tls_private_key_file)},
      {"client-ca-file", "Client certificates signed by one of the authorities in this file are authenticated (CN = user, O = groups). Defaults to the generated CA.", false, false, path(o.client_ca_file)},
      {"cert-dir", "The directory where generated TLS certs and the admin kubeconfig are written. Defaults to <data-dir>/pki.", false, false, path(o.cert_dir)},
      {"advertise-address", "This server's address in the kubernetes Endpoints (through its master lease), the generated admin kubeconfig and serving certificate.", false, false, text(o.advertise_address)},
      {"reactor-threads", "(kapi) Reactor threads, each with an io_context of its own; 0 means one per core.", false, false, integer(o.reactor_threads)},
      {"data-dir", "(kapi) Directory of the embedded store (used when --etcd-servers is empty).", false, false, path(o.data_dir)},
      {"etcd-servers", "List of etcd servers to connect with (scheme://ip:port), comma separated. Empty: the embedded store.", false, false, list(o.etcd_servers)},
      {"etcd-prefix", "The prefix to prepend to all resource paths in etcd.", false, false, text(o.etcd_prefix)},
      {"etcd-cafile", "SSL Certificate Authority file used to secure etcd communication.", false, false, path(o.etcd_cafile)},
      {"etcd-certfile", "SSL certification file used to secure etcd communication.", false, false, path(o.etcd_certfile)},
      {"etcd-keyfile", "SSL key file used to secure etcd communication.", false, false, path(o.etcd_keyfile)},
      {"etcd-compaction-interval", "The interval of compaction requests. If 0, compaction requests are disabled.", false, false, duration(o.etcd_compaction_interval)},
      {"storage-media-type", "The media type to use to store objects in storage. Custom resources are stored as application/json whatever it says; either form is read. Supported media types: [application/json, application/vnd.kubernetes.protobuf]", false, false, checked_text(o.storage_media_type, [](std::string_view v) { return v == "application/json" || v == "application/vnd.kubernetes.protobuf"; })},
      {"encryption-provider-config", "The file containing configuration for encryption providers to be used for storing secrets in etcd", false, false, path(o.encryption_provider_config)},
      {"embedded-compaction-interval", "(kapi) The interval at which the embedded store compacts old revisions. If 0, it does not.", false, false, duration(o.embedded_compaction_interval)},
      {"service-cluster-ip-range", "A CIDR notation IP range from which to assign service cluster IPs (IPv4, prefix /12 to /30).", false, false, checked_text(o.service_cluster_ip_range, apis::core::parse_service_cidr)},
      {"service-node-port-range", "A port range to reserve for services with NodePort visibility. Example: '30000-32767'. Inclusive at both ends of the range.", false, false, checked_text(o.service_node_port_range, apis::core::parse_port_range)},
      {"max-requests-inflight", "The maximum number of non-mutating requests in flight at a given time. 0 means no limit.", false, false, integer(o.max_requests_inflight)},
      {"max-mutating-requests-inflight", "The maximum number of mutating requests in flight at a given time. 0 means no limit.", false, false, integer(o.max_mutating_requests_inflight)},
      {"enable-priority-and-fairness", "If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness", true, false, boolean(o.enable_priority_and_fairness)},
      {"request-timeout", "The default duration a handler must keep a request open before timing it out.", false, false, duration(o.request_timeout)},
      {"read-header-timeout", "(kapi) How long a client may take to send a request's headers.", false, true, duration(o.read_header_timeout)},
      {"idle-timeout", "(kapi) How long an idle keep-alive connection stays open.", false, true, duration(o.idle_timeout)},
      {"write-stall-timeout", "(kapi) How long a response may wait for its client to read any of it before the server gives up on it.", false, true, duration(o.write_stall_timeout)},
      {"disable-http2-serving", "If true, HTTP2 serving will be disabled [default=false]", true, false, boolean(o.disable_http2_serving)},
      {"http2-max-streams-per-connection", "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.", false, false, integer(o.http2_max_streams_per_connection)},
      {"goaway-chance", "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests won't be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Clusters with single apiservers, or which don't use a load balancer, should NOT enable this. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.", false, false, real(o.goaway_chance)},
      {"shutdown-delay-duration", "Time to delay the termination: /readyz fails during it while requests are still served.", false, false, duration(o.shutdown_delay_duration)},
      {"shutdown-timeout", "(kapi) How long in-flight requests may take to finish during shutdown.", false, false, duration(o.shutdown_timeout)},
      {"anonymous-auth", "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.", true, false, [&o, set = boolean(o.anonymous_auth)](std::string_view v) { o.anonymous_auth_given = true; return set(v); }},
      {"token-auth-file", "If set, the file that will be used to secure the secure port of the API server via token authentication.", false, false, path(o.token_auth_file)},
      {"authentication-config", "File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Note: This feature is in Beta since v1.30 and is enabled by default.", false, false, path(o.authentication_config)},
      {"oidc-issuer-url", "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).", false, false, text(o.oidc.issuer_url)},
      {"oidc-client-id", "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.", false, false, text(o.oidc.client_id)},
      {"oidc-ca-file", "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.", false, false, text(o.oidc.ca_file)},
      {"oidc-username-claim", "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details.", false, false, optional_text(o.oidc.username_claim)},
      {"oidc-username-prefix", "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.", false, false, optional_text(o.oidc.username_prefix)},
      {"oidc-groups-claim", "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.", false, false, text(o.oidc.groups_claim)},
      {"oidc-groups-prefix", "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.", false, false, optional_text(o.oidc.groups_prefix)},
      {"oidc-signing-algs", "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1.", false, false, list(o.oidc.signing_algs)},
      {"oidc-required-claim", "A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.", false, false, key_value(o.oidc.required_claims)},
      {"authentication-token-webhook-config-file", "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.", false, false, path(o.authentication_token_webhook_config_file)},
      {"authentication-token-webhook-cache-ttl", "The duration to cache responses from the webhook token authenticator.", false, false, duration(o.authentication_token_webhook_cache_ttl)},
      {"authentication-token-webhook-version", "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.", false, false, text(o.authentication_token_webhook_version)},
      {"service-account-issuer", "Identifier of the service account token issuer: the iss claim of issued tokens. Repeat the flag to accept tokens of earlier issuers too; the first one issues.", false, false, each(o.service_account_issuer)},
      {"service-account-key-file", "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. Defaults to --service-account-signing-key-file.", false, false, each(o.service_account_key_file)},
      {"service-account-signing-key-file", "Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. Defaults to sa.key in --cert-dir.", false, false, path(o.service_account_signing_key_file)},
      {"api-audiences", "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. Defaults to the --service-account-issuer values.", false, false, list(o.api_audiences)},
      {"service-account-max-token-expiration", "The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.", false, false, duration(o.service_account_max_token_expiration)},
      {"requestheader-client-ca-file", "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.", false, false, path(o.requestheader_client_ca_file)},
      {"proxy-client-cert-file", "Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins. It is expected that this cert includes a signature from the CA in the --requestheader-client-ca-file flag. That CA is published in the 'extension-apiserver-authentication' configmap in the kube-system namespace. Components receiving calls from kube-aggregator should use that CA to perform their half of the mutual TLS verification.", false, false, path(o.proxy_client_cert_file)},
      {"proxy-client-key-file", "Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.", false, false, path(o.proxy_client_key_file)},
      {"kubelet-client-certificate", "Path to a client cert file for TLS.", false, false, path(o.kubelet_client_certificate)},
      {"kubelet-client-key", "Path to a client key file for TLS.", false, false, path(o.kubelet_client_key)},
      {"kubelet-certificate-authority", "Path to a cert file for the certificate authority.", false, false, path(o.kubelet_certificate_authority)},
      {"kubelet-preferred-address-types", "List of the preferred NodeAddressTypes to use for kubelet connections.", false, false, list(o.kubelet_preferred_address_types)},
      {"kubelet-timeout", "Timeout for kubelet operations.", false, false, duration(o.kubelet_timeout)},
      {"requestheader-allowed-names", "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.", false, false, list(o.requestheader_allowed_names)},
      {"requestheader-username-headers", "List of request headers to inspect for usernames. X-Remote-User is common.", false, false, list(o.requestheader_username_headers)},
      {"requestheader-uid-headers", "List of request headers to inspect for UIDs. X-Remote-Uid is suggested.", false, false, list(o.requestheader_uid_headers)},
      {"requestheader-group-headers", "List of request headers to inspect for groups. X-Remote-Group is suggested.", false, false, list(o.requestheader_group_headers)},
      {"requestheader-extra-headers-prefix", "List of request header prefixes to inspect. X-Remote-Extra- is suggested.", false, false, list(o.requestheader_extra_headers_prefix)},
      {"authorization-mode", "Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,Node,RBAC,Webhook.", false, false, legacy_authorization(o, list(o.authorization_mode))},
      {"authorization-config", "File with Authorization Configuration to configure the authorizer chain. Requires feature gate StructuredAuthorizationConfiguration. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.", false, false, path(o.authorization_config)},
      {"authorization-config-reload-interval", "(kapi) How often the --authorization-config file is checked for changes (kube-apiserver: every minute).", false, true, duration(o.authorization_config_reload_interval)},
      {"authorization-webhook-config-file", "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.", false, false, legacy_authorization(o, path(o.authorization_webhook_config_file))},
      {"authorization-webhook-version", "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.", false, false, legacy_authorization(o, text(o.authorization_webhook_version))},
      {"authorization-webhook-cache-authorized-ttl", "The duration to cache 'authorized' responses from the webhook authorizer.", false, false, legacy_authorization(o, duration(o.authorization_webhook_cache_authorized_ttl))},
      {"authorization-webhook-cache-unauthorized-ttl", "The duration to cache 'unauthorized' responses from the webhook authorizer.", false, false, legacy_authorization(o, duration(o.authorization_webhook_cache_unauthorized_ttl))},
      {"cors-allowed-origins", "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression.", false, false, list(o.cors_allowed_origins)},
      {"strict-transport-security-directives", "List of directives for HSTS, comma separated.", false, false, list(o.strict_transport_security_directives)},
      {"enable-admission-plugins", "admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest, CertificateSubjectRestriction, DefaultIngressClass, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota). Comma-delimited list of admission plugins: AlwaysAdmit, AlwaysDeny, AlwaysPullImages, CertificateApproval, CertificateSigning, CertificateSubjectRestriction, ClusterTrustBundleAttest, DefaultIngressClass, DefaultStorageClass, DefaultTolerationSeconds, DenyServiceExternalIPs, EventRateLimit, ExtendedResourceToleration, ImagePolicyWebhook, LimitPodHardAntiAffinityTopology, LimitRanger, MutatingAdmissionPolicy, MutatingAdmissionWebhook, NamespaceAutoProvision, NamespaceExists, NamespaceLifecycle, NodeRestriction, OwnerReferencesPermissionEnforcement, PersistentVolumeClaimResize, PodNodeSelector, PodSecurity, PodTolerationRestriction, Priority, ResourceQuota, RuntimeClass, ServiceAccount, StorageObjectInUseProtection, TaintNodesByCondition, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook. The order of plugins in this flag does not matter.", false, false, list(o.enable_admission_plugins)},
      {"disable-admission-plugins", "admission plugins that should be disabled although they are in the default enabled plugins list. The order of plugins in this flag does not matter.", false, false, list(o.disable_admission_plugins)},
      {"default-not-ready-toleration-seconds", "Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.", false, false, integer(o.default_not_ready_toleration_seconds)},
      {"default-unreachable-toleration-seconds", "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.", false, false, integer(o.default_unreachable_toleration_seconds)},
      {"admission-control-config-file", "File with admission control configuration.", false, false, path(o.admission_control_config_file)},
      {"audit-policy-file", "Path to the file that defines the audit policy configuration.", false, false, path(o.audit.policy_file)},
      {"audit-log-path", "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.", false, false, path(o.audit.log.path)},
      {"audit-log-maxsize", "The maximum size in megabytes of the audit log file before it gets rotated.", false, false, integer(o.audit.log.max_size_mb)},
      {"audit-log-maxbackup", "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.", false, false, integer(o.audit.log.max_backups)},
      {"audit-log-maxage", "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.", false, false, integer(o.audit.log.max_age_days)},
      {"audit-log-compress", "If set, the rotated log files will be compressed using gzip compression.", true, false, boolean(o.audit.log.compress)},
      {"audit-log-format", "Format of saved audits. \"legacy\" indicates 1-line text format for each event. \"json\" indicates structured json format. Known formats are legacy,json.", false, false, text(o.audit.log.format)},
      {"audit-log-version", "API group and version used for serializing audit events written to log.", false, false, text(o.audit.log.version)},
      {"audit-webhook-config-file", "Path to a kubeconfig formatted file that defines the audit webhook configuration.", false, false, path(o.audit.webhook.config_file)},
      {"audit-webhook-initial-backoff", "The amount of time to wait before retrying the first failed request.", false, false, duration(o.audit.webhook.initial_backoff)},
      {"audit-webhook-version", "API group and version used for serializing audit events written to webhook.", false, false, text(o.audit.webhook.version)},
      {"controllers", controllers::controllers_flag_help(), false, false, optional_list(o.controllers)},
      {"leader-elect", "Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.", true, false, boolean(o.leader_elect)},
      {"leader-elect-lease-duration", "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled.", false, false, duration(o.leader_elect_lease_duration)},
      {"leader-elect-renew-deadline", "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled.", false, false, duration(o.leader_elect_renew_deadline)},
      {"leader-elect-retry-period", "The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled.", false, false, duration(o.leader_elect_retry_period)},
      {"root-ca-file", "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle. (kapi) Published in every namespace's kube-root-ca.crt ConfigMap; defaults to the client CA (the generated CA unless --client-ca-file).", false, false, path(o.root_ca_file)},
      {"v", "number for the log level verbosity", false, false, integer(o.verbosity)},
      {"enable-testing-endpoints", "(kapi) Serve /debug/kapi/* for the integration tests.", true, true, boolean(o.enable_testing_endpoints)},
      {"help", "help for kapi-apiserver", true, false, boolean(o.show_help)},
  };
  for (Flag& flag : audit_backend_flags("log", o.audit.log.batch, o.audit.log.truncate)) flags.push_back(std::move(flag));
  for (Flag& flag : audit_backend_flags("webhook", o.audit.webhook.batch, o.audit.webhook.truncate))
    flags.push_back(std::move(flag));
  return flags;
}

}  // namespace

Options parse_options(int argc, const char* const* argv) {
  Options options;
  auto flags = flags_for(options);
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h") arg = "--help";
    if (!arg.starts_with("-") || arg == "-" || arg == "--")
      throw OptionsError("unexpected argument \"" + std::string(arg) + "\": kapi-apiserver takes flags only");
    arg.remove_prefix(arg.starts_with("--") ? 2 : 1);
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (auto eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    auto flag = std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.name == name; });
    if (flag == flags.end()) throw OptionsError("unknown flag: --" + std::string(name));
    if (!value) {
      if (flag->is_bool) {
        value = "true";
      } else {
        if (i + 1 >= argc) throw OptionsError("flag needs an argument: --" + std::string(name));
        value = argv[++i];
      }
    }
    if (!flag->set(*value))
      throw OptionsError("invalid argument \"" + std::string(*value) + "\" for \"--" + std::string(name) + "\" flag");
  }
  if (options.cert_dir.empty()) options.cert_dir = options.data_dir / "pki";
  if (options.service_account_issuer.empty())
    throw OptionsError("--service-account-issuer must not be empty");
  if (options.api_audiences.empty()) options.api_audiences = options.service_account_issuer;
  // kube's RequestHeaderAuthenticationOptions.Validate.
  for (const auto& [flag, values] : {std::pair{"requestheader-username-headers", &options.requestheader_username_headers},
                                     {"requestheader-uid-headers", &options.requestheader_uid_headers},
                                     {"requestheader-group-headers", &options.requestheader_group_headers},
                                     {"requestheader-extra-headers-prefix", &options.requestheader_extra_headers_prefix},
                                     {"requestheader-allowed-names", &options.requestheader_allowed_names}})
    for (const auto& value : *values)
      if (value.find_first_not_of(" \t\n\v\f\r") == std::string::npos)
        throw OptionsError("empty value in \"" + std::string(flag) + "\"");
  // kube's validateOIDCOptions.
  if (auto errors = authentication::validate_oidc_flags(options.oidc, !options.authentication_config.empty()); !errors.empty())
    throw OptionsError(errors.front());
  if (options.goaway_chance < 0 || options.goaway_chance > 0.02)
    throw OptionsError("--goaway-chance can not be less than 0 or greater than 0.02");
  if (options.secure_port < 0 || options.secure_port > 65535 || options.insecure_port < 0 || options.insecure_port > 65535)
    throw OptionsError("--secure-port and --insecure-port must be between 0 and 65535");
  // kube-controller-manager's Validate (one error as itself, several as an aggregate's "[a, b]").
  if (options.controllers) {
    const std::vector<std::string> errors = controllers::validate_controller_selection(*options.controllers);
    if (errors.size() == 1) throw OptionsError(errors.front());
    if (!errors.empty()) {
      std::string all;
      for (const auto& error : errors) all += (all.empty() ? "[" : ", ") + error;
      throw OptionsError(all + "]");
    }
  }
  // client-go's NewLeaderElector checks, with its wording.
  if (options.leader_elect) {
    if (options.leader_elect_lease_duration <= options.leader_elect_renew_deadline)
      throw OptionsError("leaseDuration must be greater than renewDeadline");
    if (options.leader_elect_renew_deadline <=
        std::chrono::duration_cast<std::chrono::nanoseconds>(options.leader_elect_retry_period * 1.2))
      throw OptionsError("renewDeadline must be greater than retryPeriod*JitterFactor");
    if (options.leader_elect_lease_duration < std::chrono::seconds(1))
      throw OptionsError("leaseDuration must be greater than zero");
    if (options.leader_elect_renew_deadline <= std::chrono::nanoseconds::zero())
      throw OptionsError("renewDeadline must be greater than zero");
    if (options.leader_elect_retry_period <= std::chrono::nanoseconds::zero())
      throw OptionsError("retryPeriod must be greater than zero");
  }
  return options;
}

std::vector<std::string> controller_selection(const Options& options) {
  if (options.controllers) return *options.controllers;
  if (options.etcd_servers.empty()) return {"*"};
  return {};
}

std::string usage() {
  Options defaults;
  std::ostringstream out;
  out << "kapi-apiserver: a Kubernetes API server.\n\nUsage:\n  kapi-apiserver [flags]\n\nFlags:\n";
  for (const auto& flag : flags_for(defaults)) {
    if (flag.hidden) continue;
    out << "      --" << flag.name << (flag.is_bool ? "" : " value") << "\n          " << flag.help << "\n";
  }
  return out.str();
}

}  // namespace kapi::server

#include "server/admission/config.h"
#include "server/plugin/admission/plugins.h"
#include "server/plugin/admission/resourcequota/evaluators.h"
#include "server/registry/store.h"
#include "server/apiserver.h"
#include "server/access_control.h"
#include "server/startup_failure.h"

#include "base/duration.h"
#include "base/host_address.h"
#include "base/log.h"
#include "base/sleep.h"
#include "filters/chain.h"
#include "server/chain/server_chain.h"
#include "server/chain/testing_endpoints.h"
#include "server/controlplane/apiserver_identity.h"
#include "server/controlplane/cluster_authentication_trust.h"
#include "server/encryptionconfig/encryption_config.h"
#include "server/healthz/healthz.h"
#include "server/http/http_server.h"
#include "server/lifecycle.h"
#include "server/metrics/registry.h"
#include "server/pki/pem_io.h"
#include "server/pki/pki.h"
#include "server/aggregator/aggregator_apis.h"
#include "server/apiextensions/apiextensions_apis.h"
#include "server/apis/builtin_apis.h"
#include "server/audit/setup.h"
#include "server/flowcontrol/controller.h"
#include "server/storage_backend.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <thread>

namespace kapi::server {
namespace {

using namespace std::chrono_literals;

// Options → config: what the flags make of the host, the PKI, the reactor and the store.

std::string advertise_host(const Options& options) {
  if (!options.advertise_address.empty()) return options.advertise_address;
  if (options.bind_address == "0.0.0.0" || options.bind_address == "::") return "127.0.0.1";
  return options.bind_address;
}

// The address the `kubernetes` endpoints lead to, as kube-apiserver's DefaultAdvertiseAddress chooses it:
// --advertise-address, else the bind address unless it is unspecified or loopback, else the host's first
// non-loopback IPv4 address; "" when there is none (endpoints may not name a loopback address).
std::string advertise_ip(const Options& options) {
  if (!options.advertise_address.empty()) return options.advertise_address;
  const bool unspecified = options.bind_address == "0.0.0.0" || options.bind_address == "::";
  if (!unspecified && !options.bind_address.starts_with("127.") && options.bind_address != "::1")
    return options.bind_address;
  return base::first_host_ipv4();
}

// What the extension-apiserver-authentication ConfigMap publishes (kube's ClusterAuthenticationInfo).
controlplane::ClusterAuthenticationInfo cluster_authentication_info(const Options& options,
                                                                    const pki::PkiMaterial& pki_material) {
  controlplane::ClusterAuthenticationInfo info;
  info.client_ca = pki::read_file(pki_material.client_ca);
  if (options.requestheader_client_ca_file.empty()) return info;
  info.request_header_ca = pki::read_file(options.requestheader_client_ca_file);
  info.request_header_username_headers = options.requestheader_username_headers;
  info.request_header_uid_headers = options.requestheader_uid_headers;
  info.request_header_group_headers = options.requestheader_group_headers;
  info.request_header_extra_header_prefixes = options.requestheader_extra_headers_prefix;
  info.request_header_allowed_names = options.requestheader_allowed_names;
  return info;
}

apis::core::ServiceNetwork service_network_from(const Options& options) {
  apis::core::ServiceNetwork network;
  network.cluster_ips = *apis::core::parse_service_cidr(options.service_cluster_ip_range);
  network.node_ports = *apis::core::parse_port_range(options.service_node_port_range);
  network.secure_port = options.secure_port;
  network.advertise_address = advertise_ip(options);
  return network;
}

pki::PkiOptions pki_options_from(const Options& options, const std::string& host,
                                 const apis::core::ServiceNetwork& service_network) {
  pki::PkiOptions pki_options;
  pki_options.cert_dir = options.cert_dir;
  pki_options.advertise_host = host;
  pki_options.secure_port = static_cast<uint16_t>(options.secure_port);
  pki_options.extra_sans = {service_network.first_address()};  // the `kubernetes` service's cluster IP
  if (!options.tls_cert_file.empty()) pki_options.tls_cert_file = options.tls_cert_file;
  if (!options.tls_private_key_file.empty()) pki_options.tls_private_key_file = options.tls_private_key_file;
  if (!options.client_ca_file.empty()) pki_options.client_ca_file = options.client_ca_file;
  return pki_options;
}

pki::PkiMaterial ensure_certificates(const pki::PkiOptions& pki_options, base::Logger& logger) {
  try {
    return pki::ensure_pki(pki_options);
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("TLS setup failed: ") + error.what());
  }
}

audit::Audit set_up_audit(const Options& options, metrics::Registry& metrics, base::Logger& logger) {
  try {
    return audit::set_up(options.audit, metrics, logger);
  } catch (const std::exception& error) {
    fail_startup(logger, error.what());
  }
}

int reactor_threads(const Options& options) {
  return options.reactor_threads > 0 ? options.reactor_threads
                                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::unique_ptr<StorageBackend> open_storage(const Options& options, asio::any_io_executor executor,
                                             base::Logger& logger) {
  try {
    auto storage = StorageBackend::open(options, std::move(executor), logger);
    logger.info("storage: " + std::string(storage->description()));
    return storage;
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("cannot open storage: ") + error.what());
  }
}

// Options completed (kube's CompletedConfig): the host clients are told, the service network, the certificates, and
// the reactor's threads.
struct Config {
  std::string host;
  apis::core::ServiceNetwork service_network;
  pki::PkiOptions pki_options;
  pki::PkiMaterial pki_material;
  // Service account tokens are signed with --service-account-signing-key-file (the generated sa.key by default)
  // and verified with --service-account-key-file (by default the same key).
  std::filesystem::path signing_key;
  int threads = 1;
};

Config complete(const Options& options, base::Logger& logger) {
  Config config;
  config.host = advertise_host(options);
  config.service_network = service_network_from(options);
  config.pki_options = pki_options_from(options, config.host, config.service_network);
  config.pki_material = ensure_certificates(config.pki_options, logger);
  config.signing_key = options.service_account_signing_key_file.empty() ? config.pki_material.service_account_key
                                                                        : options.service_account_signing_key_file;
  config.threads = reactor_threads(options);
  return config;
}

// The kubelet client's TLS from --kubelet-certificate-authority and --kubelet-client-certificate/key; without a CA
// the system roots are trusted, as Go's transport does.
apis::core::KubeletClientConfig kubelet_client_from(const Options& options) {
  return apis::core::make_kubelet_client_config(
      options.kubelet_certificate_authority.string(), options.kubelet_client_certificate.string(),
      options.kubelet_client_key.string(), options.kubelet_preferred_address_types,
      std::chrono::duration_cast<std::chrono::milliseconds>(options.kubelet_timeout));
}

apis::core::TokenRequestConfig token_requests_from(const Options& options, const std::filesystem::path& signing_key,
                                                   base::Logger& logger) {
  apis::core::TokenRequestConfig token_requests;
  try {
    token_requests.issuer = std::make_shared<authentication::TokenIssuer>(
        options.service_account_issuer.front(), authentication::jwt::read_private_key(signing_key));
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("invalid --service-account-signing-key-file: ") + error.what());
  }
  token_requests.api_audiences = options.api_audiences;
  token_requests.max_expiration =
      std::chrono::duration_cast<std::chrono::seconds>(options.service_account_max_token_expiration);
  return token_requests;
}

// The in-process controller manager's options: --controllers (its default follows the store), leader election,
// and the CA bundle kube-root-ca.crt publishes: --root-ca-file, else the client CA, as kubeadm's one cluster CA both
// signs the serving certificate and verifies clients (kube-controller-manager falls back to its kubeconfig's CA).
void configure_controllers(const Options& options, const Config& config, apis::BuiltInApis& apis,
                           metrics::Registry& metrics, base::Logger& logger) {
  controllers::ControllerManagerOptions manager;
  manager.controllers = controller_selection(options);
  manager.leader_elect = options.leader_elect;
  manager.election.identity = controllers::leader_election_identity();
  using std::chrono::duration_cast, std::chrono::milliseconds;
  manager.election.lease_duration = duration_cast<milliseconds>(options.leader_elect_lease_duration);
  manager.election.renew_deadline = duration_cast<milliseconds>(options.leader_elect_renew_deadline);
  manager.election.retry_period = duration_cast<milliseconds>(options.leader_elect_retry_period);
  const std::filesystem::path root_ca_file =
      options.root_ca_file.empty() ? config.pki_material.client_ca : options.root_ca_file;
  std::string root_ca;
  try {
    root_ca = pki::read_file(root_ca_file);
  } catch (const std::exception& error) {
    fail_startup(logger, "error reading root-ca-file at " + root_ca_file.string() + ": " + error.what());
  }
  if (root_ca.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    fail_startup(logger, "error parsing root-ca-file at " + root_ca_file.string() + ": data does not contain any valid "
                         "RSA or ECDSA certificates");
  apis.configure_controllers(std::move(manager), std::move(root_ca), &metrics);
}

// Wiring, one subsystem at a time.

// --encryption-provider-config: which resources are encrypted at rest, and how.
storage::value::ResourceTransformers encryption_from(const Options& options, base::Logger& logger) {
  if (options.encryption_provider_config.empty()) return {};
  try {
    return encryptionconfig::load_encryption_config(options.encryption_provider_config);
  } catch (const encryptionconfig::ConfigError& error) {
    fail_startup(logger, error.what());
  }
}

// The admission chain (--enable-admission-plugins, --disable-admission-plugins, --admission-control-config-file).
std::unique_ptr<admission::Chain> admission_from(const Options& options, apis::BuiltInApis& apis,
                                                 const authorization::Authorizer* authorizer,
                                                 const admission::CustomStoreLookup& custom_stores,
                                                 const admission::CustomSchemaLookup& custom_schemas,
                                                 asio::any_io_executor executor, metrics::Registry& metrics,
                                                 base::Logger& logger) {
  try {
    admission::PluginContext context{
        .stores = [&apis](std::string_view group, std::string_view resource) { return apis.store(group, resource); },
        .custom_stores = custom_stores,
        .custom_schemas = custom_schemas,
        .authorizer = authorizer,
        .logger = &logger,
        .metrics = &metrics,
        .executor = executor,
        .stopping = apis.stopping_controllers(),
        .catalog = &apis.catalog(),
        .default_not_ready_toleration_seconds = options.default_not_ready_toleration_seconds,
        .default_unreachable_toleration_seconds = options.default_unreachable_toleration_seconds,
        .proxy_client_cert_file = options.proxy_client_cert_file,
        .proxy_client_key_file = options.proxy_client_key_file};
    return admission::make_chain(options.enable_admission_plugins, options.disable_admission_plugins, context,
                                 admission::read_admission_configuration(options.admission_control_config_file.string()));
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("failed to initialize admission: ") + error.what());
  }
}

// API priority and fairness (--enable-priority-and-fairness) shares the server's seats; none: max-in-flight.
std::shared_ptr<flowcontrol::Controller> priority_and_fairness_from(const Options& options, apis::BuiltInApis& apis,
                                                                   metrics::Registry& metrics,
                                                                   asio::any_io_executor executor,
                                                                   base::Logger& logger) {
  if (!options.enable_priority_and_fairness) return nullptr;
  const int server_limit = options.max_requests_inflight + options.max_mutating_requests_inflight;
  if (server_limit <= 0)
    fail_startup(logger, "--max-requests-inflight plus --max-mutating-requests-inflight must be positive when "
                         "--enable-priority-and-fairness is true");
  flowcontrol::WorkEstimator estimator(
      [&apis](std::string_view group, std::string_view resource) -> std::optional<flowcontrol::ResourceCounts> {
        auto stats = apis.cache_stats(group, resource);
        if (!stats) return std::nullopt;
        return flowcontrol::ResourceCounts{static_cast<std::int64_t>(stats->objects),
                                           static_cast<std::int64_t>(stats->watchers)};
      });
  return std::make_shared<flowcontrol::Controller>(server_limit, std::move(estimator), metrics.flowcontrol,
                                                   std::move(executor), logger);
}

// kube's `priority-and-fairness-config-consumer` post-start hook only starts the controller. Here it also waits
// until the controller classifies by the stored configuration, so that a ready server's responses name the
// stored FlowSchemas and levels (X-Kubernetes-PF-FlowSchema-UID), whichever start-up work happens to end first.
healthz::Check config_consumer_check(std::shared_ptr<const flowcontrol::Controller> controller) {
  return {"poststarthook/priority-and-fairness-config-consumer", [controller]() -> std::optional<std::string> {
            if (controller->read_stored_configuration()) return std::nullopt;
            return "not finished";
          }};
}

http::ConnectionOptions connection_options_from(const Options& options) {
  http::ConnectionOptions connection_options;
  connection_options.limits = {options.max_request_header_bytes, options.max_request_body_bytes};
  using Duration = std::chrono::steady_clock::duration;
  connection_options.read_header_timeout = std::chrono::duration_cast<Duration>(options.read_header_timeout);
  connection_options.idle_timeout = std::chrono::duration_cast<Duration>(options.idle_timeout);
  connection_options.write_stall_timeout = std::chrono::duration_cast<Duration>(options.write_stall_timeout);
  // Zero leaves Go's default, as kube's secure serving does.
  const int streams = options.http2_max_streams_per_connection;
  connection_options.http2_max_concurrent_streams = streams > 0 ? static_cast<std::uint32_t>(streams) : 250;
  return connection_options;
}

// The HTTPS listener (and the loopback plain HTTP one for benchmarks). --secure-port=0 binds a free port, which the
// admin kubeconfig must then name: the PKI is ensured again for it.
void listen(const Options& options, http::HttpServer& http, Config& config, base::Logger& logger) {
  const pki::PkiMaterial& pki_material = config.pki_material;
  try {
    http::TlsFiles tls_files{pki_material.serving_cert, pki_material.serving_key, pki_material.client_ca, {},
                             !options.disable_http2_serving};
    if (!options.requestheader_client_ca_file.empty())
      tls_files.other_client_ca_files.push_back(options.requestheader_client_ca_file);
    auto tls = http::make_server_tls_context(tls_files);
    auto secure =
        http.listen({asio::ip::make_address(options.bind_address), static_cast<uint16_t>(options.secure_port)}, tls);
    if (options.secure_port == 0) {
      config.pki_options.secure_port = secure.port();
      config.pki_material = pki::ensure_pki(config.pki_options);
    }
    logger.info("serving securely on " + pki::https_url(secure.address().to_string(), secure.port()));
    std::cout << "kapi-apiserver serving on " << pki::https_url(config.host, secure.port()) << std::endl;
    if (options.insecure_port > 0) {
      auto address = asio::ip::make_address(options.insecure_bind_address);
      if (!address.is_loopback()) throw std::runtime_error("--insecure-bind-address must be a loopback address");
      auto insecure = http.listen({address, static_cast<uint16_t>(options.insecure_port)}, nullptr);
      std::cout << "kapi-apiserver serving plain HTTP on http://" << insecure.address().to_string() << ":"
                << insecure.port() << " (loopback only, no authentication)" << std::endl;
    }
  } catch (const std::exception& error) {
    fail_startup(logger, std::string("failed to listen: ") + error.what());
  }
}

// The common filter chain's settings from the flags.
void set_filter_options(filters::ChainConfig& chain_config, const Options& options, const audit::Audit& audit,
                        std::shared_ptr<flowcontrol::Controller> priority_and_fairness) {
  if (options.enable_testing_endpoints)
    chain_config.long_running.non_resource_paths.emplace(chain::kTestingStreamPath);
  chain_config.request_timeout = options.request_timeout;
  chain_config.max_requests_inflight = options.max_requests_inflight;
  chain_config.max_mutating_requests_inflight = options.max_mutating_requests_inflight;
  chain_config.priority_and_fairness = std::move(priority_and_fairness);
  chain_config.cors_allowed_origins = options.cors_allowed_origins;
  chain_config.hsts_directives = options.strict_transport_security_directives;
  chain_config.goaway_chance = options.disable_http2_serving ? 0 : options.goaway_chance;
  if (audit.enabled()) chain_config.audit = {audit.policy, audit.backend};
}

void print_admin_kubeconfig(const pki::PkiMaterial& pki_material) {
  if (pki_material.admin_kubeconfig.empty()) return;
  std::cout << "admin kubeconfig: " << pki_material.admin_kubeconfig.string() << "\n"
            << "  export KUBECONFIG=" << std::filesystem::absolute(pki_material.admin_kubeconfig).string()
            << std::endl;
}

// Run and shut down.

// kube's post-start hooks and the controllers that keep what the cluster needs: the system namespaces and bootstrap
// objects, RBAC's policy feed, the CRD and APIService controllers, priority and fairness's configuration, the
// extension-apiserver-authentication ConfigMap, and this server's identity Lease.
void start_post_start_hooks(const Options& options, const Config& config, asio::io_context& io, base::Logger& logger,
                            Lifecycle& lifecycle, apis::BuiltInApis& apis, authorization::rbac::RbacMode* rbac,
                            apiextensions::ApiExtensionsApis& extensions, aggregator::AggregatorApis& aggregator,
                            flowcontrol::Controller* priority_and_fairness) {
  asio::co_spawn(io, apis.bootstrap(lifecycle), [&logger](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      logger.error(std::string("creating the system namespaces failed: ") + e.what());
    }
  });
  if (rbac) rbac->run(io.get_executor());
  extensions.start([&aggregator] { aggregator.local_apis_changed(); });
  aggregator.start([&extensions] { return extensions.crds_synced(); });
  constexpr std::string_view kFlowControlGroup = "flowcontrol.apiserver.k8s.io";
  registry::Store* flow_schemas = apis.store(kFlowControlGroup, "flowschemas");
  registry::Store* priority_levels = apis.store(kFlowControlGroup, "prioritylevelconfigurations");
  if (priority_and_fairness && flow_schemas && priority_levels)
    priority_and_fairness->start(*flow_schemas, *priority_levels, apis.stopping_controllers());
  if (auto* configmaps = apis.store("", "configmaps"))
    asio::co_spawn(io, controlplane::maintain_authentication_configmap(
                           *configmaps, cluster_authentication_info(options, config.pki_material), lifecycle, logger),
                   asio::detached);
  if (auto* leases = apis.store("coordination.k8s.io", "leases")) {
    asio::co_spawn(io, controlplane::maintain_identity_lease(*leases, base::hostname(), {}, lifecycle, logger),
                   asio::detached);
    asio::co_spawn(io, controlplane::collect_expired_identity_leases(*leases, {}, lifecycle, logger), asio::detached);
  }
}

// A start-up that fails once the APIs exist unwinds through their watch caches, whose destructors wait for their
// background work to stop, and that work runs on the reactor, which has not run yet: it would wait forever. So a
// Trigger declared right after each object that owns watch caches (and so destroyed right before it) starts the
// reactor on a thread of its own when the start-up is unwinding; the ReactorWhileUnwinding declared right after
// the io_context stops and joins that thread once everything between them is gone.
class ReactorWhileUnwinding {
 public:
  explicit ReactorWhileUnwinding(asio::io_context& io) : io_(io) {}
  ~ReactorWhileUnwinding() {
    if (!runner_.joinable()) return;
    io_.stop();
    runner_.join();
  }
  ReactorWhileUnwinding(const ReactorWhileUnwinding&) = delete;
  ReactorWhileUnwinding& operator=(const ReactorWhileUnwinding&) = delete;

  class Trigger {
   public:
    explicit Trigger(ReactorWhileUnwinding& owner) : owner_(owner), exceptions_(std::uncaught_exceptions()) {}
    ~Trigger() {
      if (std::uncaught_exceptions() > exceptions_ && !owner_.runner_.joinable())
        owner_.runner_ = std::thread([&io = owner_.io_] {
          auto work = asio::make_work_guard(io);  // until stopped, whatever is queued meanwhile
          io.run();
        });
    }
    Trigger(const Trigger&) = delete;
    Trigger& operator=(const Trigger&) = delete;

   private:
    ReactorWhileUnwinding& owner_;
    const int exceptions_;
  };

 private:
  asio::io_context& io_;
  std::thread runner_;
};

// The shutdown sequence of kube-apiserver's lifecycle signals, in order.
asio::awaitable<void> shut_down(const Options& options, base::Logger& logger, Lifecycle& lifecycle,
                                http::HttpServer& http, apis::BuiltInApis& apis,
                                apiextensions::ApiExtensionsApis& extensions, aggregator::AggregatorApis& aggregator,
                                authorization::rbac::RbacMode* rbac, authorization::node::NodeMode* node_mode,
                                audit::Backend* audit_backend, asio::io_context& io) {
  logger.info("received termination signal: /readyz now fails; shutting down after " +
              base::format_go_duration(options.shutdown_delay_duration));
  lifecycle.initiate_shutdown();
  // kube's pre-shutdown hooks (this server leaves the `kubernetes` endpoints) run beside the shutdown delay, while
  // requests are still served; new requests stop being accepted once both are over.
  {
    using namespace asio::experimental::awaitable_operators;
    auto delay_and_hooks = base::sleep_for(options.shutdown_delay_duration) && apis.run_pre_shutdown_hooks();
    co_await std::move(delay_and_hooks);
  }

  http.stop_accepting();
  http.connections().close_all_when_idle();
  lifecycle.stop_accepting_requests();

  auto give_up = std::chrono::steady_clock::now() + options.shutdown_timeout;
  while (lifecycle.in_flight() > 0 && std::chrono::steady_clock::now() < give_up) co_await base::sleep_for(10ms);
  if (lifecycle.in_flight() > 0)
    logger.warning("shutdown timeout: " + std::to_string(lifecycle.in_flight()) + " requests still in flight");

  lifecycle.end_long_running_requests();
  auto long_running_deadline = std::chrono::steady_clock::now() + 5s;
  while ((lifecycle.long_running_count() > 0 || http.connections().size() > 0) &&
         std::chrono::steady_clock::now() < long_running_deadline) {
    http.connections().close_all_when_idle();
    co_await base::sleep_for(10ms);
  }
  // Every request has ended: what the audit backends still hold is written (or sent) now, as kube does once
  // its requests have drained.
  if (audit_backend) {
    auto flushing = audit_backend->shutdown();
    co_await std::move(flushing);
  }
  if (rbac) rbac->stop();  // its watches end with the Cachers and must not relist
  if (node_mode) node_mode->stop();
  co_await aggregator.shutdown();
  co_await extensions.shutdown();
  co_await apis.shutdown();
  logger.info("shutdown complete");
  io.stop();
}

}  // namespace

int run_apiserver(const Options& options) {
  base::Logger logger(options.verbosity);
  metrics::Registry metrics;
  Lifecycle lifecycle;
  try {
    // Before anything that has to be stopped: a bad audit flag or policy file ends the start-up here.
    audit::Audit audit = set_up_audit(options, metrics, logger);
    Config config = complete(options, logger);
    // The reactor: one io_context per --reactor-threads, each run by one thread (see reactor_pool.h); `io` is the
    // main one, which runs everything but connections and is the only one running while the start-up unwinds.
    asio::io_context io(1);
    http::ReactorPool reactors(io, config.threads);
    ReactorWhileUnwinding reactor_while_unwinding(io);
    if (audit.backend) audit.backend->run(io.get_executor());
    // The audit webhook sends through connections on `io`: let go of the backends before `io` goes (this is
    // declared after it), so that what is left of them ends with the reactor's own frames rather than after it.
    struct LetGoBeforeReactor {
      std::shared_ptr<audit::Backend>& backend;
      ~LetGoBeforeReactor() { backend.reset(); }
    } let_go_of_audit_backend{audit.backend};
    std::unique_ptr<StorageBackend> storage = open_storage(options, io.get_executor(), logger);

    // The server chain. The Kube API server's built-in APIs come first: authentication, authorization and the
    // other two servers build on them.
    chain::ServerChain servers({metrics, lifecycle, VersionInfo{}, options.enable_testing_endpoints});
    servers.kube().generic().health_checks.push_back(storage->health_check());
    const storage::value::ResourceTransformers encryption = encryption_from(options, logger);
    apis::BuiltInApis apis(storage->store(), options.etcd_prefix, io.get_executor(), lifecycle, logger,
                           config.service_network, token_requests_from(options, config.signing_key, logger),
                           kubelet_client_from(options), encryption, options.storage_media_type);
    ReactorWhileUnwinding::Trigger unwinding_apis(reactor_while_unwinding);  // see ReactorWhileUnwinding
    filters::ChainConfig chain_config(logger, metrics, lifecycle);
    chain_config.authenticator =
        authenticator_from(options, config.signing_key, apis, io.get_executor(), metrics, logger);
    std::unique_ptr<authorization::rbac::RbacMode> rbac = rbac_from(options, apis, logger);
    std::unique_ptr<authorization::node::NodeMode> node_mode = node_mode_from(options, apis, logger);
    chain_config.authorizer =
        authorizer_from(options, rbac.get(), node_mode.get(), io.get_executor(), metrics, logger);
    apis.escalation_check().configure(chain_config.authorizer, rbac ? rbac->rbac_authorizer() : nullptr);
    // Admission comes before the API extensions server it reads custom resources through (a policy's params).
    const apiextensions::ApiExtensionsApis* custom_resources = nullptr;
    const admission::CustomStoreLookup custom_stores = [&custom_resources](std::string_view group,
                                                                           std::string_view version,
                                                                           std::string_view kind) {
      return custom_resources ? custom_resources->custom_resources().store_for_kind(group, version, kind) : nullptr;
    };
    const admission::CustomSchemaLookup custom_schemas = [&custom_resources](std::string_view group,
                                                                             std::string_view version) {
      return custom_resources ? custom_resources->custom_resources().schemas(group, version)
                              : std::vector<admission::CustomResourceSchema>{};
    };
    const std::unique_ptr<admission::Chain> admission =
        admission_from(options, apis, chain_config.authorizer.get(), custom_stores, custom_schemas, io.get_executor(),
                       metrics, logger);
    apis.set_admission(admission.get());
    apis.install(servers.kube(), chain_config.authorizer, chain_config.authenticator);
    apiextensions::ApiExtensionsApis extensions({.backend = storage->store(), .key_root = options.etcd_prefix,
                                                 .executor = io.get_executor(), .lifecycle = lifecycle,
                                                 .logger = logger, .catalog = apis.catalog(),
                                                 .patch_schemas = apis.patch_schemas(),
                                                 .admission = admission.get(),
                                                 .field_types = apis.field_types(),
                                                 .served_changed = [&apis](auto stores) {
                                                   apis.custom_resource_feed().publish(std::move(stores));
                                                 },
                                                 .encryption = encryption,
                                                 .builtin_codec = apis.storage_codec()});
    // Set before the reactor runs; cleared (after the reactor has run down the extensions' work) before they go.
    custom_resources = &extensions;
    const std::unique_ptr<const apiextensions::ApiExtensionsApis*, void (*)(const apiextensions::ApiExtensionsApis**)>
        forget_custom_resources(&custom_resources, [](const apiextensions::ApiExtensionsApis** p) { *p = nullptr; });
    ReactorWhileUnwinding::Trigger unwinding_extensions(reactor_while_unwinding);
    extensions.install(servers.extensions(), apis.discovery(), apis.openapi());
    apis.set_more_namespaced_content([&extensions] { return extensions.custom_resources().namespaced_stores(); });
    apis.set_quota_usage([&apis, &extensions](const boost::json::object& quota)
                             -> asio::awaitable<boost::json::object> {
      // Custom resources are counted too (count/<resource>.<group>); their stores are held while measuring.
      const std::vector<std::shared_ptr<registry::Store>> custom = extensions.custom_resources().namespaced_stores();
      const admission::StoreLookup stores = [&apis, &custom](std::string_view group,
                                                             std::string_view resource) -> registry::Store* {
        if (registry::Store* builtin = apis.store(group, resource)) return builtin;
        for (const auto& store : custom)
          if (store->definition().group == group && store->definition().resource == resource) return store.get();
        return nullptr;
      };
      const admission::quota::ResourceList used = co_await admission::quota::calculate_usage(stores, quota);
      co_return admission::quota::to_json(used);
    });
    configure_controllers(options, config, apis, metrics, logger);
    const pki::PkiMaterial& pki_material = config.pki_material;
    aggregator::AggregatorApis aggregator(
        {.backend = storage->store(), .key_root = options.etcd_prefix, .executor = io.get_executor(),
         .lifecycle = lifecycle, .logger = logger, .metrics = metrics, .catalog = apis.catalog(),
         .patch_schemas = apis.patch_schemas(), .field_types = apis.field_types(),
         .services = apis.store("", "services"), .endpoints = apis.store("", "endpoints"),
         .proxy_client = {options.proxy_client_cert_file.empty() ? pki_material.front_proxy_client_cert
                                                                 : options.proxy_client_cert_file,
                          options.proxy_client_key_file.empty() ? pki_material.front_proxy_client_key
                                                                : options.proxy_client_key_file},
         .admission = admission.get(),
         .encryption = encryption,
         .builtin_codec = apis.storage_codec()});
    aggregator.install(servers.aggregator(), servers.kube().generic().director.as_handler(), apis.discovery(),
                       apis.openapi());
    ReactorWhileUnwinding::Trigger unwinding_aggregator(reactor_while_unwinding);

    // The common filter chain in front of the server chain, and the listeners.
    const std::shared_ptr<flowcontrol::Controller> priority_and_fairness =
        priority_and_fairness_from(options, apis, metrics, io.get_executor(), logger);
    if (priority_and_fairness && apis.store("flowcontrol.apiserver.k8s.io", "flowschemas"))
      servers.kube().generic().health_checks.push_back(config_consumer_check(priority_and_fairness));
    set_filter_options(chain_config, options, audit, priority_and_fairness);
    filters::Chain handler_chain = filters::build_handler_chain(chain_config, servers.handler());
    auto serve = [&handler_chain](http::Request& request, http::ResponseWriter& response) -> asio::awaitable<void> {
      request::Exchange exchange{request, &response, {}};
      co_await handler_chain(exchange);
      if (exchange.handed_off.valid()) {  // no stage ran it (the request-metrics stage does)
        auto rest = request::take_handed_off(exchange);
        co_await std::move(rest);
      }
    };
    http::HttpServer http(io, connection_options_from(options), serve, &reactors);
    listen(options, http, config, logger);
    print_admin_kubeconfig(config.pki_material);

    // Run until the first termination signal has shut everything down.
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const asio::error_code& ec, int) {
      if (ec) return;
      asio::co_spawn(io, shut_down(options, logger, lifecycle, http, apis, extensions, aggregator, rbac.get(),
                               node_mode.get(), audit.backend.get(), io),
                     asio::detached);
      storage->stop();
    });
    storage->start_health_probe(std::chrono::seconds(1));
    start_post_start_hooks(options, config, io, logger, lifecycle, apis, rbac.get(), extensions, aggregator,
                           priority_and_fairness.get());
    if (node_mode) node_mode->run(io.get_executor());
    http.start();
    reactors.run();  // until shut_down stops the main reactor
    return 0;
  } catch (const StartupFailure&) {
    return 1;
  }
}

}  // namespace kapi::server

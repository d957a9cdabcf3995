#include "server/apiserver.h"

#include "base/duration.h"
#include "base/host_address.h"
#include "base/log.h"
#include "base/sleep.h"
#include "filters/chain.h"
#include "server/chain/server_chain.h"
#include "server/chain/testing_endpoints.h"
#include "server/controlplane/cluster_authentication_trust.h"
#include "server/http/http_server.h"
#include "server/lifecycle.h"
#include "server/metrics/registry.h"
#include "server/pki/pem_io.h"
#include "server/pki/pki.h"
#include "server/aggregator/aggregator_apis.h"
#include "server/apiextensions/apiextensions_apis.h"
#include "server/apis/builtin_apis.h"
#include "server/audit/setup.h"
#include "server/authorization/rbac/rbac_mode.h"
#include "server/flowcontrol/controller.h"
#include "server/storage_backend.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

namespace kapi::server {
namespace {

using namespace std::chrono_literals;

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

// The shutdown sequence of kube-apiserver's lifecycle signals, in order.
asio::awaitable<void> shut_down(const Options& options, base::Logger& logger, Lifecycle& lifecycle,
                                http::HttpServer& http, apis::BuiltInApis& apis,
                                apiextensions::ApiExtensionsApis& extensions, aggregator::AggregatorApis& aggregator,
                                authorization::rbac::RbacMode* rbac, asio::io_context& io) {
  logger.info("received termination signal: /readyz now fails; shutting down after " +
              base::format_go_duration(options.shutdown_delay_duration));
  lifecycle.initiate_shutdown();
  if (options.shutdown_delay_duration.count() > 0) co_await base::sleep_for(options.shutdown_delay_duration);

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
  if (rbac) rbac->stop();  // its watches end with the Cachers and must not relist
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
  // Before anything that has to be stopped: a bad audit flag or policy file ends the start-up here.
  audit::Audit audit;
  try {
    audit::AuditOptions audit_options{options.audit_policy_file, options.audit_log_path, options.audit_log_maxsize,
                                      options.audit_log_maxbackup, options.audit_log_maxage,
                                      options.audit_log_batch_buffer_size};
    audit = audit::set_up(audit_options, metrics, logger);
  } catch (const std::exception& error) {
    logger.error(error.what());
    return 1;
  }

  std::string host = advertise_host(options);
  pki::PkiOptions pki_options;
  pki_options.cert_dir = options.cert_dir;
  pki_options.advertise_host = host;
  pki_options.secure_port = static_cast<uint16_t>(options.secure_port);
  apis::core::ServiceNetwork service_network;
  service_network.cluster_ips = *apis::core::parse_service_cidr(options.service_cluster_ip_range);
  service_network.node_ports = *apis::core::parse_port_range(options.service_node_port_range);
  service_network.secure_port = options.secure_port;
  service_network.advertise_address = advertise_ip(options);
  pki_options.extra_sans = {service_network.first_address()};  // the `kubernetes` service's cluster IP
  if (!options.tls_cert_file.empty()) pki_options.tls_cert_file = options.tls_cert_file;
  if (!options.tls_private_key_file.empty()) pki_options.tls_private_key_file = options.tls_private_key_file;
  if (!options.client_ca_file.empty()) pki_options.client_ca_file = options.client_ca_file;
  pki::PkiMaterial pki_material;
  try {
    pki_material = pki::ensure_pki(pki_options);
  } catch (const std::exception& error) {
    logger.error(std::string("TLS setup failed: ") + error.what());
    return 1;
  }

  int threads = options.reactor_threads > 0 ? options.reactor_threads
                                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  asio::io_context io(threads);

  std::unique_ptr<StorageBackend> storage;
  try {
    storage = StorageBackend::open(options, io.get_executor(), logger);
  } catch (const std::exception& error) {
    logger.error(std::string("cannot open storage: ") + error.what());
    return 1;
  }
  logger.info("storage: " + std::string(storage->description()));

  chain::ServerChain servers({metrics, lifecycle, VersionInfo{}, options.enable_testing_endpoints});
  servers.kube().generic().health_checks.push_back(storage->health_check());
  // Service account tokens: signed with --service-account-signing-key-file (the generated sa.key by default),
  // verified with --service-account-key-file (by default the same key).
  const std::filesystem::path signing_key_file = options.service_account_signing_key_file.empty()
                                                     ? pki_material.service_account_key
                                                     : options.service_account_signing_key_file;
  apis::core::TokenRequestConfig token_requests;
  try {
    token_requests.issuer = std::make_shared<authentication::TokenIssuer>(
        options.service_account_issuer.front(), authentication::jwt::read_private_key(signing_key_file));
  } catch (const std::exception& error) {
    logger.error(std::string("invalid --service-account-signing-key-file: ") + error.what());
    return 1;
  }
  token_requests.api_audiences = options.api_audiences;
  token_requests.max_expiration =
      std::chrono::duration_cast<std::chrono::seconds>(options.service_account_max_token_expiration);
  apis::BuiltInApis apis(storage->store(), options.etcd_prefix, io.get_executor(), lifecycle, logger, service_network,
                         token_requests);
  filters::ChainConfig chain_config(logger, metrics, lifecycle);
  try {
    authentication::AuthenticationOptions authentication_options;
    authentication_options.anonymous = options.anonymous_auth;
    authentication_options.request_header_ca_file = options.requestheader_client_ca_file;
    authentication_options.request_header = {options.requestheader_username_headers, options.requestheader_uid_headers,
                                             options.requestheader_group_headers,
                                             options.requestheader_extra_headers_prefix,
                                             options.requestheader_allowed_names};
    authentication_options.token_auth_file = options.token_auth_file;
    authentication_options.service_account_issuers = options.service_account_issuer;
    authentication_options.service_account_key_files = options.service_account_key_file;
    if (authentication_options.service_account_key_files.empty())
      authentication_options.service_account_key_files = {signing_key_file};
    authentication_options.api_audiences = options.api_audiences;
    authentication_options.service_account_objects = apis.object_getter();
    std::vector<std::string> warnings;
    chain_config.authenticator = authentication::RequestAuthenticator::build(authentication_options, &warnings);
    for (const auto& warning : warnings) logger.warning(warning);
  } catch (const std::exception& error) {
    logger.error(std::string("invalid authentication config: ") + error.what());
    return 1;
  }
  // RBAC reads the policy the built-in rbac.authorization.k8s.io resources store.
  std::unique_ptr<authorization::rbac::RbacMode> rbac;
  const auto& modes = options.authorization_mode;
  if (std::find(modes.begin(), modes.end(), "RBAC") != modes.end()) {
    constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
    authorization::rbac::PolicyFeed::Stores stores{apis.store(kRbacGroup, "roles"), apis.store(kRbacGroup, "clusterroles"),
                                                   apis.store(kRbacGroup, "rolebindings"),
                                                   apis.store(kRbacGroup, "clusterrolebindings")};
    if (std::find(stores.begin(), stores.end(), nullptr) == stores.end()) {
      rbac = std::make_unique<authorization::rbac::RbacMode>(stores, logger);
      apis.wait_for_rbac_authorizer(rbac->has_policy());
    }
  }
  try {
    chain_config.authorizer = authorization::build_authorizer(modes, rbac ? rbac->authorizer() : nullptr);
  } catch (const std::exception& error) {
    logger.error(std::string("invalid authorization config: ") + error.what());
    return 1;
  }
  apis.escalation_check().configure(chain_config.authorizer, rbac ? rbac->rbac_authorizer() : nullptr);
  apis.install(servers.kube(), chain_config.authorizer, chain_config.authenticator);
  apiextensions::ApiExtensionsApis extensions({.backend = storage->store(), .key_root = options.etcd_prefix,
                                               .executor = io.get_executor(), .lifecycle = lifecycle,
                                               .logger = logger, .catalog = apis.catalog(),
                                               .patch_schemas = apis.patch_schemas(),
                                               .namespace_check = apis.namespace_check()});
  extensions.install(servers.extensions(), apis.discovery(), apis.openapi());
  apis.set_more_namespaced_content([&extensions] { return extensions.custom_resources().namespaced_stores(); });
  aggregator::AggregatorApis aggregator(
      {.backend = storage->store(), .key_root = options.etcd_prefix, .executor = io.get_executor(),
       .lifecycle = lifecycle, .logger = logger, .metrics = metrics, .catalog = apis.catalog(),
       .patch_schemas = apis.patch_schemas(),
       .services = apis.store("", "services"), .endpoints = apis.store("", "endpoints"),
       .proxy_client = {options.proxy_client_cert_file.empty() ? pki_material.front_proxy_client_cert
                                                               : options.proxy_client_cert_file,
                        options.proxy_client_key_file.empty() ? pki_material.front_proxy_client_key
                                                              : options.proxy_client_key_file}});
  aggregator.install(servers.aggregator(), servers.kube().generic().director.as_handler(), apis.discovery(),
                     apis.openapi());
  if (options.enable_testing_endpoints)
    chain_config.long_running.non_resource_paths.emplace(chain::kTestingStreamPath);
  chain_config.request_timeout = options.request_timeout;
  chain_config.max_requests_inflight = options.max_requests_inflight;
  chain_config.max_mutating_requests_inflight = options.max_mutating_requests_inflight;
  std::shared_ptr<flowcontrol::Controller> priority_and_fairness;
  if (options.enable_priority_and_fairness) {
    const int server_limit = options.max_requests_inflight + options.max_mutating_requests_inflight;
    if (server_limit <= 0) {
      logger.error("--max-requests-inflight plus --max-mutating-requests-inflight must be positive when "
                   "--enable-priority-and-fairness is true");
      return 1;
    }
    flowcontrol::WorkEstimator estimator(
        [&apis](std::string_view group, std::string_view resource) -> std::optional<flowcontrol::ResourceCounts> {
          auto stats = apis.cache_stats(group, resource);
          if (!stats) return std::nullopt;
          return flowcontrol::ResourceCounts{static_cast<std::int64_t>(stats->objects),
                                             static_cast<std::int64_t>(stats->watchers)};
        });
    priority_and_fairness = std::make_shared<flowcontrol::Controller>(server_limit, std::move(estimator),
                                                                      metrics.flowcontrol, io.get_executor(), logger);
    chain_config.priority_and_fairness = priority_and_fairness;
  }
  chain_config.cors_allowed_origins = options.cors_allowed_origins;
  chain_config.hsts_directives = options.strict_transport_security_directives;
  if (audit.enabled()) chain_config.audit = {audit.policy, audit.log};
  filters::Chain handler_chain = filters::build_handler_chain(chain_config, servers.handler());

  http::ConnectionOptions connection_options;
  connection_options.limits = {options.max_request_header_bytes, options.max_request_body_bytes};
  connection_options.read_header_timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.read_header_timeout);
  connection_options.idle_timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.idle_timeout);
  http::HttpServer http(io, connection_options,
                        [&handler_chain](http::Request& request, http::ResponseWriter& response) -> asio::awaitable<void> {
                          request::Exchange exchange{request, &response, {}};
                          co_await handler_chain(exchange);
                        });

  try {
    http::TlsFiles tls_files{pki_material.serving_cert, pki_material.serving_key, pki_material.client_ca, {}};
    if (!options.requestheader_client_ca_file.empty())
      tls_files.other_client_ca_files.push_back(options.requestheader_client_ca_file);
    auto tls = http::make_server_tls_context(tls_files);
    auto secure = http.listen({asio::ip::make_address(options.bind_address), static_cast<uint16_t>(options.secure_port)}, tls);
    if (options.secure_port == 0) {
      // --secure-port=0 binds a free port: the admin kubeconfig must name the one bound.
      pki_options.secure_port = secure.port();
      pki_material = pki::ensure_pki(pki_options);
    }
    logger.info("serving securely on " + pki::https_url(secure.address().to_string(), secure.port()));
    std::cout << "kapi-apiserver serving on " << pki::https_url(host, secure.port()) << std::endl;
    if (options.insecure_port > 0) {
      auto address = asio::ip::make_address(options.insecure_bind_address);
      if (!address.is_loopback()) throw std::runtime_error("--insecure-bind-address must be a loopback address");
      auto insecure = http.listen({address, static_cast<uint16_t>(options.insecure_port)}, nullptr);
      std::cout << "kapi-apiserver serving plain HTTP on http://" << insecure.address().to_string() << ":"
                << insecure.port() << " (loopback only, no authentication)" << std::endl;
    }
  } catch (const std::exception& error) {
    logger.error(std::string("failed to listen: ") + error.what());
    return 1;
  }
  if (!pki_material.admin_kubeconfig.empty())
    std::cout << "admin kubeconfig: " << pki_material.admin_kubeconfig.string() << "\n"
              << "  export KUBECONFIG=" << std::filesystem::absolute(pki_material.admin_kubeconfig).string()
              << std::endl;

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const asio::error_code& ec, int) {
    if (ec) return;
    asio::co_spawn(io, shut_down(options, logger, lifecycle, http, apis, extensions, aggregator, rbac.get(), io),
                   asio::detached);
    storage->stop();
  });
  storage->start_health_probe(std::chrono::seconds(1));
  asio::co_spawn(io, apis.bootstrap(lifecycle), [&logger](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      logger.error(std::string("creating the system namespaces failed: ") + e.what());
    }
  });
  if (rbac) rbac->run(io.get_executor());
  extensions.start();
  aggregator.start([&extensions] { return extensions.crds_synced(); });
  constexpr std::string_view kFlowControlGroup = "flowcontrol.apiserver.k8s.io";
  registry::Store* flow_schemas = apis.store(kFlowControlGroup, "flowschemas");
  registry::Store* priority_levels = apis.store(kFlowControlGroup, "prioritylevelconfigurations");
  if (priority_and_fairness && flow_schemas && priority_levels)
    priority_and_fairness->start(*flow_schemas, *priority_levels, apis.stopping_controllers());
  if (auto* configmaps = apis.store("", "configmaps"))
    asio::co_spawn(io, controlplane::maintain_authentication_configmap(
                           *configmaps, cluster_authentication_info(options, pki_material), lifecycle, logger),
                   asio::detached);
  http.start();

  std::vector<std::thread> reactor;
  for (int i = 1; i < threads; ++i) reactor.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& thread : reactor) thread.join();
  if (audit.log) audit.log->shutdown();  // no request is left: write every queued event before exiting
  return 0;
}

}  // namespace kapi::server

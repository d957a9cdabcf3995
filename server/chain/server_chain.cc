#include "server/chain/server_chain.h"

#include "server/chain/not_found.h"
#include "server/chain/testing_endpoints.h"

namespace kapi::server::chain {
namespace {

asio::awaitable<void> write_json(http::ResponseWriter& response, std::string body) {
  response.headers().set("Content-Type", "application/json");
  co_await response.write(200, std::move(body));
}

}  // namespace

ServerChain::ServerChain(ServerChainConfig config)
    : config_(std::move(config)),
      extensions_(&serve_not_found),
      kube_(extensions_.generic().director.as_handler()),
      aggregator_(kube_.generic().director.as_handler()) {
  if (config_.testing_endpoints) install_testing_endpoints(kube_.generic().director.non_api(), config_.lifecycle);
}

request::Handler ServerChain::handler() {
  if (!healthz_) install_non_api_endpoints();
  return aggregator_.generic().director.as_handler();
}

void ServerChain::install_non_api_endpoints() {
  healthz_ = std::make_unique<healthz::HealthEndpoint>("healthz");
  livez_ = std::make_unique<healthz::HealthEndpoint>("livez");
  readyz_ = std::make_unique<healthz::HealthEndpoint>("readyz");
  for (auto* endpoint : {healthz_.get(), livez_.get(), readyz_.get()}) endpoint->add(healthz::ping_check());
  // Liveness checks of every server first, then what readiness adds, then shutdown: kube-apiserver's order.
  const auto all_servers = {&aggregator_.generic(), &kube_.generic(), &extensions_.generic()};
  for (GenericServer* server : all_servers) {
    for (const auto& check : server->health_checks) {
      healthz_->add(check);
      livez_->add(check);
      readyz_->add(check);
    }
  }
  for (GenericServer* server : all_servers)
    for (const auto& check : server->readiness_checks) readyz_->add(check);
  Lifecycle& lifecycle = config_.lifecycle;
  readyz_->add({"shutdown", [&lifecycle]() -> std::optional<std::string> {
                  if (lifecycle.shutdown_initiated()) return "process is shutting down";
                  return std::nullopt;
                }});

  PathMux& mux = aggregator_.generic().director.non_api();
  for (auto* endpoint : {healthz_.get(), livez_.get(), readyz_.get()}) {
    std::string root = endpoint == healthz_.get() ? "/healthz" : endpoint == livez_.get() ? "/livez" : "/readyz";
    auto serve = [endpoint](request::Exchange& exchange) { return endpoint->serve(exchange); };
    mux.handle(root, serve);
    mux.handle_prefix(root + "/", serve);
  }
  // kube's go-restful route "/version" + "/" answers with and without the trailing slash; the Python client's
  // VersionApi sends "/version/".
  auto serve_version = [version = to_json(config_.version)](request::Exchange& exchange) {
    return write_json(*exchange.response, version);
  };
  mux.handle("/version", serve_version);
  mux.handle("/version/", serve_version);
  mux.handle("/metrics", [&metrics = config_.metrics](request::Exchange& exchange) -> asio::awaitable<void> {
    exchange.response->headers().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    co_await exchange.response->write(200, metrics.render());
  });
}

}  // namespace kapi::server::chain

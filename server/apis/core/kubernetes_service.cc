#include "server/apis/core/kubernetes_service.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/lifecycle.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis::core {

namespace json = boost::json;

json::object kubernetes_service(const ServiceNetwork& network) {
  const std::string ip = network.first_address();
  // --secure-port=0 serves no HTTPS at all; the service still needs a valid port.
  const int target = network.secure_port > 0 && network.secure_port <= 65535 ? network.secure_port : 6443;
  json::object port{{"name", "https"}, {"protocol", "TCP"}, {"port", 443}, {"targetPort", target}};
  json::object spec{{"ports", json::array{port}},
                    {"clusterIP", ip},
                    {"clusterIPs", json::array{json::string(ip)}},
                    {"type", "ClusterIP"},
                    {"sessionAffinity", "None"},
                    {"ipFamilies", json::array{"IPv4"}},
                    {"ipFamilyPolicy", "SingleStack"},
                    {"internalTrafficPolicy", "Cluster"}};
  json::object metadata{{"name", "kubernetes"},
                        {"namespace", "default"},
                        {"labels", json::object{{"component", "apiserver"}, {"provider", "kubernetes"}}}};
  return json::object{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", metadata}, {"spec", spec}};
}

asio::awaitable<void> ensure_kubernetes_service(registry::Store& services, const ServiceNetwork& network,
                                                const server::Lifecycle& lifecycle, base::Logger& logger) {
  const json::object wanted = kubernetes_service(network);
  while (!lifecycle.shutdown_initiated()) {
    try {
      // Looked up first: creating it again would fail on its own cluster IP before the name clash showed.
      bool exists = true;
      try {
        co_await services.get("default", "kubernetes", "");
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) throw;
        exists = false;
      }
      if (!exists) {
        registry::WriteOptions options;
        co_await services.create("default", wanted, options);
        logger.info("created the kubernetes service at " + network.first_address());
        co_return;
      }
      // It exists: its ports follow the secure port, as kube's reconciler keeps them.
      registry::UpdateFunction put_ports_right = [&wanted](const json::object* current) {
        json::object updated = *current;
        auto& spec = updated["spec"];
        if (!spec.is_object()) spec = json::object();
        spec.as_object()["ports"] = wanted.at("spec").as_object().at("ports");
        return updated;
      };
      registry::WriteOptions options;
      co_await services.update("default", "kubernetes", put_ports_right, options);
      co_return;
    } catch (const apierrors::ApiError& error) {
      logger.warning("creating the kubernetes service failed, retrying: " + error.status().message);
    } catch (const std::exception& error) {
      logger.warning(std::string("creating the kubernetes service failed, retrying: ") + error.what());
    }
    co_await base::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace kapi::apis::core

// The `kubernetes` EndpointSlice kube-apiserver writes next to the `kubernetes` Endpoints
// (pkg/controlplane/reconcilers/endpointsadapter.go: endpointSliceFromEndpoints, EnsureEndpointSliceFromEndpoints).
#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/apis/core/service_tracker.h"
#include "server/apis/discovery/discovery.h"
#include "server/lifecycle.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {

namespace json = boost::json;
using namespace registry::fields;

json::object kubernetes_endpoint_slice(const core::ServiceNetwork& network) {
  const json::object endpoints = core::kubernetes_endpoints(network);
  json::array slice_endpoints;
  json::array ports;
  std::string address_type = "IPv4";
  if (const json::array* subsets = array_at(endpoints, "subsets"); subsets && !subsets->empty()) {
    const json::object& subset = (*subsets)[0].as_object();
    for_each_object(&subset, "ports", [&](const json::object& port, std::size_t) {
      ports.push_back(json::object{{"name", port.at("name")}, {"protocol", port.at("protocol")}, {"port", port.at("port")}});
    });
    bool all_ipv6 = true;
    for_each_object(&subset, "addresses", [&](const json::object& address, std::size_t) {
      if (string_at(address, "ip").find(':') == std::string_view::npos) all_ipv6 = false;
      slice_endpoints.push_back(json::object{{"addresses", json::array{address.at("ip")}},
                                             {"conditions", json::object{{"ready", true}}}});
    });
    if (all_ipv6 && !slice_endpoints.empty()) address_type = "IPv6";
  }
  json::object metadata{{"name", "kubernetes"},
                        {"namespace", "default"},
                        {"labels", json::object{{"kubernetes.io/service-name", "kubernetes"}}}};
  return json::object{{"apiVersion", "discovery.k8s.io/v1"}, {"kind", "EndpointSlice"}, {"metadata", metadata},
                      {"addressType", address_type}, {"endpoints", slice_endpoints}, {"ports", ports}};
}

asio::awaitable<void> ensure_kubernetes_endpoint_slice(registry::Store& endpoint_slices,
                                                       const core::ServiceNetwork& network,
                                                       const server::Lifecycle& lifecycle, base::Logger& logger) {
  if (network.advertise_address.empty()) co_return;  // the Endpoints are not written either
  const json::object wanted = kubernetes_endpoint_slice(network);
  while (!lifecycle.shutdown_initiated()) {
    try {
      registry::UpdateFunction put_right = [&wanted](const json::object* current) {
        json::object updated = current ? *current : wanted;
        for (const char* member : {"addressType", "endpoints", "ports"}) updated[member] = wanted.at(member);
        auto& labels = registry::metadata_of(updated)["labels"];
        if (!labels.is_object()) labels = json::object();
        labels.as_object()["kubernetes.io/service-name"] = "kubernetes";
        return updated;
      };
      registry::WriteOptions options;
      bool exists = true;
      try {
        auto pending = endpoint_slices.get("default", "kubernetes", "");
        co_await std::move(pending);
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) throw;
        exists = false;
      }
      if (exists) {
        auto pending = endpoint_slices.update("default", "kubernetes", put_right, options);
        co_await std::move(pending);
      } else {
        auto pending = endpoint_slices.create("default", wanted, options);
        co_await std::move(pending);
      }
      co_return;
    } catch (const apierrors::ApiError& error) {
      if (error.status().code == 409) continue;  // created meanwhile: put it right
      if (error.status().code == 422) {
        logger.warning("the kubernetes endpointslice cannot be written: " + error.status().message);
        co_return;
      }
      logger.warning("writing the kubernetes endpointslice failed, retrying: " + error.status().message);
    } catch (const std::exception& error) {
      logger.warning(std::string("writing the kubernetes endpointslice failed, retrying: ") + error.what());
    }
    co_await base::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace kapi::apis

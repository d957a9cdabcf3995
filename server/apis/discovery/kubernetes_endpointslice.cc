// The `kubernetes` EndpointSlice kube-apiserver writes next to the `kubernetes` Endpoints
// (pkg/controlplane/reconcilers/endpointsadapter.go: endpointSliceFromEndpoints, EnsureEndpointSliceFromEndpoints).
#include "server/apierrors/errors.h"
#include "server/apis/discovery/discovery.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {

namespace json = boost::json;
using namespace registry::fields;

json::object kubernetes_endpoint_slice(const json::object& endpoints) {
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
                                                       const json::object& endpoints) {
  const json::object wanted = kubernetes_endpoint_slice(endpoints);
  registry::UpdateFunction put_right = [&wanted](const json::object* current) {
    json::object updated = current ? *current : wanted;
    for (const char* member : {"addressType", "endpoints", "ports"}) updated[member] = wanted.at(member);
    auto& labels = registry::metadata_of(updated)["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.as_object()["kubernetes.io/service-name"] = "kubernetes";
    return updated;
  };
  registry::WriteOptions options;
  bool missing = false;
  try {
    auto pending = endpoint_slices.update("default", "kubernetes", put_right, options);
    co_await std::move(pending);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw;
    missing = true;
  }
  if (missing) {
    auto pending = endpoint_slices.create("default", wanted, options);
    co_await std::move(pending);
  }
}

}  // namespace kapi::apis

#pragma once
// Where a remote APIService's requests go: an endpoint address of its Service, found in the stored Service and
// Endpoints as kube-apiserver resolves it with --enable-aggregator-routing=true (kapi has no kube-proxy, so a
// cluster IP would lead nowhere): the Service port the APIService names, then a ready address of the Endpoints
// subset that carries that port's name.
#include "server/aggregator/apiservice_model.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <string>
#include <variant>

namespace kapi::aggregator {

struct ResolvedEndpoint {
  std::string host;  // an IP address
  std::uint16_t port = 0;
};

struct ResolveError {
  // What is missing, named as the availability controller's condition reasons name it.
  enum class Kind { ServiceNotFound, ServicePortError, EndpointsNotFound, MissingEndpoints, UnsupportedType };
  Kind kind;
  std::string message;    // kube's proxy wording: "service \"x\" not found", "no endpoints available for ..."
  std::string port_name;  // the Service port's name, once found
};

using Resolution = std::variant<ResolvedEndpoint, ResolveError>;

asio::awaitable<Resolution> resolve_endpoint(registry::Store& services, registry::Store& endpoints,
                                             const ServiceReference& service);

}  // namespace kapi::aggregator

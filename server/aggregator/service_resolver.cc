#include "server/aggregator/service_resolver.h"

#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <chrono>
#include <vector>

namespace kapi::aggregator {
namespace {

namespace json = boost::json;
using registry::fields::array_at;
using registry::fields::int_or_zero;

// The object, or none when it is not stored.
asio::awaitable<std::optional<json::object>> read(registry::Store& store, const std::string& namespace_,
                                                  const std::string& name) {
  try {
    auto pending = store.get(namespace_, name, "");
    registry::ReadObject read = co_await std::move(pending);
    co_return registry::parse_json_object(read.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code == 404) co_return std::nullopt;
    throw;
  }
}

}  // namespace

asio::awaitable<Resolution> resolve_endpoint(registry::Store& services, registry::Store& endpoints,
                                             const ServiceReference& reference) {
  const std::string quoted = "\"" + reference.name + "\"";
  std::optional<json::object> service = co_await read(services, reference.namespace_, reference.name);
  if (!service) co_return ResolveError{ResolveError::Kind::ServiceNotFound, "service " + quoted + " not found", ""};
  const json::value* spec_value = service->if_contains("spec");
  const json::object empty;
  const json::object& spec = spec_value && spec_value->is_object() ? spec_value->as_object() : empty;
  const std::string_view type = registry::string_field(spec, "type");
  if (type == "ExternalName") co_return ResolveError{ResolveError::Kind::UnsupportedType, "unsupported service type \"ExternalName\"", ""};
  std::optional<std::string> port_name;
  if (const json::array* ports = array_at(spec, "ports"))
    for (const auto& port : *ports)
      if (port.is_object() && int_or_zero(&port.as_object(), "port") == reference.port)
        port_name = std::string(registry::string_field(port.as_object(), "name"));
  if (!port_name)
    co_return ResolveError{ResolveError::Kind::ServicePortError,
                           "no service port " + std::to_string(reference.port) + " found for service " + quoted, ""};

  std::optional<json::object> found = co_await read(endpoints, reference.namespace_, reference.name);
  std::vector<ResolvedEndpoint> candidates;
  if (found)
    if (const json::array* subsets = array_at(*found, "subsets"))
      for (const auto& subset : *subsets) {
        if (!subset.is_object()) continue;
        const json::array* ports = array_at(subset.as_object(), "ports");
        const json::array* addresses = array_at(subset.as_object(), "addresses");  // ready ones only
        if (!ports || !addresses) continue;
        for (const auto& port : *ports) {
          if (!port.is_object() || registry::string_field(port.as_object(), "name") != *port_name) continue;
          const std::int64_t number = int_or_zero(&port.as_object(), "port");
          if (number <= 0 || number > 65535) continue;
          for (const auto& address : *addresses)
            if (address.is_object() && !registry::string_field(address.as_object(), "ip").empty())
              candidates.push_back({std::string(registry::string_field(address.as_object(), "ip")),
                                    static_cast<std::uint16_t>(number)});
        }
      }
  if (!found)
    co_return ResolveError{ResolveError::Kind::EndpointsNotFound, "no endpoints available for service " + quoted,
                           *port_name};
  if (candidates.empty())
    co_return ResolveError{ResolveError::Kind::MissingEndpoints, "no endpoints available for service " + quoted,
                           *port_name};
  // Spread requests over the endpoints, as kube's random pick does (the clock is random enough for that).
  const auto tick = static_cast<std::size_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  co_return candidates[(tick >> 10) % candidates.size()];
}

}  // namespace kapi::aggregator

// discovery.k8s.io/v1 EndpointSlice (pkg/registry/discovery/endpointslice/strategy.go, SetDefaults_EndpointPort,
// ValidateEndpointSliceCreate/Update of pkg/apis/discovery/validation as of 1.32, printEndpointSlice).
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/discovery/discovery.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/object_meta.h"

#include <set>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kMaxTopologyLabels = 16;
constexpr std::size_t kMaxAddresses = 100;
constexpr std::size_t kMaxPorts = 100;
constexpr std::size_t kMaxEndpoints = 1000;

validation::FieldError too_many(const Path& path, std::size_t actual, std::size_t most) {
  return {validation::ErrorType::TooMany, path.str(), std::to_string(actual),
          "must have at most " + std::to_string(most) + " items"};
}

std::string join(const std::vector<std::string>& messages) {
  std::string out;
  for (const auto& message : messages) out += (out.empty() ? "" : ",") + message;
  return out;
}

// validation.IsFullyQualifiedDomainName.
ErrorList fqdn_errors(const Path& path, std::string_view name) {
  if (name.empty()) return {validation::required(path)};
  if (name.ends_with('.')) name.remove_suffix(1);
  if (auto messages = validation::is_dns1123_subdomain(name); !messages.empty())
    return {validation::invalid(path, name, join(messages))};
  if (name.find('.') == std::string_view::npos)
    return {validation::invalid(path, name, "should be a domain with at least two segments separated by dots")};
  for (std::size_t start = 0;;) {
    const std::size_t dot = name.find('.', start);
    const std::string_view label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (auto messages = validation::is_dns1123_label(label); !messages.empty())
      return {validation::invalid(path, label, join(messages))};
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return {};
}

void validate_endpoints(const json::object& slice, std::string_view address_type, ErrorList& errors) {
  const Path endpoints_path("endpoints");
  const json::array* endpoints = array_at(slice, "endpoints");
  if (!endpoints) return;
  if (endpoints->size() > kMaxEndpoints) {
    errors.push_back(too_many(endpoints_path, endpoints->size(), kMaxEndpoints));
    return;
  }
  for_each_object(&slice, "endpoints", [&](const json::object& endpoint, std::size_t i) {
    const Path at = endpoints_path.index(i);
    const Path addresses_path = at.child("addresses");
    const json::array* addresses = array_at(endpoint, "addresses");
    if (!addresses || addresses->empty())
      errors.push_back(validation::required(addresses_path, "must contain at least 1 address"));
    else if (addresses->size() > kMaxAddresses)
      errors.push_back(too_many(addresses_path, addresses->size(), kMaxAddresses));
    if (addresses)
      for (std::size_t a = 0; a < addresses->size(); ++a) {
        const std::string_view address = (*addresses)[a].is_string() ? std::string_view((*addresses)[a].as_string()) : "";
        const Path address_path = addresses_path.index(a);
        if (address_type == "IPv4" || address_type == "IPv6") {
          const bool v4 = core::is_ipv4(address);
          const bool valid = address_type == "IPv4" ? v4 : core::is_ip(address) && !v4;
          if (!valid)
            errors.push_back(validation::invalid(address_path, address,
                                                 address_type == "IPv4" ? "must be a valid IPv4 address"
                                                                        : "must be a valid IPv6 address"));
          core::append(errors, core::non_special_ip_errors(address_path, address));
        } else if (address_type == "FQDN") {
          core::append(errors, fqdn_errors(address_path, address));
        }
      }
    // The internal type calls deprecatedTopology "topology", and so do the field paths.
    const Path topology_path = at.child("topology");
    if (const json::object* topology = object_at(endpoint, "deprecatedTopology")) {
      if (topology->size() > kMaxTopologyLabels) errors.push_back(too_many(topology_path, topology->size(), kMaxTopologyLabels));
      core::append(errors, validation::validate_labels(*topology, topology_path));
    }
    if (auto it = endpoint.find("hostname"); it != endpoint.end() && it->value().is_string())
      for (const auto& message : validation::is_dns1123_label(it->value().as_string()))
        errors.push_back(validation::invalid(at.child("hostname"), it->value().as_string(), message));
  });
}

void validate_ports(const json::object& slice, ErrorList& errors) {
  const Path ports_path("ports");
  const json::array* ports = array_at(slice, "ports");
  if (!ports) return;
  if (ports->size() > kMaxPorts) {
    errors.push_back(too_many(ports_path, ports->size(), kMaxPorts));
    return;
  }
  std::set<std::string, std::less<>> names;
  for_each_object(&slice, "ports", [&](const json::object& port, std::size_t i) {
    const Path at = ports_path.index(i);
    const std::string_view name = string_at(port, "name");
    if (!name.empty())
      for (const auto& message : validation::is_dns1123_label(name))
        errors.push_back(validation::invalid(at.child("name"), name, message));
    if (!names.emplace(name).second) errors.push_back(validation::duplicate(at.child("name"), name));
    auto protocol = port.find("protocol");
    if (protocol == port.end() || !protocol->value().is_string()) errors.push_back(validation::required(at.child("protocol")));
    else if (const std::string_view value = protocol->value().as_string(); value != "TCP" && value != "UDP" && value != "SCTP")
      errors.push_back(validation::not_supported(at.child("protocol"), value, {"SCTP", "TCP", "UDP"}));
    if (auto it = port.find("appProtocol"); it != port.end() && it->value().is_string())
      for (const auto& message : validation::is_qualified_name(it->value().as_string()))
        errors.push_back(validation::invalid(at.child("appProtocol"), it->value().as_string(), message));
  });
}

ErrorList validate_slice(const json::object& slice, bool allow_deprecated_ip) {
  ErrorList errors;
  const std::string_view address_type = string_at(slice, "addressType");
  std::vector<std::string> supported{"FQDN", "IPv4", "IPv6"};
  if (allow_deprecated_ip) supported = {"FQDN", "IP", "IPv4", "IPv6"};
  if (address_type.empty())
    errors.push_back(validation::required(Path("addressType")));
  else if (std::find(supported.begin(), supported.end(), address_type) == supported.end())
    errors.push_back(validation::not_supported(Path("addressType"), address_type, supported));
  validate_endpoints(slice, address_type, errors);
  validate_ports(slice, errors);
  return errors;
}

// SetDefaults_EndpointPort: a port without a protocol is TCP; an empty name is "" (the field is a pointer). And what
// Go writes whatever the body sent: endpoints and ports (no omitempty) as null, each endpoint's conditions struct.
void set_endpoint_slice_defaults(json::object& slice) {
  for (const char* member : {"endpoints", "ports"})
    if (!slice.contains(member)) slice[member] = nullptr;
  for_each_object(&slice, "endpoints", [](json::object& endpoint, std::size_t) { ensure_object(endpoint, "conditions"); });
  for_each_object(&slice, "ports", [](json::object& port, std::size_t) {
    if (!has(port, "name")) port["name"] = "";
    if (!has(port, "protocol")) port["protocol"] = "TCP";
  });
}

// dropTopologyOnV1: v1 writes drop deprecatedTopology; an update that leaves the endpoints alone keeps it, and a
// node name the old slice recorded there moves to nodeName.
void drop_topology(json::object& slice, const json::object* old) {
  if (old && array_at(slice, "endpoints") && array_at(*old, "endpoints") &&
      *array_at(slice, "endpoints") == *array_at(*old, "endpoints"))
    return;
  std::set<std::string, std::less<>> previous_node_names;
  for_each_object(old, "endpoints", [&](const json::object& endpoint, std::size_t) {
    if (const json::object* topology = object_at(endpoint, "deprecatedTopology"))
      if (auto it = topology->find("kubernetes.io/hostname"); it != topology->end() && it->value().is_string())
        previous_node_names.emplace(it->value().as_string());
  });
  for_each_object(&slice, "endpoints", [&](json::object& endpoint, std::size_t) {
    const json::object* topology = object_at(endpoint, "deprecatedTopology");
    if (!has(endpoint, "nodeName") && topology) {
      if (auto it = topology->find("kubernetes.io/hostname"); it != topology->end() && it->value().is_string() &&
          previous_node_names.contains(std::string_view(it->value().as_string())) &&
          validation::is_dns1123_subdomain(it->value().as_string()).empty())
        endpoint["nodeName"] = it->value();
    }
    endpoint.erase("deprecatedTopology");
  });
}

// formatDiscoveryPorts / formatDiscoveryEndpoints / listWithMoreString.
std::string list_with_more(const std::vector<std::string>& list, std::size_t count) {
  constexpr std::size_t kMax = 3;
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : ",") + item;
  if (count > kMax) return out + " + " + std::to_string(count - kMax) + " more...";
  return out.empty() ? "<unset>" : out;
}

std::string ports_cell(const json::object& slice) {
  std::vector<std::string> list;
  std::size_t count = 0;
  for_each_object(&slice, "ports", [&](const json::object& port, std::size_t) {
    if (list.size() < 3) {
      if (auto number = int_at(port, "port")) list.push_back(std::to_string(*number));
      else if (auto it = port.find("name"); it != port.end() && it->value().is_string()) list.emplace_back(it->value().as_string());
      else list.emplace_back("*");
    }
    ++count;
  });
  return list_with_more(list, count);
}

std::string endpoints_cell(const json::object& slice) {
  std::vector<std::string> list;
  std::size_t count = 0;
  for_each_object(&slice, "endpoints", [&](const json::object& endpoint, std::size_t) {
    for (const auto& address : strings_at(endpoint, "addresses")) {
      if (list.size() < 3) list.push_back(address);
      ++count;
    }
  });
  return list_with_more(list, count);
}

class EndpointSliceStrategy final : public registry::Strategy {
 public:
  // Generation counts every change but metadata's, and label changes too (the strategy's PrepareForUpdate).
  bool tracks_generation() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { set_endpoint_slice_defaults(object); }
  void prepare_for_create(json::object& slice) const override {
    set_endpoint_slice_defaults(slice);
    drop_topology(slice, nullptr);
  }
  void prepare_for_update(json::object& slice, const json::object& old) const override {
    set_endpoint_slice_defaults(slice);
    drop_topology(slice, &old);
    const json::object* labels = object_at(object_at(slice, "metadata"), "labels");
    const json::object* old_labels = object_at(object_at(old, "metadata"), "labels");
    const bool labels_changed = (labels && !labels->empty()) || (old_labels && !old_labels->empty())
                                    ? !(labels && old_labels && *labels == *old_labels)
                                    : false;
    if (labels_changed && !spec_changed(slice, old)) {
      auto& generation = registry::metadata_of(slice)["generation"];
      generation = (generation.is_int64() ? generation.as_int64() : 0) + 1;
    }
  }
  ErrorList validate(const json::object& slice) const override { return validate_slice(slice, false); }
  ErrorList validate_update(const json::object& slice, const json::object& old) const override {
    ErrorList errors = validate_slice(slice, true);
    const std::string_view address_type = string_at(slice, "addressType");
    if (address_type != string_at(old, "addressType"))
      errors.push_back(validation::invalid(Path("addressType"), address_type, "field is immutable"));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"AddressType", "string", "",
             "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice "
             "must be the same type. This field is immutable after creation. The following address types are "
             "currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
             "Represents a Fully Qualified Domain Name.",
             0},
            {"Ports", "string", "",
             "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a "
             "unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined "
             "with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
             0},
            {"Endpoints", "string", "",
             "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 "
             "endpoints.",
             0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& slice) const override {
    return {json::string(registry::meta_string(slice, "name")), json::string(string_at(slice, "addressType")),
            json::string(ports_cell(slice)), json::string(endpoints_cell(slice)), json::string(registry::age_of(slice))};
  }

 private:
  // The Store's own rule (everything but metadata), to not count a change twice.
  static bool spec_changed(const json::object& slice, const json::object& old) {
    json::object a = slice, b = old;
    a.erase("metadata");
    b.erase("metadata");
    return a != b;
  }
};

}  // namespace

ResourceStorage endpointslices() {
  registry::ResourceDefinition definition{.group = "discovery.k8s.io", .version = "v1", .resource = "endpointslices",
                                          .kind = "EndpointSlice", .singular = "endpointslice", .namespaced = true};
  return {std::move(definition), std::make_shared<EndpointSliceStrategy>()};
}

}  // namespace kapi::apis

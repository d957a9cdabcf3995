// core/v1 Endpoints (pkg/registry/core/endpoint): stored under services/endpoints, validated by
// ValidateEndpoints (addresses routable and not special, ports in range and named when several), printed as
// printEndpoints prints them.
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

void validate_address(const json::object& address, const Path& path, ErrorList& errors) {
  const std::string_view ip = string_at(address, "ip");
  core::append(errors, core::ip_errors(path.child("ip"), ip));
  if (auto hostname = string_at(address, "hostname"); !hostname.empty())
    for (auto& message : validation::is_dns1123_label(hostname))
      errors.push_back(validation::invalid(path.child("hostname"), hostname, message));
  if (address.contains("nodeName"))
    for (auto& message : validation::is_dns1123_subdomain(string_at(address, "nodeName")))
      errors.push_back(validation::invalid(path.child("nodeName"), string_at(address, "nodeName"), message));
  core::append(errors, core::non_special_ip_errors(path.child("ip"), ip));
}

ErrorList validate_endpoints(const json::object& endpoints) {
  ErrorList errors;
  const Path subsets_path("subsets");
  for_each_object(&endpoints, "subsets", [&](const json::object& subset, std::size_t i) {
    const Path at = subsets_path.index(i);
    const json::array* addresses = array_at(subset, "addresses");
    const json::array* not_ready = array_at(subset, "notReadyAddresses");
    if ((!addresses || addresses->empty()) && (!not_ready || not_ready->empty()))
      errors.push_back(validation::required(at, "must specify `addresses` or `notReadyAddresses`"));
    for_each_object(&subset, "addresses", [&](const json::object& address, std::size_t a) {
      validate_address(address, at.child("addresses").index(a), errors);
    });
    for_each_object(&subset, "notReadyAddresses", [&](const json::object& address, std::size_t a) {
      validate_address(address, at.child("notReadyAddresses").index(a), errors);
    });
    const json::array* ports = array_at(subset, "ports");
    for_each_object(&subset, "ports", [&](const json::object& port, std::size_t p) {
      const Path port_path = at.child("ports").index(p);
      const std::string_view name = string_at(port, "name");
      if (ports->size() > 1 && name.empty()) errors.push_back(validation::required(port_path.child("name")));
      else if (!name.empty())
        for (auto& message : validation::is_dns1123_label(name))
          errors.push_back(validation::invalid(port_path.child("name"), name, message));
      const std::int64_t number = int_or_zero(&port, "port");
      for (auto& message : core::port_number_errors(number))
        errors.push_back(validation::invalid_value(port_path.child("port"), std::to_string(number), message));
      core::append(errors, core::protocol_errors(port_path.child("protocol"), string_at(port, "protocol")));
    });
  });
  return errors;
}

// formatEndpoints: up to three "ip:port" (or bare IPs for port-less subsets), then "+ N more...".
std::string endpoints_cell(const json::object& endpoints) {
  const json::array* subsets = array_at(endpoints, "subsets");
  if (!subsets || subsets->empty()) return "<none>";
  constexpr std::size_t kMax = 3;
  std::vector<std::string> shown;
  bool more = false;
  std::size_t count = 0;
  for_each_object(&endpoints, "subsets", [&](const json::object& subset, std::size_t) {
    const json::array* addresses = array_at(subset, "addresses");
    const std::size_t address_count = addresses ? addresses->size() : 0;
    auto add_all = [&](const std::function<std::string(const json::object&)>& text) {
      count += address_count;
      for_each_object(&subset, "addresses", [&](const json::object& address, std::size_t) {
        if (more) return;
        if (shown.size() == kMax) {
          more = true;
          return;
        }
        shown.push_back(text(address));
      });
    };
    const json::array* ports = array_at(subset, "ports");
    if (!ports || ports->empty()) {
      add_all([](const json::object& address) { return std::string(string_at(address, "ip")); });
      return;
    }
    for_each_object(&subset, "ports", [&](const json::object& port, std::size_t) {
      const std::string number = std::to_string(int_or_zero(&port, "port"));
      add_all([&](const json::object& address) {
        const std::string ip(string_at(address, "ip"));
        return (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + number;
      });
    });
  });
  std::string out;
  for (const auto& item : shown) out += (out.empty() ? "" : ",") + item;
  if (more) out += " + " + std::to_string(count - kMax) + " more...";
  return out;
}

// SetDefaults_EndpointPort, for the empty protocol a protobuf body carries.
void apply_endpoints_defaults(json::object& endpoints) {
  for_each_object(&endpoints, "subsets", [](json::object& subset, std::size_t) {
    for_each_object(&subset, "ports", [](json::object& port, std::size_t) { default_string(port, "protocol", "TCP"); });
  });
}

class EndpointsStrategy final : public registry::Strategy {
 public:
  bool allow_create_on_update() const override { return true; }
  void prepare_for_create(json::object& endpoints) const override { apply_endpoints_defaults(endpoints); }
  void prepare_for_update(json::object& endpoints, const json::object&) const override {
    apply_endpoints_defaults(endpoints);
  }
  ErrorList validate(const json::object& endpoints) const override { return validate_endpoints(endpoints); }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Endpoints", "string", "",
             "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to "
             "the IPs they share. A single address with multiple ports, some of which are ready and some of which "
             "are not (because they come from different containers) will result in the address being displayed in "
             "different subsets for the different ports. No address will appear in both Addresses and "
             "NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
             0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& endpoints) const override {
    return {json::string(registry::meta_string(endpoints, "name")), json::string(endpoints_cell(endpoints)),
            json::string(registry::age_of(endpoints))};
  }
};

}  // namespace

ResourceStorage endpoints() {
  registry::ResourceDefinition definition{.group = "",
                                          .version = "v1",
                                          .resource = "endpoints",
                                          .kind = "Endpoints",
                                          .singular = "endpoints",
                                          .namespaced = true,
                                          .short_names = {"ep"},
                                          .storage_resource = "services/endpoints"};
  return {std::move(definition), std::make_shared<EndpointsStrategy>()};
}

}  // namespace kapi::apis

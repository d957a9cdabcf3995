// networking.k8s.io/v1 NetworkPolicy (pkg/registry/networking/networkpolicy/strategy.go, SetDefaults_NetworkPolicy
// and SetDefaults_NetworkPolicyPort, ValidateNetworkPolicy/ValidateNetworkPolicyUpdate as of 1.32,
// printNetworkPolicy).
#include "server/apis/apps/workload.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/networking/networking.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/metav1_validation.h"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <optional>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

// A CIDR as netutils.ParseCIDRSloppy reads it: the network address (host bits cleared) and the prefix length.
struct Cidr {
  std::array<unsigned char, 16> network{};
  std::size_t bytes = 4;  // 4 for IPv4, 16 for IPv6
  int prefix = 0;

  bool contains(const Cidr& other) const {
    if (other.bytes != bytes) return false;
    for (int bit = 0; bit < prefix; ++bit) {
      const int mask = 0x80 >> (bit % 8);
      if ((network[bit / 8] & mask) != (other.network[bit / 8] & mask)) return false;
    }
    return true;
  }
};

std::optional<Cidr> parse_cidr(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string address(text.substr(0, slash));
  const std::string_view prefix_text = text.substr(slash + 1);
  Cidr cidr;
  if (inet_pton(AF_INET, address.c_str(), cidr.network.data()) == 1) cidr.bytes = 4;
  else if (inet_pton(AF_INET6, address.c_str(), cidr.network.data()) == 1) cidr.bytes = 16;
  else return std::nullopt;
  auto [end, error] = std::from_chars(prefix_text.data(), prefix_text.data() + prefix_text.size(), cidr.prefix);
  if (prefix_text.empty() || error != std::errc() || end != prefix_text.data() + prefix_text.size() || cidr.prefix < 0 ||
      cidr.prefix > static_cast<int>(cidr.bytes * 8))
    return std::nullopt;
  for (int bit = cidr.prefix; bit < static_cast<int>(cidr.bytes * 8); ++bit)
    cidr.network[bit / 8] &= static_cast<unsigned char>(~(0x80 >> (bit % 8)));
  return cidr;
}

// ValidateIPBlock (1.32: validation.IsValidCIDR on cidr, ParseCIDRSloppy on each except).
void validate_ip_block(const json::object& block, const Path& path, ErrorList& errors) {
  const std::string_view cidr_text = string_at(block, "cidr");
  if (cidr_text.empty()) {
    errors.push_back(validation::required(path.child("cidr")));
    return;
  }
  const std::optional<Cidr> cidr = parse_cidr(cidr_text);
  if (!cidr) {
    errors.push_back(validation::invalid(path.child("cidr"), cidr_text,
                                         "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
    return;
  }
  const json::array* excepts = array_at(block, "except");
  if (!excepts) return;
  for (std::size_t i = 0; i < excepts->size(); ++i) {
    const std::string_view text = (*excepts)[i].is_string() ? std::string_view((*excepts)[i].as_string()) : "";
    const Path except_path = path.child("except").index(i);
    const std::optional<Cidr> except = parse_cidr(text);
    if (!except) {
      errors.push_back(validation::invalid(except_path, text, "must be a valid CIDR"));
      return;
    }
    if (!cidr->contains(*except) || cidr->prefix >= except->prefix)
      errors.push_back(validation::invalid(except_path, text, "must be a strict subset of `cidr`"));
  }
}

// ValidateNetworkPolicyPort.
void validate_port(const json::object& port, const Path& path, ErrorList& errors) {
  if (auto it = port.find("protocol"); it != port.end() && it->value().is_string()) {
    const std::string_view protocol = it->value().as_string();
    if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
      errors.push_back(validation::not_supported(path.child("protocol"), protocol, {"TCP", "UDP", "SCTP"}));
  }
  const std::optional<std::int64_t> end_port = int_at(port, "endPort");
  auto port_it = port.find("port");
  if (port_it == port.end() || port_it->value().is_null()) {
    if (end_port)
      errors.push_back(validation::invalid_value(path.child("endPort"), std::to_string(*end_port),
                                                 "may not be specified when `port` is not specified"));
    return;
  }
  if (port_it->value().is_string()) {
    const std::string_view name = port_it->value().as_string();
    if (end_port)
      errors.push_back(validation::invalid_value(path.child("endPort"), std::to_string(*end_port),
                                                 "may not be specified when `port` is non-numeric"));
    for (const auto& message : core::port_name_errors(name))
      errors.push_back(validation::invalid(path.child("port"), name, message));
    return;
  }
  const std::int64_t number = int_at(port, "port").value_or(0);
  for (const auto& message : core::port_number_errors(number))
    errors.push_back(validation::invalid_value(path.child("port"), std::to_string(number), message));
  if (end_port) {
    if (*end_port < number)
      errors.push_back(validation::invalid_value(path.child("endPort"), std::to_string(*end_port),
                                                 "must be greater than or equal to `port`"));
    for (const auto& message : core::port_number_errors(*end_port))
      errors.push_back(validation::invalid_value(path.child("endPort"), std::to_string(*end_port), message));
  }
}

// ValidateNetworkPolicyPeer.
void validate_peer(const json::object& peer, const Path& path, ErrorList& errors) {
  int peers = 0;
  for (const char* selector : {"podSelector", "namespaceSelector"})
    if (const json::object* found = object_at(peer, selector)) {
      ++peers;
      core::append(errors, validation::validate_label_selector(*found, path.child(selector)));
    }
  const json::object* block = object_at(peer, "ipBlock");
  if (block) {
    ++peers;
    validate_ip_block(*block, path.child("ipBlock"), errors);
  }
  if (peers == 0) errors.push_back(validation::required(path, "must specify a peer"));
  else if (peers > 1 && block) errors.push_back(validation::forbidden(path, "may not specify both ipBlock and another peer"));
}

ErrorList validate_network_policy(const json::object& policy) {
  ErrorList errors;
  const Path spec_path("spec");
  const json::object& spec = object_or_empty(policy, "spec");
  core::append(errors, validation::validate_label_selector(object_or_empty(spec, "podSelector"), spec_path.child("podSelector")));
  for (const auto& [direction, peers] : {std::pair{"ingress", "from"}, std::pair{"egress", "to"}}) {
    for_each_object(&spec, direction, [&](const json::object& rule, std::size_t i) {
      const Path rule_path = spec_path.child(direction).index(i);
      for_each_object(&rule, "ports", [&](const json::object& port, std::size_t p) {
        validate_port(port, rule_path.child("ports").index(p), errors);
      });
      for_each_object(&rule, peers, [&](const json::object& peer, std::size_t p) {
        validate_peer(peer, rule_path.child(peers).index(p), errors);
      });
    });
  }
  const json::array* types = array_at(spec, "policyTypes");
  if (!types) return errors;
  if (types->size() > 2) {
    errors.push_back(validation::invalid_value(spec_path.child("policyTypes"), "[]networking.PolicyType" + go_string_slice(types).substr(std::string_view("[]string").size()),
                                               "may not specify more than two policyTypes"));
    return errors;
  }
  for (std::size_t i = 0; i < types->size(); ++i) {
    const std::string_view type = (*types)[i].is_string() ? std::string_view((*types)[i].as_string()) : "";
    if (type != "Ingress" && type != "Egress")
      errors.push_back(validation::not_supported(spec_path.child("policyTypes").index(i), type, {"Ingress", "Egress"}));
  }
  return errors;
}

// SetDefaults_NetworkPolicy (policyTypes: Ingress, and Egress when egress rules exist) and
// SetDefaults_NetworkPolicyPort (protocol TCP).
void set_network_policy_defaults(json::object& policy) {
  json::object& spec = ensure_object(policy, "spec");
  ensure_object(spec, "podSelector");  // no omitempty: Go writes the empty selector as {}
  for (const char* direction : {"ingress", "egress"})
    for_each_object(&spec, direction, [](json::object& rule, std::size_t) {
      for_each_object(&rule, "ports", [](json::object& port, std::size_t) {
        if (!has(port, "protocol")) port["protocol"] = "TCP";
      });
    });
  const json::array* types = array_at(spec, "policyTypes");
  if (types && !types->empty()) return;
  json::array defaults{"Ingress"};
  const json::array* egress = array_at(spec, "egress");
  if (egress && !egress->empty()) defaults.emplace_back("Egress");
  spec["policyTypes"] = std::move(defaults);
}

class NetworkPolicyStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { set_network_policy_defaults(object); }
  void prepare_for_create(json::object& policy) const override { set_network_policy_defaults(policy); }
  void prepare_for_update(json::object& policy, const json::object&) const override { set_network_policy_defaults(policy); }
  ErrorList validate(const json::object& policy) const override { return validate_network_policy(policy); }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Pod-Selector", "string", "",
             "podSelector selects the pods to which this NetworkPolicy object applies. The array of ingress rules is "
             "applied to any pods selected by this field. Multiple network policies can select the same set of pods. "
             "In this case, the ingress rules for each are combined additively. This field is NOT optional and "
             "follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
             0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& policy) const override {
    // metav1.FormatLabelSelector: "<none>" for the empty selector, "<error>" for one that does not parse.
    const std::optional<std::string> selector =
        apps::selector_string(object_at(object_at(policy, "spec"), "podSelector"));
    const std::string cell = !selector ? "<error>" : selector->empty() ? "<none>" : *selector;
    return {json::string(registry::meta_string(policy, "name")), json::string(cell),
            json::string(registry::age_of(policy))};
  }
};

}  // namespace

ResourceStorage networkpolicies() {
  registry::ResourceDefinition definition{.group = "networking.k8s.io", .version = "v1", .resource = "networkpolicies",
                                          .kind = "NetworkPolicy", .singular = "networkpolicy", .namespaced = true,
                                          .short_names = {"netpol"}};
  return {std::move(definition), std::make_shared<NetworkPolicyStrategy>()};
}

}  // namespace kapi::apis

// core/v1 Service (pkg/registry/core/service): stored under services/specs, defaulted as SetDefaults_Service
// and the service REST's IP family init do it, validated by ValidateService/ValidateServiceUpdate, given a
// cluster IP and node ports by the ServiceAllocator, printed as printService prints it.
#include "base/name_validation.h"
#include "server/apis/core/connect.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/core/service_allocator.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/selectors/label_selector.h"
#include "server/validation/object_meta.h"

#include <algorithm>
#include <map>
#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using core::append;
using validation::ErrorList;
using validation::Path;

bool externally_accessible(const json::object* spec) {
  const std::string_view type = string_at(spec, "type");
  const json::array* external_ips = spec ? array_at(*spec, "externalIPs") : nullptr;
  return type == "LoadBalancer" || type == "NodePort" ||
         (type == "ClusterIP" && external_ips && !external_ips->empty());
}

// SetDefaults_Service beyond the static markers.
void apply_service_defaults(json::object& service) {
  json::object& spec = ensure_object(service, "spec");
  default_string(spec, "sessionAffinity", "None");
  default_string(spec, "type", "ClusterIP");
  for_each_object(&spec, "ports", [](json::object& port, std::size_t) { default_string(port, "protocol", "TCP"); });
  // Copies, not views: inserting or erasing a member may move the others.
  const std::string affinity(string_at(spec, "sessionAffinity"));
  if (affinity == "None") spec.erase("sessionAffinityConfig");
  if (affinity == "ClientIP") {
    const json::object* config = object_at(spec, "sessionAffinityConfig");
    const json::object* client_ip = config ? object_at(*config, "clientIP") : nullptr;
    if (!client_ip || !has(*client_ip, "timeoutSeconds"))
      spec["sessionAffinityConfig"] = json::object{{"clientIP", json::object{{"timeoutSeconds", 10800}}}};
  }
  for_each_object(&spec, "ports", [](json::object& port, std::size_t) {
    const json::value* target = port.if_contains("targetPort");
    const bool unset = !target || target->is_null() || (target->is_int64() && target->as_int64() == 0) ||
                       (target->is_string() && target->as_string().empty());
    if (unset && port.contains("port")) port["targetPort"] = port["port"];
  });
  if (externally_accessible(&spec) && string_at(spec, "externalTrafficPolicy").empty())
    spec["externalTrafficPolicy"] = "Cluster";
  const std::string type(string_at(spec, "type"));
  if (!has(spec, "internalTrafficPolicy") && (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP"))
    spec["internalTrafficPolicy"] = "Cluster";
  if (type == "LoadBalancer" && !has(spec, "allocateLoadBalancerNodePorts")) spec["allocateLoadBalancerNodePorts"] = true;
}

// The service REST's normalizeClusterIPs and initIPFamilyFields, for a cluster serving IPv4 only.
void init_cluster_ip_fields(json::object& service) {
  json::object& spec = ensure_object(service, "spec");
  const std::string cluster_ip(string_at(spec, "clusterIP"));
  const json::array* cluster_ips = array_at(spec, "clusterIPs");
  if (!cluster_ip.empty() && (!cluster_ips || cluster_ips->empty())) spec["clusterIPs"] = json::array{json::string(cluster_ip)};
  if (cluster_ip.empty() && cluster_ips && !cluster_ips->empty() && (*cluster_ips)[0].is_string())
    spec["clusterIP"] = (*cluster_ips)[0];
  if (!core::needs_cluster_ip(service)) return;
  const json::object* selector = object_at(spec, "selector");
  const bool selectorless_headless = core::is_headless(service) && (!selector || selector->empty());
  if (!has(spec, "ipFamilyPolicy")) spec["ipFamilyPolicy"] = selectorless_headless ? "RequireDualStack" : "SingleStack";
  const json::array* families = array_at(spec, "ipFamilies");
  if (!families || families->empty()) spec["ipFamilies"] = json::array{"IPv4"};
}

void validate_service_port(const json::object& port, bool require_name, std::set<std::string, std::less<>>& names,
                           const Path& path, ErrorList& errors) {
  const std::string_view name = string_at(port, "name");
  if (require_name && name.empty()) {
    errors.push_back(validation::required(path.child("name")));
  } else if (!name.empty()) {
    for (auto& message : validation::is_dns1123_label(name)) errors.push_back(validation::invalid(path.child("name"), name, message));
    if (!names.emplace(name).second) errors.push_back(validation::duplicate(path.child("name"), name));
  }
  const std::int64_t number = int_or_zero(&port, "port");
  for (auto& message : core::port_number_errors(number))
    errors.push_back(validation::invalid_value(path.child("port"), std::to_string(number), message));
  append(errors, core::protocol_errors(path.child("protocol"), string_at(port, "protocol")));
  if (const json::value* target = port.if_contains("targetPort")) {
    if (target->is_int64())
      for (auto& message : core::port_number_errors(target->as_int64()))
        errors.push_back(validation::invalid_value(path.child("targetPort"), std::to_string(target->as_int64()), message));
    else if (target->is_string())
      for (auto& message : core::port_name_errors(target->as_string()))
        errors.push_back(validation::invalid(path.child("targetPort"), target->as_string(), message));
  }
}

void one_of(ErrorList& errors, const Path& path, std::string_view value, const std::vector<std::string>& valid) {
  if (value.empty()) errors.push_back(validation::required(path));
  else if (std::find(valid.begin(), valid.end(), value) == valid.end())
    errors.push_back(validation::not_supported(path, value, valid));
}

// ValidateService's essentials (ports, type, affinity, selector, cluster IPs, traffic policies).
ErrorList validate_service(const json::object& service) {
  ErrorList errors;
  // Service names are DNS-1035 labels; the Store has checked them as DNS-1123 labels already.
  const std::string_view name = registry::meta_string(service, "name");
  if (!name.empty() && validation::is_dns1123_label(name).empty())
    for (std::string& message : validation::is_dns1035_label(name))
      errors.push_back(validation::invalid(Path("metadata").child("name"), name, std::move(message)));

  static const json::object kEmpty;
  const json::object* spec_ptr = object_at(service, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  const Path spec_path("spec");
  const std::string_view type = string_at(spec, "type");
  const bool headless = core::is_headless(service);
  const json::array* ports = array_at(spec, "ports");
  const json::array* cluster_ips = array_at(spec, "clusterIPs");
  if ((!ports || ports->empty()) && !headless && type != "ExternalName")
    errors.push_back(validation::required(spec_path.child("ports")));
  if ((type == "LoadBalancer" || type == "NodePort") && headless)
    errors.push_back(validation::invalid(spec_path.child("clusterIPs").index(0), "None",
                                         "may not be set to 'None' for " + std::string(type) + " services"));
  if (type == "ExternalName") {
    if (cluster_ips && !cluster_ips->empty())
      errors.push_back(validation::forbidden(spec_path.child("clusterIPs"), "may not be set for ExternalName services"));
    if (const json::array* families = array_at(spec, "ipFamilies"); families && !families->empty())
      errors.push_back(validation::forbidden(spec_path.child("ipFamilies"), "may not be set for ExternalName services"));
    if (has(spec, "ipFamilyPolicy"))
      errors.push_back(validation::forbidden(spec_path.child("ipFamilyPolicy"), "may not be set for ExternalName services"));
    std::string_view cname = string_at(spec, "externalName");
    if (cname.ends_with('.')) cname.remove_suffix(1);
    if (cname.empty()) errors.push_back(validation::required(spec_path.child("externalName")));
    for (auto& message : validation::is_dns1123_subdomain(cname.empty() ? "a" : cname))
      errors.push_back(validation::invalid(spec_path.child("externalName"), cname, message));
  }
  std::set<std::string, std::less<>> names;
  for_each_object(&spec, "ports", [&](const json::object& port, std::size_t i) {
    validate_service_port(port, ports->size() > 1, names, spec_path.child("ports").index(i), errors);
  });
  if (const json::object* selector = object_at(spec, "selector"))
    append(errors, validation::validate_labels(*selector, spec_path.child("selector")));
  const std::string_view affinity = string_at(spec, "sessionAffinity");
  one_of(errors, spec_path.child("sessionAffinity"), affinity, {"ClientIP", "None"});
  if (affinity == "None" && has(spec, "sessionAffinityConfig"))
    errors.push_back(validation::forbidden(spec_path.child("sessionAffinityConfig"), "must not be set when session affinity is None"));

  // ValidateServiceClusterIPsRelatedFields, single stack.
  if (type != "ExternalName") {
    const std::string_view cluster_ip = string_at(spec, "clusterIP");
    const std::string ips_text = go_string_slice(cluster_ips);
    if (!cluster_ip.empty()) {
      if (!cluster_ips || cluster_ips->empty()) errors.push_back(validation::required(spec_path.child("clusterIPs")));
      else if (!(*cluster_ips)[0].is_string() || (*cluster_ips)[0].as_string() != cluster_ip)
        errors.push_back(validation::invalid_value(spec_path.child("clusterIPs"), ips_text, "first value must match `clusterIP`"));
    } else if (cluster_ips && !cluster_ips->empty()) {
      errors.push_back(validation::invalid_value(spec_path.child("clusterIPs"), ips_text,
                                                 "must be empty when `clusterIP` is not specified"));
    }
    for (std::size_t i = 0; cluster_ips && i < cluster_ips->size(); ++i) {
      const std::string_view ip = (*cluster_ips)[i].is_string() ? std::string_view((*cluster_ips)[i].as_string()) : "";
      if (i == 0 && ip == "None") continue;
      append(errors, core::ip_errors(spec_path.child("clusterIPs").index(i), ip));
      if (core::is_ip(ip) && !core::is_ipv4(ip))
        errors.push_back(validation::invalid(spec_path.child("clusterIPs").index(i), ip,
                                             "expected an IPv4 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
    }
    if (cluster_ips && cluster_ips->size() > 1)
      errors.push_back(validation::invalid_value(spec_path.child("clusterIPs"), ips_text,
                                                 "may specify no more than one IP for each IP family"));
    if (const json::array* families = array_at(spec, "ipFamilies"))
      for (std::size_t i = 0; i < families->size(); ++i) {
        const std::string_view family = (*families)[i].is_string() ? std::string_view((*families)[i].as_string()) : "";
        if (family != "IPv4" && family != "IPv6")
          errors.push_back(validation::not_supported(spec_path.child("ipFamilies").index(i), family, {"IPv4", "IPv6"}));
        else if (family != "IPv4")
          errors.push_back(validation::invalid(spec_path.child("ipFamilies").index(i), family, "not configured on this cluster"));
      }
    const std::string_view policy = string_at(spec, "ipFamilyPolicy");
    if (!policy.empty() && policy != "SingleStack" && policy != "PreferDualStack" && policy != "RequireDualStack")
      errors.push_back(validation::not_supported(spec_path.child("ipFamilyPolicy"), policy,
                                                 {"PreferDualStack", "RequireDualStack", "SingleStack"}));
    const json::object* selector = object_at(spec, "selector");
    if (policy == "RequireDualStack" && !(headless && (!selector || selector->empty())))
      errors.push_back(validation::invalid(spec_path.child("ipFamilyPolicy"), policy,
                                           "this cluster is not configured for dual-stack services"));
  }

  if (const json::array* external_ips = array_at(spec, "externalIPs"))
    for (std::size_t i = 0; i < external_ips->size(); ++i)
      append(errors, core::ip_errors(spec_path.child("externalIPs").index(i),
                                     (*external_ips)[i].is_string() ? std::string_view((*external_ips)[i].as_string()) : ""));
  one_of(errors, spec_path.child("type"), type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});
  std::set<std::pair<std::string, std::int64_t>> node_ports;
  std::set<std::pair<std::string, std::int64_t>> service_ports;
  for_each_object(&spec, "ports", [&](const json::object& port, std::size_t i) {
    const Path at = spec_path.child("ports").index(i);
    const std::int64_t node_port = int_or_zero(&port, "nodePort");
    const std::string protocol(string_at(port, "protocol"));
    if (type == "ClusterIP" && node_port != 0)
      errors.push_back(validation::forbidden(at.child("nodePort"), "may not be used when `type` is 'ClusterIP'"));
    if (node_port != 0 && !node_ports.emplace(protocol, node_port).second)
      errors.push_back({validation::ErrorType::Duplicate, at.child("nodePort").str(), std::to_string(node_port), ""});
    const std::int64_t number = int_or_zero(&port, "port");
    if (!service_ports.emplace(protocol, number).second)
      errors.push_back({validation::ErrorType::Duplicate, at.str(),
                        "core.ServicePort{Name:\"\", Protocol:\"" + protocol + "\", AppProtocol:(*string)(nil), Port:" +
                            std::to_string(number) + ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
                        ""});
  });

  // validateServiceExternalTrafficPolicy and validateServiceInternalTrafficFieldsValue.
  const std::string_view external_policy = string_at(spec, "externalTrafficPolicy");
  if (!externally_accessible(&spec)) {
    if (!external_policy.empty())
      errors.push_back(validation::invalid(spec_path.child("externalTrafficPolicy"), external_policy,
                                           "may only be set for externally-accessible services"));
  } else {
    one_of(errors, spec_path.child("externalTrafficPolicy"), external_policy, {"Cluster", "Local"});
  }
  if (const std::int64_t health = int_or_zero(&spec, "healthCheckNodePort");
      health != 0 && !core::needs_health_check_node_port(service))
    errors.push_back(validation::invalid_value(spec_path.child("healthCheckNodePort"), std::to_string(health),
                                               "may only be set when `type` is 'LoadBalancer' and "
                                               "`externalTrafficPolicy` is 'Local'"));
  const std::string_view internal_policy = string_at(spec, "internalTrafficPolicy");
  if (!has(spec, "internalTrafficPolicy") && (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP"))
    errors.push_back(validation::required(spec_path.child("internalTrafficPolicy"), "must be specified"));
  else if (has(spec, "internalTrafficPolicy") && internal_policy != "Cluster" && internal_policy != "Local")
    errors.push_back(validation::not_supported(spec_path.child("internalTrafficPolicy"), internal_policy, {"Cluster", "Local"}));
  return errors;
}

// validateUpgradeDowngradeClusterIPs, single stack: the cluster IP stays what it was (ExternalName and
// headless aside).
ErrorList validate_service_update(const json::object& service, const json::object& old) {
  ErrorList errors;
  const json::object* spec = object_at(service, "spec");
  const json::object* old_spec = object_at(old, "spec");
  if (string_at(spec, "type") == "ExternalName" || string_at(old_spec, "type") == "ExternalName") return errors;
  if (core::is_headless(service) && core::is_headless(old)) return errors;
  const json::array* now = spec ? array_at(*spec, "clusterIPs") : nullptr;
  const json::array* before = old_spec ? array_at(*old_spec, "clusterIPs") : nullptr;
  const std::size_t now_size = now ? now->size() : 0;
  const std::size_t before_size = before ? before->size() : 0;
  const Path first = Path("spec").child("clusterIPs").index(0);
  if (before_size > 0 && now_size == 0)
    errors.push_back(validation::invalid_value(first, go_string_slice(now), "primary clusterIP can not be unset"));
  for (std::size_t i = 0; i < before_size && i < now_size; ++i)
    if ((*before)[i] != (*now)[i])
      errors.push_back(validation::invalid_value(Path("spec").child("clusterIPs").index(i), go_string_slice(now),
                                                 "may not change once set"));
  return errors;
}

// dropTypeDependentFields: a type change clears what the old type had and the new one has no use for, when the
// client left it as it was (it was most likely allocated or defaulted, not asked for).
void drop_type_dependent_fields(json::object& service, const json::object& old) {
  json::object& spec = ensure_object(service, "spec");
  const json::object* old_spec = object_at(old, "spec");
  if (!old_spec) return;
  auto same = [&](std::string_view key) {
    const json::value* now = spec.if_contains(key);
    const json::value* before = old_spec->if_contains(key);
    return (now ? *now : json::value()) == (before ? *before : json::value());
  };
  if (core::needs_cluster_ip(old) && !core::needs_cluster_ip(service)) {
    if (same("clusterIP") && same("clusterIPs")) {
      spec.erase("clusterIP");
      spec.erase("clusterIPs");
    }
    if (same("ipFamilies")) spec.erase("ipFamilies");
    if (same("ipFamilyPolicy")) spec.erase("ipFamilyPolicy");
  }
  auto node_ports = [](const json::object* of) {
    std::vector<std::int64_t> ports;
    for_each_object(of, "ports", [&](const json::object& port, std::size_t) { ports.push_back(int_or_zero(&port, "nodePort")); });
    return ports;
  };
  if (core::needs_node_ports(old) && !core::needs_node_ports(service) && node_ports(&spec) == node_ports(old_spec))
    for_each_object(&spec, "ports", [](json::object& port, std::size_t) { port.erase("nodePort"); });
  if (core::needs_health_check_node_port(old) && !core::needs_health_check_node_port(service) && same("healthCheckNodePort"))
    spec.erase("healthCheckNodePort");
  if (string_at(old_spec, "type") == "LoadBalancer" && string_at(spec, "type") != "LoadBalancer") {
    if (has(spec, "allocateLoadBalancerNodePorts") && same("allocateLoadBalancerNodePorts"))
      spec.erase("allocateLoadBalancerNodePorts");
    if (same("loadBalancerClass")) spec.erase("loadBalancerClass");
  }
  if (externally_accessible(old_spec) && !externally_accessible(&spec) && same("externalTrafficPolicy"))
    spec.erase("externalTrafficPolicy");
}

// patchAllocatedValues: what the client left out of an update keeps its allocated value.
void keep_allocated_values(json::object& service, const json::object& old) {
  json::object& spec = ensure_object(service, "spec");
  const json::object* old_spec = object_at(old, "spec");
  if (!old_spec) return;
  if (core::needs_cluster_ip(old) && core::needs_cluster_ip(service)) {
    if (string_at(spec, "clusterIP").empty() && has(*old_spec, "clusterIP")) spec["clusterIP"] = old_spec->at("clusterIP");
    const json::array* ips = array_at(spec, "clusterIPs");
    if ((!ips || ips->empty()) && has(*old_spec, "clusterIPs")) spec["clusterIPs"] = old_spec->at("clusterIPs");
  }
  if (core::needs_node_ports(old) && core::needs_node_ports(service)) {
    std::set<std::int64_t> in_use;
    for_each_object(&spec, "ports", [&](const json::object& port, std::size_t) { in_use.insert(int_or_zero(&port, "nodePort")); });
    std::map<std::string, std::int64_t, std::less<>> by_name;
    for_each_object(old_spec, "ports", [&](const json::object& port, std::size_t) {
      by_name[std::string(string_at(port, "name"))] = int_or_zero(&port, "nodePort");
    });
    for_each_object(&spec, "ports", [&](json::object& port, std::size_t) {
      if (int_or_zero(&port, "nodePort") != 0) return;
      auto it = by_name.find(string_at(port, "name"));
      if (it != by_name.end() && it->second != 0 && !in_use.contains(it->second)) port["nodePort"] = it->second;
    });
  }
  if (core::needs_health_check_node_port(old) && core::needs_health_check_node_port(service) &&
      int_or_zero(&spec, "healthCheckNodePort") == 0 && has(*old_spec, "healthCheckNodePort"))
    spec["healthCheckNodePort"] = old_spec->at("healthCheckNodePort");
}

std::string external_ip_cell(const json::object& service) {
  const json::object* spec = object_at(service, "spec");
  const std::string_view type = string_at(spec, "type");
  std::string external;
  if (const json::array* ips = spec ? array_at(*spec, "externalIPs") : nullptr)
    for (const auto& ip : *ips) external += (external.empty() ? "" : ",") + std::string(ip.is_string() ? ip.as_string() : "");
  if (type == "ClusterIP" || type == "NodePort") return external.empty() ? "<none>" : external;
  if (type == "ExternalName") return std::string(string_at(spec, "externalName"));
  if (type != "LoadBalancer") return "<unknown>";
  std::set<std::string> ingress;
  const json::object* status = object_at(service, "status");
  const json::object* balancer = status ? object_at(*status, "loadBalancer") : nullptr;
  for_each_object(balancer, "ingress", [&](const json::object& point, std::size_t) {
    if (auto ip = string_at(point, "ip"); !ip.empty()) ingress.emplace(ip);
    else if (auto host = string_at(point, "hostname"); !host.empty()) ingress.emplace(host);
  });
  std::string balancers;
  for (const auto& point : ingress) balancers += (balancers.empty() ? "" : ",") + point;
  if (!external.empty()) return balancers.empty() ? external : balancers + "," + external;
  return balancers.empty() ? "<pending>" : balancers;
}

class ServiceStrategy final : public registry::Strategy {
 public:
  ServiceStrategy(std::shared_ptr<core::ServiceAllocator> allocator, std::shared_ptr<const core::ConnectConfig> connect)
      : allocator_(std::move(allocator)), connect_(std::move(connect)) {}
  std::vector<registry::ConnectSubresource> connect_subresources() const override {
    return {core::service_proxy(connect_)};
  }

  bool name_is_dns_label() const override { return true; }
  bool allow_create_on_update() const override { return true; }
  void prepare_for_create(json::object& service) const override {
    apply_service_defaults(service);
    service["status"] = json::object{{"loadBalancer", json::object()}};
    init_cluster_ip_fields(service);
  }
  void prepare_for_update(json::object& service, const json::object& old) const override {
    keep_status(service, old);
    apply_service_defaults(service);
    drop_type_dependent_fields(service, old);
    keep_allocated_values(service, old);
    init_cluster_ip_fields(service);
  }
  // kube's beginCreate and beginUpdate: the values a service needs from the shared ranges, given back when the
  // write fails. Only a service that will pass validation takes them.
  asio::awaitable<FinishWrite> begin_write(json::object& service, const json::object* old,
                                           bool dry_run) const override {
    if (!validate_all(service).empty() || (old && !validate_service_update(service, *old).empty())) co_return nullptr;
    core::ServiceClaims claims = co_await allocator_->allocate(service, old, dry_run);
    // Not a coroutine itself: finish() keeps its own copy of the claims, whatever becomes of this function.
    co_return [allocator = allocator_, claims = std::move(claims)](bool stored) {
      return allocator->finish(claims, stored);
    };
  }
  // kube's afterDelete: a deleted service's values are free again.
  asio::awaitable<void> after_delete(std::string_view stored) const override {
    if (std::optional<json::object> service = registry::parse_json_object(stored)) co_await allocator_->release(*service);
  }
  ErrorList validate(const json::object& service) const override { return validate_service(service); }
  ErrorList validate_update(const json::object& service, const json::object& old) const override {
    ErrorList errors = validate_service_update(service, old);
    append(errors, validate_service(service));
    return errors;
  }

  std::vector<std::string> selectable_field_names() const override { return {"spec.clusterIP", "spec.type"}; }
  void selectable_fields(const json::object& service, registry::SelectableFields& fields) const override {
    const json::object* spec = object_at(service, "spec");
    fields["spec.clusterIP"] = string_at(spec, "clusterIP");
    fields["spec.type"] = string_at(spec, "type");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Type", "string", "",
             "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
             "ClusterIP, NodePort, and LoadBalancer.",
             0},
            {"Cluster-IP", "string", "",
             "clusterIP is the IP address of the service and is usually assigned randomly. If an address is "
             "specified manually, is in-range (as per system configuration), and is not in use, it will be "
             "allocated to the service; otherwise creation of the service will fail.",
             0},
            {"External-IP", "string", "",
             "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for "
             "this service.",
             0},
            {"Port(s)", "string", "", "The list of ports that are exposed by this service.", 0},
            registry::age_column(),
            {"Selector", "string", "",
             "Route service traffic to pods with label keys and values matching this selector.", 1}};
  }
  json::array table_cells(const json::object& service) const override {
    const json::object* spec = object_at(service, "spec");
    std::string cluster_ip = "<none>";
    if (const json::array* ips = spec ? array_at(*spec, "clusterIPs") : nullptr; ips && !ips->empty() && (*ips)[0].is_string())
      cluster_ip = std::string((*ips)[0].as_string());
    std::string ports;
    for_each_object(spec, "ports", [&](const json::object& port, std::size_t) {
      std::string piece = std::to_string(int_or_zero(&port, "port"));
      if (const std::int64_t node_port = int_or_zero(&port, "nodePort"); node_port > 0) piece += ":" + std::to_string(node_port);
      ports += (ports.empty() ? "" : ",") + piece + "/" + std::string(string_at(port, "protocol"));
    });
    return {json::string(registry::meta_string(service, "name")), json::string(string_at(spec, "type")),
            json::string(cluster_ip), json::string(external_ip_cell(service)),
            json::string(ports.empty() ? "<none>" : ports), json::string(registry::age_of(service)),
            json::string(core::format_labels(spec ? object_at(*spec, "selector") : nullptr))};
  }

 private:
  // What the Store will check after this strategy (metadata included): allocation waits for a valid service.
  static ErrorList validate_all(const json::object& service) {
    ErrorList errors = validation::validate_object_meta(service, true, true);
    append(errors, validate_service(service));
    return errors;
  }

  std::shared_ptr<core::ServiceAllocator> allocator_;
  std::shared_ptr<const core::ConnectConfig> connect_;
};

}  // namespace

ResourceStorage services(std::shared_ptr<core::ServiceAllocator> allocator,
                         std::shared_ptr<const core::ConnectConfig> connect) {
  registry::ResourceDefinition definition{.group = "",
                                          .version = "v1",
                                          .resource = "services",
                                          .kind = "Service",
                                          .singular = "service",
                                          .namespaced = true,
                                          .short_names = {"svc"},
                                          .categories = {"all"},
                                          .storage_resource = "services/specs",
                                          .subresources = {"proxy", "status"}};
  return {std::move(definition), std::make_shared<ServiceStrategy>(std::move(allocator), std::move(connect))};
}

}  // namespace kapi::apis

// networking.k8s.io/v1 Ingress (pkg/registry/networking/ingress/strategy.go, ValidateIngressCreate/Update and
// ValidateIngressSpec of pkg/apis/networking/validation as of 1.32, printIngress).
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/networking/networking.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/domain_names.h"

#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::string_view kIngressClassAnnotation = "kubernetes.io/ingress.class";

// IngressValidationOptions: an update may keep what an older kube let in.
struct IngressRules {
  bool allow_invalid_secret_name = false;
  bool allow_invalid_wildcard_host_rule = false;
};

void add_messages(ErrorList& errors, const Path& path, std::string_view value, const std::vector<std::string>& messages) {
  for (const auto& message : messages) errors.push_back(validation::invalid(path, value, message));
}

// validateIngressTypedLocalObjectReference.
void validate_resource_backend(const json::object& resource, const Path& path, ErrorList& errors) {
  if (auto it = resource.find("apiGroup"); it != resource.end() && it->value().is_string())
    add_messages(errors, path.child("apiGroup"), it->value().as_string(),
                 validation::is_dns1123_subdomain(it->value().as_string()));
  for (const char* member : {"kind", "name"}) {
    const std::string_view value = string_at(resource, member);
    if (value.empty()) errors.push_back(validation::required(path.child(member)));
    else add_messages(errors, path.child(member), value, validation::is_valid_path_segment_name(value));
  }
}

// validateIngressBackend.
void validate_backend(const json::object& backend, const Path& path, ErrorList& errors) {
  const json::object* resource = object_at(backend, "resource");
  const json::object* service = object_at(backend, "service");
  if (resource && service) {
    errors.push_back(validation::invalid(path, "", "cannot set both resource and service backends"));
    return;
  }
  if (resource) {
    validate_resource_backend(*resource, path.child("resource"), errors);
    return;
  }
  if (!service) {
    errors.push_back(validation::invalid(path, "", "resource or service backend is required"));
    return;
  }
  const std::string_view name = string_at(*service, "name");
  const Path service_path = path.child("service");
  if (name.empty()) errors.push_back(validation::required(service_path.child("name")));
  else add_messages(errors, service_path.child("name"), name, validation::is_dns1035_label(name));
  const json::object* port = object_at(*service, "port");
  const std::string_view port_name = string_at(port, "name");
  const std::int64_t port_number = int_or_zero(port, "number");
  if (!port_name.empty() && port_number != 0) {
    errors.push_back(validation::invalid(path, "", "cannot set both port name & port number"));
  } else if (!port_name.empty()) {
    add_messages(errors, service_path.child("port").child("name"), port_name, core::port_name_errors(port_name));
  } else if (port_number != 0) {
    for (const auto& message : core::port_number_errors(port_number))
      errors.push_back(validation::invalid_value(service_path.child("port").child("number"),
                                                 std::to_string(port_number), message));
  } else {
    errors.push_back(validation::required(path, "port name or number is required"));
  }
}

// validateHTTPIngressPath.
void validate_path(const json::object& http_path, const Path& path, ErrorList& errors) {
  auto type_it = http_path.find("pathType");
  if (type_it == http_path.end() || !type_it->value().is_string()) {
    errors.push_back(validation::required(path.child("pathType"), "pathType must be specified"));
    return;
  }
  const std::string_view type = type_it->value().as_string();
  const std::string_view value = string_at(http_path, "path");
  if (type == "Exact" || type == "Prefix") {
    if (!value.starts_with('/')) errors.push_back(validation::invalid(path.child("path"), value, "must be an absolute path"));
    if (!value.empty()) {
      for (std::string_view sequence : {"//", "/./", "/../", "%2f", "%2F"})
        if (value.find(sequence) != std::string_view::npos)
          errors.push_back(validation::invalid(path.child("path"), value, "must not contain '" + std::string(sequence) + "'"));
      for (std::string_view suffix : {"/..", "/."})
        if (value.ends_with(suffix))
          errors.push_back(validation::invalid(path.child("path"), value, "cannot end with '" + std::string(suffix) + "'"));
    }
  } else if (type == "ImplementationSpecific") {
    if (!value.empty() && !value.starts_with('/'))
      errors.push_back(validation::invalid(path.child("path"), value, "must be an absolute path"));
  } else {
    errors.push_back(validation::not_supported(path.child("pathType"), type, {"Exact", "ImplementationSpecific", "Prefix"}));
  }
  validate_backend(object_or_empty(http_path, "backend"), path.child("backend"), errors);
}

// validateIngressRuleValue: the http paths of one rule.
ErrorList validate_rule_value(const json::object& rule, const Path& path) {
  ErrorList errors;
  const json::object* http = object_at(rule, "http");
  if (!http) return errors;
  const Path http_path = path.child("http");
  const json::array* paths = array_at(*http, "paths");
  if (!paths || paths->empty()) errors.push_back(validation::required(http_path.child("paths")));
  for_each_object(http, "paths", [&](const json::object& item, std::size_t i) {
    validate_path(item, http_path.child("paths").index(i), errors);
  });
  return errors;
}

ErrorList validate_spec(const json::object& ingress, const IngressRules& rules_options) {
  ErrorList errors;
  const Path spec_path("spec");
  const json::object& spec = object_or_empty(ingress, "spec");
  const json::array* rules = array_at(spec, "rules");
  const json::object* default_backend = object_at(spec, "defaultBackend");
  if ((!rules || rules->empty()) && !default_backend)
    errors.push_back(validation::invalid_value(spec_path, rules ? "[]networking.IngressRule{}" : "[]networking.IngressRule(nil)",
                                               "either `defaultBackend` or `rules` must be specified"));
  if (default_backend) validate_backend(*default_backend, spec_path.child("defaultBackend"), errors);
  for_each_object(&spec, "rules", [&](const json::object& rule, std::size_t i) {
    const Path rule_path = spec_path.child("rules").index(i);
    const std::string_view host = string_at(rule, "host");
    bool wildcard = false;
    if (!host.empty()) {
      if (core::is_ip(host)) errors.push_back(validation::invalid(rule_path.child("host"), host, "must be a DNS name, not an IP address"));
      if (host.find('*') != std::string_view::npos) {
        add_messages(errors, rule_path.child("host"), host, validation::is_wildcard_dns1123_subdomain(host));
        wildcard = true;
      } else {
        add_messages(errors, rule_path.child("host"), host, validation::is_dns1123_subdomain(host));
      }
    }
    if (!wildcard || !rules_options.allow_invalid_wildcard_host_rule)
      core::append(errors, validate_rule_value(rule, rule_path));
  });
  for_each_object(&spec, "tls", [&](const json::object& tls, std::size_t i) {
    const Path tls_path = spec_path.child("tls").index(i);
    if (const json::array* hosts = array_at(tls, "hosts"))
      for (std::size_t h = 0; h < hosts->size(); ++h) {
        const std::string_view host = (*hosts)[h].is_string() ? std::string_view((*hosts)[h].as_string()) : "";
        add_messages(errors, tls_path.child("hosts").index(h), host,
                     host.find('*') != std::string_view::npos ? validation::is_wildcard_dns1123_subdomain(host)
                                                              : validation::is_dns1123_subdomain(host));
      }
    const std::string_view secret = string_at(tls, "secretName");
    if (!rules_options.allow_invalid_secret_name && !secret.empty())
      add_messages(errors, tls_path.child("secretName"), secret, validation::is_dns1123_subdomain(secret));
  });
  if (auto it = spec.find("ingressClassName"); it != spec.end() && it->value().is_string())
    add_messages(errors, spec_path.child("ingressClassName"), it->value().as_string(),
                 validation::is_dns1123_subdomain(it->value().as_string()));
  return errors;
}

// allowInvalidSecretName and allowInvalidWildcardHostRule: what the stored object already holds stays allowed.
IngressRules rules_for_update(const json::object& old) {
  IngressRules rules;
  const json::object& spec = object_or_empty(old, "spec");
  for_each_object(&spec, "tls", [&](const json::object& tls, std::size_t) {
    const std::string_view secret = string_at(tls, "secretName");
    if (!secret.empty() && !validation::is_dns1123_subdomain(secret).empty()) rules.allow_invalid_secret_name = true;
  });
  for_each_object(&spec, "rules", [&](const json::object& rule, std::size_t) {
    if (string_at(rule, "host").find('*') != std::string_view::npos && !validate_rule_value(rule, Path("")).empty())
      rules.allow_invalid_wildcard_host_rule = true;
  });
  return rules;
}

// ValidateIngressLoadBalancerStatus (1.32): what a status write may record. kube checks it on status writes only; a
// main-resource write keeps the stored status, which passed this check when it was written.
ErrorList validate_load_balancer_status(const json::object& ingress) {
  ErrorList errors;
  const Path points_path = Path("status").child("loadBalancer").child("ingress");
  const json::object* load_balancer = object_at(object_at(ingress, "status"), "loadBalancer");
  for_each_object(load_balancer, "ingress", [&](const json::object& point, std::size_t i) {
    const Path at = points_path.index(i);
    if (const std::string_view ip = string_at(point, "ip"); !ip.empty() && !core::is_ip(ip))
      errors.push_back(validation::invalid(at.child("ip"), ip, "must be a valid IP address"));
    if (const std::string_view hostname = string_at(point, "hostname"); !hostname.empty()) {
      add_messages(errors, at.child("hostname"), hostname, validation::is_dns1123_subdomain(hostname));
      if (core::is_ip(hostname))
        errors.push_back(validation::invalid(at.child("hostname"), hostname, "must be a DNS name, not an IP address"));
    }
  });
  return errors;
}

const json::object* annotations_of(const json::object& object) {
  return object_at(object_at(object, "metadata"), "annotations");
}

// formatHosts: up to three hosts, "*" when no rule names one.
std::string hosts_cell(const json::object& spec) {
  constexpr std::size_t kMax = 3;
  std::vector<std::string> hosts;
  bool more = false;
  const json::array* rules = array_at(spec, "rules");
  for_each_object(&spec, "rules", [&](const json::object& rule, std::size_t) {
    if (hosts.size() == kMax) more = true;
    if (!more && !string_at(rule, "host").empty()) hosts.emplace_back(string_at(rule, "host"));
  });
  if (hosts.empty()) return "*";
  std::string out;
  for (const auto& host : hosts) out += (out.empty() ? "" : ",") + host;
  if (more) out += " + " + std::to_string(rules->size() - kMax) + " more...";
  return out;
}

// ingressLoadBalancerStatusStringer with wide output (the server's tables are always wide): sorted, distinct.
std::string address_cell(const json::object& ingress) {
  std::set<std::string> addresses;
  const json::object* load_balancer = object_at(object_at(ingress, "status"), "loadBalancer");
  for_each_object(load_balancer, "ingress", [&](const json::object& point, std::size_t) {
    if (!string_at(point, "ip").empty()) addresses.emplace(string_at(point, "ip"));
    else if (!string_at(point, "hostname").empty()) addresses.emplace(string_at(point, "hostname"));
  });
  std::string out;
  for (const auto& address : addresses) out += (out.empty() ? "" : ",") + address;
  return out;
}

class IngressStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }
  // Create cannot set status; what is left is IngressStatus{} as Go writes it.
  void prepare_for_create(json::object& ingress) const override {
    ingress["status"] = json::object{{"loadBalancer", json::object()}};
  }
  ErrorList validate(const json::object& ingress) const override {
    ErrorList errors = validate_spec(ingress, {});
    const json::object* annotations = annotations_of(ingress);
    const json::object& spec = object_or_empty(ingress, "spec");
    auto class_name = spec.find("ingressClassName");
    if (annotations && annotations->contains(kIngressClassAnnotation) && class_name != spec.end() &&
        class_name->value().is_string() &&
        string_at(*annotations, kIngressClassAnnotation) != class_name->value().as_string())
      errors.push_back(validation::invalid(Path("annotations").child(kIngressClassAnnotation),
                                           string_at(*annotations, kIngressClassAnnotation),
                                           "must match `ingressClassName` when both are specified"));
    return errors;
  }
  ErrorList validate_update(const json::object& ingress, const json::object& old) const override {
    ErrorList errors = validate_spec(ingress, rules_for_update(old));
    core::append(errors, validate_load_balancer_status(ingress));
    return errors;
  }
  std::vector<std::string> write_warnings(const json::object& ingress) const override {
    const json::object* annotations = annotations_of(ingress);
    if (annotations && annotations->contains(kIngressClassAnnotation) &&
        !has(object_or_empty(ingress, "spec"), "ingressClassName"))
      return {"annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"};
    return {};
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Class", "string", "", "The name of the IngressClass resource that should be used for additional configuration", 0},
            {"Hosts", "string", "", "Hosts that incoming requests are matched against before the ingress rule", 0},
            {"Address", "string", "", "Address is a list containing ingress points for the load-balancer", 0},
            {"Ports", "string", "", "Ports of TLS configurations that open", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& ingress) const override {
    const json::object& spec = object_or_empty(ingress, "spec");
    std::string class_name = "<none>";
    if (auto it = spec.find("ingressClassName"); it != spec.end() && it->value().is_string())
      class_name = it->value().as_string();
    const json::array* tls = array_at(spec, "tls");
    return {json::string(registry::meta_string(ingress, "name")), json::string(class_name),
            json::string(hosts_cell(spec)), json::string(address_cell(ingress)),
            json::string(tls && !tls->empty() ? "80, 443" : "80"), json::string(registry::age_of(ingress))};
  }
};

}  // namespace

ResourceStorage ingresses() {
  registry::ResourceDefinition definition{.group = "networking.k8s.io", .version = "v1", .resource = "ingresses",
                                          .kind = "Ingress", .singular = "ingress", .namespaced = true,
                                          .short_names = {"ing"}, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<IngressStrategy>()};
}

}  // namespace kapi::apis

// networking.k8s.io/v1 IngressClass (pkg/registry/networking/ingressclass/strategy.go, SetDefaults_IngressClass,
// ValidateIngressClass/ValidateIngressClassUpdate, printIngressClass).
#include "base/name_validation.h"
#include "server/apis/networking/networking.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/domain_names.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kMaxControllerLength = 250;

// validateIngressClassParametersReference.
void validate_parameters(const json::object& parameters, const Path& path, ErrorList& errors) {
  if (auto it = parameters.find("apiGroup"); it != parameters.end() && it->value().is_string())
    for (const auto& message : validation::is_dns1123_subdomain(it->value().as_string()))
      errors.push_back(validation::invalid(path.child("apiGroup"), it->value().as_string(), message));
  for (const char* member : {"kind", "name"}) {
    const std::string_view value = string_at(parameters, member);
    if (value.empty()) errors.push_back(validation::required(path.child(member)));
    else
      for (const auto& message : validation::is_valid_path_segment_name(value))
        errors.push_back(validation::invalid(path.child(member), value, message));
  }
  auto scope_it = parameters.find("scope");
  if (scope_it == parameters.end() || !scope_it->value().is_string()) {
    errors.push_back(validation::required(path.child("scope")));
    return;
  }
  const std::string_view scope = scope_it->value().as_string();
  const bool has_namespace = has(parameters, "namespace");
  if (scope != "Cluster" && scope != "Namespace") {
    errors.push_back(validation::not_supported(path.child("scope"), scope, {"Cluster", "Namespace"}));
  } else if (scope == "Namespace") {
    if (!has_namespace) {
      errors.push_back(validation::required(path.child("namespace"), "`parameters.scope` is set to 'Namespace'"));
    } else {
      const std::string_view namespace_ = string_at(parameters, "namespace");
      for (const auto& message : validation::is_dns1123_label(namespace_))
        errors.push_back(validation::invalid(path.child("namespace"), namespace_, message));
    }
  } else if (has_namespace) {
    errors.push_back(validation::forbidden(path.child("namespace"), "`parameters.scope` is set to 'Cluster'"));
  }
}

ErrorList validate_ingress_class(const json::object& ingress_class) {
  ErrorList errors;
  const Path spec_path("spec");
  const json::object& spec = object_or_empty(ingress_class, "spec");
  const std::string_view controller = string_at(spec, "controller");
  if (controller.empty()) {
    errors.push_back(validation::required(spec_path.child("controller")));
  } else {
    if (controller.size() > kMaxControllerLength)
      errors.push_back(validation::too_long(spec_path.child("controller"), kMaxControllerLength));
    for (auto& error : validation::is_domain_prefixed_path(spec_path.child("controller"), controller))
      errors.push_back(std::move(error));
  }
  if (const json::object* parameters = object_at(spec, "parameters"))
    validate_parameters(*parameters, spec_path.child("parameters"), errors);
  return errors;
}

// SetDefaults_IngressClass: parameters without a scope are cluster-scoped.
void set_ingress_class_defaults(json::object& ingress_class) {
  json::object* parameters = object_at(object_at(ingress_class, "spec"), "parameters");
  if (parameters && !has(*parameters, "scope")) (*parameters)["scope"] = "Cluster";
}

class IngressClassStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { set_ingress_class_defaults(object); }
  void prepare_for_create(json::object& ingress_class) const override { set_ingress_class_defaults(ingress_class); }
  void prepare_for_update(json::object& ingress_class, const json::object&) const override {
    set_ingress_class_defaults(ingress_class);
  }
  ErrorList validate(const json::object& ingress_class) const override { return validate_ingress_class(ingress_class); }
  ErrorList validate_update(const json::object& ingress_class, const json::object& old) const override {
    ErrorList errors;
    const std::string_view controller = string_at(object_at(ingress_class, "spec"), "controller");
    if (controller != string_at(object_at(old, "spec"), "controller"))
      errors.push_back(validation::invalid(Path("spec").child("controller"), controller, "field is immutable"));
    for (auto& error : validate_ingress_class(ingress_class)) errors.push_back(std::move(error));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Controller", "string", "", "Controller that is responsible for handling this class", 0},
            {"Parameters", "string", "", "A reference to a resource with additional parameters", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& ingress_class) const override {
    const json::object& spec = object_or_empty(ingress_class, "spec");
    std::string parameters_cell = "<none>";
    if (const json::object* parameters = object_at(spec, "parameters")) {
      parameters_cell = std::string(string_at(*parameters, "kind"));
      if (auto it = parameters->find("apiGroup"); it != parameters->end() && it->value().is_string())
        parameters_cell += "." + std::string(it->value().as_string());
      parameters_cell += "/" + std::string(string_at(*parameters, "name"));
    }
    return {json::string(registry::meta_string(ingress_class, "name")), json::string(string_at(spec, "controller")),
            json::string(parameters_cell), json::string(registry::age_of(ingress_class))};
  }
};

}  // namespace

ResourceStorage ingressclasses() {
  registry::ResourceDefinition definition{.group = "networking.k8s.io", .version = "v1", .resource = "ingressclasses",
                                          .kind = "IngressClass", .singular = "ingressclass", .namespaced = false};
  return {std::move(definition), std::make_shared<IngressClassStrategy>()};
}

}  // namespace kapi::apis

// core/v1 ResourceQuota (pkg/registry/core/resourcequota, validation.ValidateResourceQuota and
// ValidateResourceQuotaUpdate, printers.printResourceQuota): status has its own subresource, the scopes are fixed
// at creation.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/resource_names.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <algorithm>
#include <map>
#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

const std::vector<std::string> kScopes{"Terminating",   "NotTerminating", "BestEffort",
                                       "NotBestEffort", "PriorityClass",  "CrossNamespacePodAffinity"};

// helper.IsResourceQuotaScopeValidForResource.
bool scope_fits(std::string_view scope, std::string_view resource) {
  static const std::set<std::string, std::less<>> kCompute{"cpu",           "memory",       "limits.cpu",
                                                           "limits.memory", "requests.cpu", "requests.memory"};
  if (scope == "BestEffort") return resource == "pods";
  if (std::find(kScopes.begin(), kScopes.end(), scope) != kScopes.end())
    return resource == "pods" || kCompute.contains(resource);
  return true;
}

// Go's %#v of the spec's []core.ResourceQuotaScope, as the scope errors print it.
std::string scopes_literal(const json::object* spec) {
  std::string out = "[]core.ResourceQuotaScope{";
  bool first = true;
  for (const auto& scope : strings_at(spec ? *spec : json::object(), "scopes")) {
    out += (first ? "" : ", ") + validation::quoted(scope);
    first = false;
  }
  return out + "}";
}

void validate_resource_list(const json::object* list, const Path& path, ErrorList& errors) {
  if (!list) return;
  std::map<std::string_view, const json::value*> sorted;  // one order for Go's random map iteration
  for (const auto& [name, value] : *list) sorted.emplace(name, &value);
  for (const auto& [name, value] : sorted) {
    core::append(errors, core::quota_resource_name_errors(name, path.key(name)));
    if (value->is_string()) core::append(errors, core::quantity_value_errors(name, value->as_string(), path.key(name)));
  }
}

// validateScopeSelector: its paths name the list, not an element, as kube's do.
void validate_scope_selector(const json::object* spec, ErrorList& errors) {
  const json::object* selector = object_at(spec, "scopeSelector");
  if (!selector) return;
  const Path path = Path("spec").child("scopeSelector").child("matchExpressions");
  std::set<std::string, std::less<>> hard;
  if (const json::object* limits = object_at(spec, "hard"))
    for (const auto& [name, value] : *limits) hard.emplace(name);
  std::set<std::string, std::less<>> seen;
  for_each_object(selector, "matchExpressions", [&](const json::object& requirement, std::size_t) {
    const std::string_view scope = string_at(requirement, "scopeName");
    const std::string_view op = string_at(requirement, "operator");
    if (std::find(kScopes.begin(), kScopes.end(), scope) == kScopes.end())
      errors.push_back(validation::invalid(path.child("scopeName"), scope, "unsupported scope"));
    for (const auto& resource : hard)
      if (core::is_standard_quota_resource_name(resource) && !scope_fits(scope, resource))
        errors.push_back(validation::invalid_value(path, json::serialize(*selector), "unsupported scope applied to resource"));
    if ((scope == "BestEffort" || scope == "NotBestEffort" || scope == "Terminating" || scope == "NotTerminating") &&
        op != "Exists")
      errors.push_back(validation::invalid(path.child("operator"), op,
                                           "must be 'Exist' only operator when scope is any of "
                                           "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
                                           "ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort"));
    const json::array* values = array_at(requirement, "values");
    const bool no_values = !values || values->empty();
    if (op == "In" || op == "NotIn") {
      if (no_values)
        errors.push_back(validation::required(
            path.child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!no_values)
        errors.push_back(validation::invalid_value(
            path.child("values"), go_string_slice(values),
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errors.push_back(validation::invalid(path.child("operator"), op, "not a valid selector operator"));
    }
    seen.emplace(scope);
  });
  for (const auto& [a, b] : {std::pair{"BestEffort", "NotBestEffort"}, std::pair{"Terminating", "NotTerminating"}})
    if (seen.contains(a) && seen.contains(b))
      errors.push_back(validation::invalid_value(path, scopes_literal(spec), "conflicting scopes"));
}

ErrorList validate_spec(const json::object& quota) {
  ErrorList errors;
  const json::object* spec = object_at(quota, "spec");
  validate_resource_list(object_at(spec, "hard"), Path("spec").child("hard"), errors);
  const std::vector<std::string> scopes = spec ? strings_at(*spec, "scopes") : std::vector<std::string>{};
  const Path path = Path("spec").child("scopes");
  std::set<std::string, std::less<>> seen;
  for (const auto& scope : scopes) {
    if (std::find(kScopes.begin(), kScopes.end(), scope) == kScopes.end())
      errors.push_back(validation::invalid_value(path, scopes_literal(spec), "unsupported scope"));
    std::set<std::string, std::less<>> hard;
    if (const json::object* limits = object_at(spec, "hard"))
      for (const auto& [name, value] : *limits) hard.emplace(name);
    for (const auto& resource : hard)
      if (core::is_standard_quota_resource_name(resource) && !scope_fits(scope, resource))
        errors.push_back(validation::invalid_value(path, scopes_literal(spec), "unsupported scope applied to resource"));
    seen.insert(scope);
  }
  for (const auto& [a, b] : {std::pair{"BestEffort", "NotBestEffort"}, std::pair{"Terminating", "NotTerminating"}})
    if (seen.contains(a) && seen.contains(b))
      errors.push_back(validation::invalid_value(path, scopes_literal(spec), "conflicting scopes"));
  validate_scope_selector(spec, errors);
  return errors;
}

// printResourceQuota: "name: used/hard" for each hard limit, sorted, limits.* in the Limit column.
json::array quota_cells(const json::object& quota) {
  const json::object* hard = object_at(object_at(quota, "spec"), "hard");
  const json::object* status = object_at(quota, "status");
  std::vector<std::string> names;
  if (hard)
    for (const auto& [name, value] : *hard) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  std::string requests, limits;
  auto quantity = [](const json::object* list, const std::string& name) {
    std::string_view text = string_at(list, name);
    return text.empty() ? std::string("0") : std::string(text);
  };
  for (const auto& name : names) {
    std::string& column = name.starts_with("limits.") ? limits : requests;
    if (!column.empty()) column += ", ";
    column += name + ": " + quantity(object_at(status, "used"), name) + "/" + quantity(object_at(status, "hard"), name);
  }
  return {json::string(registry::meta_string(quota, "name")), json::string(registry::age_of(quota)),
          json::string(requests), json::string(limits)};
}

class ResourceQuotaStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void prepare_for_create(json::object& object) const override { object["status"] = json::object(); }
  void prepare_for_update(json::object& object, const json::object& old) const override { keep_status(object, old); }
  ErrorList validate(const json::object& object) const override { return core::validate_resource_quota(object); }
  ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return core::validate_resource_quota_update(object, old);
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(), registry::age_column(),
            {"Request", "string", "", "Request represents a minimum amount of cpu/memory that a container may consume.", 0},
            {"Limit", "string", "",
             "Limits control the maximum amount of cpu/memory that a container may use independent of contention on "
             "the node.",
             0}};
  }
  json::array table_cells(const json::object& object) const override { return quota_cells(object); }
};

}  // namespace

namespace core {

ErrorList validate_resource_quota(const json::object& quota) {
  ErrorList errors = validate_spec(quota);
  const json::object* status = object_at(quota, "status");
  validate_resource_list(object_at(status, "hard"), Path("status").child("hard"), errors);
  validate_resource_list(object_at(status, "used"), Path("status").child("used"), errors);
  return errors;
}

// ValidateResourceQuotaUpdate and, for status writes (whose spec is the stored one), ValidateResourceQuotaStatusUpdate.
ErrorList validate_resource_quota_update(const json::object& quota, const json::object& old) {
  ErrorList errors = validate_resource_quota(quota);
  const json::object* spec = object_at(quota, "spec");
  const json::object* old_spec = object_at(old, "spec");
  auto scopes = [](const json::object* holder) {
    std::vector<std::string> list = holder ? strings_at(*holder, "scopes") : std::vector<std::string>{};
    return std::set<std::string>(list.begin(), list.end());
  };
  if (scopes(spec) != scopes(old_spec))
    errors.push_back(validation::invalid_value(Path("spec").child("scopes"), scopes_literal(spec), "field is immutable"));
  return errors;
}

}  // namespace core

ResourceStorage resourcequotas() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "resourcequotas",
                                          .kind = "ResourceQuota", .singular = "resourcequota", .namespaced = true,
                                          .short_names = {"quota"}, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<ResourceQuotaStrategy>()};
}

}  // namespace kapi::apis

// kube's TypeChecker (k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go): typesToCheck from
// the resource rules, the kinds' types from their schemas (the catalog's, or a served CRD's; kind names made unique
// per check, as kube does, but without kube's nanosecond suffix so that warnings are reproducible), variables
// compiled first, no return type enforced.
#include "server/plugin/admission/validating_admission_policy/type_checking.h"

#include "server/apis/admissionregistration/admission_cel.h"
#include "server/plugin/admission/validating_admission_policy/policy.h"
#include "server/plugin/admission/validating_admission_policy/schema_types.h"
#include "server/registry/store.h"
#include "server/registry/json_fields.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace kapi::admission::policy {
namespace {

namespace json = boost::json;
using apis::admissionregistration::AdmissionCompiler;
using apis::admissionregistration::CompileErrorType;
using apis::admissionregistration::DeclaredTypes;
using apis::admissionregistration::ReturnTypes;

constexpr std::size_t kMaxTypesToCheck = 10;

struct Gvk {
  std::string group;
  std::string version;
  std::string kind;
  auto operator<=>(const Gvk&) const = default;
  std::string text() const { return group + "/" + version + ", Kind=" + kind; }
};

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

// extractGroups / extractVersions give up on a wildcard; extractResources skips wildcards and subresources.
std::vector<std::string> rule_values(const json::object& rule, std::string_view key, bool skip_instead) {
  std::vector<std::string> out;
  for (const json::value& item : registry::fields::array_or_empty(rule, key)) {
    if (!item.is_string()) continue;
    const std::string value(item.as_string());
    const bool special = value.find('*') != std::string::npos || (skip_instead && value.find('/') != std::string::npos);
    if (special && !skip_instead) return {};
    if (!special) out.push_back(value);
  }
  std::ranges::sort(out);
  return out;
}

// Where the types come from: the catalog for built-in kinds, the CRDs' schemas for custom resources.
class TypeResolver {
 public:
  TypeResolver(const StoreLookup& stores, const CustomSchemaLookup& custom_schemas, const schema::Catalog& catalog)
      : stores_(stores), custom_schemas_(custom_schemas), catalog_(catalog) {}

  // The kind served at group/version/resource (kube's RESTMapper), or nullopt.
  std::optional<Gvk> kind_for(const std::string& group, const std::string& version,
                              const std::string& resource) const {
    registry::Store* store = stores_ ? stores_(group, resource) : nullptr;
    if (store && store->definition().version == version) return Gvk{group, version, store->definition().kind};
    for (const CustomResourceSchema& custom : custom(group, version))
      if (custom.resource == resource) return Gvk{group, version, custom.kind};
    return std::nullopt;
  }

  // The type of the kind's objects, named after the kind (kube's resolver, then SchemaDeclType).
  std::optional<cel::Type> type_of(const Gvk& gvk) const {
    if (std::optional<cel::Type> type = kind_type(catalog_, gvk.group, gvk.version, gvk.kind, gvk.kind)) return type;
    for (const CustomResourceSchema& custom : custom(gvk.group, gvk.version))
      if (custom.kind == gvk.kind) return custom_kind_type(catalog_, custom.openapi_schema, gvk.kind);
    return std::nullopt;
  }

 private:
  std::vector<CustomResourceSchema> custom(const std::string& group, const std::string& version) const {
    return custom_schemas_ ? custom_schemas_(group, version) : std::vector<CustomResourceSchema>{};
  }

  const StoreLookup& stores_;
  const CustomSchemaLookup& custom_schemas_;
  const schema::Catalog& catalog_;
};

// typesToCheck: the kinds behind the rules' group/version/resource combinations kapi serves, sorted.
std::vector<Gvk> types_to_check(const json::object& spec, const TypeResolver& resolver) {
  std::set<Gvk> kinds;
  std::size_t count = 0;
  for (const json::value& item : registry::fields::array_or_empty(registry::fields::object_or_empty(spec, "matchConstraints"), "resourceRules")) {
    if (!item.is_object()) continue;
    const json::object& rule = item.as_object();
    const std::vector<std::string> groups = rule_values(rule, "apiGroups", false);
    const std::vector<std::string> versions = rule_values(rule, "apiVersions", false);
    const std::vector<std::string> resources = rule_values(rule, "resources", true);
    for (const std::string& group : groups)
      for (const std::string& version : versions)
        for (const std::string& resource : resources) {
          std::optional<Gvk> kind = resolver.kind_for(group, version, resource);
          if (!kind) continue;
          kinds.insert(std::move(*kind));
          if (++count == kMaxTypesToCheck) return {kinds.begin(), kinds.end()};
        }
  }
  return {kinds.begin(), kinds.end()};
}

}  // namespace

std::vector<ExpressionWarning> type_check(const json::object& policy, const StoreLookup& stores,
                                          const CustomSchemaLookup& custom_schemas, const schema::Catalog& catalog) {
  const json::object& spec = registry::fields::object_or_empty(policy, "spec");
  const TypeResolver resolver(stores, custom_schemas, catalog);
  std::vector<std::pair<Gvk, cel::Type>> kinds;
  for (Gvk& gvk : types_to_check(spec, resolver))
    if (std::optional<cel::Type> type = resolver.type_of(gvk)) kinds.emplace_back(std::move(gvk), std::move(*type));
  std::optional<cel::Type> params;
  if (const json::value* param_kind = spec.if_contains("paramKind"); param_kind && param_kind->is_object()) {
    const std::string api_version = string_at(param_kind->as_object(), "apiVersion");
    const std::size_t slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    params = resolver.type_of(Gvk{group, version, string_at(param_kind->as_object(), "kind")});
  }

  // One compiler per kind, its variables compiled against that kind's types.
  std::vector<AdmissionCompiler> compilers;
  for (const auto& [gvk, type] : kinds) {
    DeclaredTypes types{type, params.value_or(cel::Type::dyn())};
    AdmissionCompiler& compiler =
        compilers.emplace_back(apis::admissionregistration::VariableDeclarations{params.has_value(), true},
                               std::move(types), true, false,
                               apis::admissionregistration::Environments::Stored);
    for (const json::value& item : registry::fields::array_or_empty(spec, "variables"))
      if (item.is_object())
        compiler.add_variable(string_at(item.as_object(), "name"), string_at(item.as_object(), "expression"));
  }
  const auto check = [&](const std::string& expression) {
    std::string warning;
    for (std::size_t index = 0; index < kinds.size(); ++index) {
      const apis::admissionregistration::CompiledExpression compiled =
          compilers[index].compile(expression, ReturnTypes::Any);
      if (!compiled.error) continue;
      if (!warning.empty()) warning += "\n";
      // The checker's issues without kube's "compilation failed: " (the type checker reports them bare).
      std::string detail = compiled.error->detail;
      if (compiled.error->type == CompileErrorType::Invalid && detail.starts_with("compilation failed: "))
        warning += kinds[index].first.text() + ": " + detail.substr(std::string_view("compilation failed: ").size()) + "\n";
      else
        warning += kinds[index].first.text() + ": type checking error: " + detail + "\n";
    }
    return warning;
  };

  std::vector<ExpressionWarning> warnings;
  const json::array& validations = registry::fields::array_or_empty(spec, "validations");
  for (std::size_t index = 0; index < validations.size(); ++index) {
    if (!validations[index].is_object()) continue;
    const json::object& validation = validations[index].as_object();
    const std::string at = "spec.validations[" + std::to_string(index) + "]";
    if (std::string warning = check(string_at(validation, "expression")); !warning.empty())
      warnings.push_back({at + ".expression", std::move(warning)});
    const std::string message_expression = string_at(validation, "messageExpression");
    if (message_expression.empty()) continue;
    if (std::string warning = check(message_expression); !warning.empty())
      warnings.push_back({at + ".messageExpression", std::move(warning)});
  }
  return warnings;
}

}  // namespace kapi::admission::policy

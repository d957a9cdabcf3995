#include "server/apis/admissionregistration/admission_rules.h"

#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/metav1_validation.h"

#include <boost/json.hpp>

#include <algorithm>
#include <regex>
#include <set>


namespace kapi::apis::admissionregistration {
namespace {

namespace json = boost::json;
using core::append;
using registry::fields::array_at;
using registry::fields::array_or_empty;
using registry::fields::object_at;
using registry::fields::object_or_empty;
using registry::fields::string_at;
using validation::ErrorList;
using validation::Path;

const std::vector<std::string> kOperations{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
const std::vector<std::string> kScopes{"*", "Cluster", "Namespaced"};

bool has_wildcard(const std::vector<std::string>& values) { return contains(values, "*"); }

ErrorList validate_resources(const std::vector<std::string>& resources, const Path& path) {
  ErrorList errors;
  if (resources.empty()) errors.push_back(validation::required(path));
  std::set<std::string> with_wildcard_subresources, subresources_with_wildcard_resource;
  bool double_wildcard = false, single_wildcard = false, resource_without_subresource = false;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const std::string& entry = resources[i];
    if (entry.empty()) {
      errors.push_back(validation::required(path.index(i)));
      continue;
    }
    if (entry == "*/*") double_wildcard = true;
    if (entry == "*") single_wildcard = true;
    const std::size_t slash = entry.find('/');
    if (slash == std::string::npos) {
      resource_without_subresource = entry != "*";
      continue;
    }
    const std::string resource = entry.substr(0, slash), subresource = entry.substr(slash + 1);
    if (with_wildcard_subresources.contains(resource))
      errors.push_back(validation::invalid(path.index(i), entry, "if '" + resource + "/*' is present, must not specify " + entry));
    if (subresources_with_wildcard_resource.contains(subresource))
      errors.push_back(validation::invalid(path.index(i), entry, "if '*/" + subresource + "' is present, must not specify " + entry));
    if (subresource == "*") with_wildcard_subresources.insert(resource);
    if (resource == "*") subresources_with_wildcard_resource.insert(subresource);
  }
  if (resources.size() > 1 && double_wildcard)
    errors.push_back(validation::invalid_value(path, base::go_string_slice(resources),
                                               "if '*/*' is present, must not specify other resources"));
  if (single_wildcard && resource_without_subresource)
    errors.push_back(validation::invalid_value(path, base::go_string_slice(resources),
                                               "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

// validateRuleWithOperations (and validateRule with subresources allowed); `rule` holds the inlined Rule.

}  // namespace

const json::object& not_an_object() {
  static const json::object kNotAnObject;
  return kNotAnObject;
}

bool contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::vector<std::string> strings_of(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& value : array_or_empty(object, key))
    out.emplace_back(value.is_string() ? std::string_view(value.as_string()) : "");
  return out;
}

// Go's %#v of a slice of a named string type, e.g. []admissionregistration.OperationType{"CREATE", "*"}.
std::string go_typed_slice(std::string_view type, const std::vector<std::string>& values) {
  std::string literal = base::go_string_slice(values);  // []string{...}
  return "[]" + std::string(type) + literal.substr(literal.find('{'));
}

std::string trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return std::string(text);
}

// A member present in JSON (Go: a non-nil pointer).
const json::value* present(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && !value->is_null() ? value : nullptr;
}

// core/validation.ValidateQualifiedName.
ErrorList qualified_name_errors(const Path& path, std::string_view name) {
  ErrorList errors;
  for (auto& message : validation::is_qualified_name(name)) errors.push_back(validation::invalid(path, name, message));
  return errors;
}

// utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments.

ErrorList validate_rule_with_operations(const json::object& rule, const Path& path) {
  ErrorList errors;
  const std::vector<std::string> operations = strings_of(rule, "operations");
  if (operations.empty()) errors.push_back(validation::required(path.child("operations")));
  if (operations.size() > 1 && has_wildcard(operations))
    errors.push_back(validation::invalid_value(path.child("operations"),
                                               go_typed_slice("admissionregistration.OperationType", operations),
                                               "if '*' is present, must not specify other operations"));
  for (std::size_t i = 0; i < operations.size(); ++i)
    if (!contains(kOperations, operations[i]))
      errors.push_back(validation::not_supported(path.child("operations").index(i), operations[i], kOperations));
  const std::vector<std::string> groups = strings_of(rule, "apiGroups");
  if (groups.empty()) errors.push_back(validation::required(path.child("apiGroups")));
  if (groups.size() > 1 && has_wildcard(groups))
    errors.push_back(validation::invalid_value(path.child("apiGroups"), base::go_string_slice(groups),
                                               "if '*' is present, must not specify other API groups"));
  const std::vector<std::string> versions = strings_of(rule, "apiVersions");
  if (versions.empty()) errors.push_back(validation::required(path.child("apiVersions")));
  if (versions.size() > 1 && has_wildcard(versions))
    errors.push_back(validation::invalid_value(path.child("apiVersions"), base::go_string_slice(versions),
                                               "if '*' is present, must not specify other API versions"));
  for (std::size_t i = 0; i < versions.size(); ++i)
    if (versions[i].empty()) errors.push_back(validation::required(path.child("apiVersions").index(i)));
  append(errors, validate_resources(strings_of(rule, "resources"), path.child("resources")));
  if (const json::value* scope = present(rule, "scope"); scope && scope->is_string() && !contains(kScopes, scope->as_string()))
    errors.push_back(validation::not_supported(path.child("scope"), scope->as_string(), kScopes));
  return errors;
}

// validateMatchConditions: at most 64, each named (a qualified name, unique) with an expression that compiles to a
// bool (validateMatchConditionsExpression: the stateless compiler, params only where the holder has a paramKind).
ErrorList validate_match_conditions(const json::object& holder, const Path& path, bool allow_params,
                                    const ExpressionSet& preexisting) {
  ErrorList errors;
  const json::array& conditions = array_or_empty(holder, "matchConditions");
  if (conditions.size() > 64)
    errors.push_back({validation::ErrorType::TooMany, path.str(), std::to_string(conditions.size()),
                      "must have at most 64 items"});
  std::set<std::string> names;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const json::object& condition = conditions[i].is_object() ? conditions[i].as_object() : not_an_object();
    const Path at = path.index(i);
    const std::string expression = trimmed(string_at(condition, "expression"));
    if (expression.empty()) errors.push_back(validation::required(at.child("expression")));
    else if (std::optional<validation::FieldError> error = compile_error(at.child("expression"), expression, expression,
                                                                    {.params = allow_params, .authorizer = true},
                                                                    ReturnTypes::Bool, environment_of(preexisting, expression)))
      errors.push_back(std::move(*error));
    const std::string_view name = string_at(condition, "name");
    if (name.empty()) errors.push_back(validation::required(at.child("name")));
    else append(errors, qualified_name_errors(at.child("name"), name));
    if (!name.empty() && !names.insert(std::string(name)).second)
      errors.push_back(validation::duplicate(at.child("name"), name));
  }
  return errors;
}

std::optional<validation::FieldError> cel_error(const Path& path, std::string_view written, const CompileError& error) {
  if (error.type == CompileErrorType::Invalid) return validation::invalid(path, written, error.detail);
  return validation::FieldError{validation::ErrorType::Internal, path.str(), {}, error.detail};
}

std::optional<validation::FieldError> compile_error(const Path& path, std::string_view written, const std::string& expression,
                                               VariableDeclarations declarations, ReturnTypes return_types,
                                               Environment environment) {
  const AdmissionCompiler compiler(declarations, {}, false, false,
                                   environment == Environment::Stored ? Environments::Stored : Environments::New);
  CompiledExpression compiled = compiler.compile(expression, return_types);
  if (!compiled.error) return std::nullopt;
  return cel_error(path, written, *compiled.error);
}

}  // namespace kapi::apis::admissionregistration

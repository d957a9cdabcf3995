#include "server/apis/admissionregistration/admission_validation.h"

#include "server/apis/admissionregistration/admission_rules.h"

#include "base/go_regexp.h"
#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/metav1_validation.h"

#include <boost/json.hpp>

#include <algorithm>
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

const std::vector<std::string> kValidationActions{"Audit", "Deny", "Warn"};
const std::vector<std::string> kValidationReasons{"Forbidden", "Invalid", "RequestEntityTooLarge"};

ErrorList validate_match_resources(const json::object& match, const Path& path) {
  ErrorList errors;
  if (!present(match, "matchPolicy")) errors.push_back(validation::required(path.child("matchPolicy")));
  else if (!contains(kMatchPolicies, string_at(match, "matchPolicy")))
    errors.push_back(validation::not_supported(path.child("matchPolicy"), string_at(match, "matchPolicy"), kMatchPolicies));
  for (std::string_view selector : {"namespaceSelector", "objectSelector"}) {
    if (const json::object* value = object_at(match, selector))
      append(errors, validation::validate_label_selector(*value, path.child(selector)));
    else
      errors.push_back(validation::required(path.child(selector)));
  }
  for (std::string_view list : {"resourceRules", "excludeResourceRules"}) {
    const json::array& rules = array_or_empty(match, list);
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (!rules[i].is_object()) continue;
      const json::object& rule = rules[i].as_object();
      const Path at = path.child(list).index(i);
      std::set<std::string> names;
      const std::vector<std::string> resource_names = strings_of(rule, "resourceNames");
      for (std::size_t n = 0; n < resource_names.size(); ++n) {
        for (auto& message : validation::is_valid_path_segment_name(resource_names[n]))
          errors.push_back(validation::invalid(at.child("resourceNames").index(n), resource_names[n], message));
        if (!names.insert(resource_names[n]).second)
          errors.push_back(validation::duplicate(at.child("resourceNames").index(n), resource_names[n]));
      }
      append(errors, validate_rule_with_operations(rule, at));
    }
  }
  return errors;
}

// validateParamKind: apiVersion a group/version (group a DNS subdomain, version a DNS-1035 label), kind a
// DNS-1035 label in any case.
ErrorList validate_param_kind(const json::object& param_kind, const Path& path) {
  ErrorList errors;
  const std::string_view api_version = string_at(param_kind, "apiVersion");
  const auto join = [](const std::vector<std::string>& messages) {
    std::string joined;
    for (const auto& message : messages) joined += (joined.empty() ? "" : ",") + message;
    return joined;
  };
  if (api_version.empty()) {
    errors.push_back(validation::required(path.child("apiVersion")));
  } else if (std::count(api_version.begin(), api_version.end(), '/') > 1) {
    errors.push_back(validation::invalid(path.child("apiVersion"), api_version,
                                         "unexpected GroupVersion string: " + std::string(api_version)));
  } else if (api_version != "/") {
    const std::size_t slash = api_version.find('/');
    const std::string_view group = slash == std::string_view::npos ? "" : api_version.substr(0, slash);
    const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
    if (!group.empty())
      if (auto messages = validation::is_dns1123_subdomain(group); !messages.empty())
        errors.push_back(validation::invalid(path.child("apiVersion"), group, join(messages)));
    if (version.empty())
      errors.push_back(validation::invalid(path.child("apiVersion"), api_version, "version must be specified"));
    else if (auto messages = validation::is_dns1035_label(version); !messages.empty())
      errors.push_back(validation::invalid(path.child("apiVersion"), version, join(messages)));
  }
  const std::string_view kind = string_at(param_kind, "kind");
  std::string lower(kind);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (kind.empty()) errors.push_back(validation::required(path.child("kind")));
  else if (auto messages = validation::is_dns1035_label(lower); !messages.empty())
    errors.push_back(validation::invalid(path.child("kind"), kind,
                                         "may have mixed case, but should otherwise match: " + join(messages)));
  return errors;
}

bool is_cel_identifier(std::string_view name) {
  static const RE2 identifier("^[_a-zA-Z][_a-zA-Z0-9]*$", base::go_regexp_options());
  static const std::set<std::string_view> reserved{"true", "false", "null", "in", "as", "break", "const",
                                                   "continue", "else", "for", "function", "if", "import", "let",
                                                   "loop", "package", "namespace", "return", "var", "void", "while"};
  return RE2::FullMatch(re2::StringPiece(name.data(), name.size()), identifier) && !reserved.contains(name);
}

// The compiler of a policy's expressions: kube's composited compiler when the policy has variables (each one typed
// as it compiles, visible to those after it as variables.<name>), the stateless one otherwise.
class PolicyCompiler {
 public:
  PolicyCompiler(bool has_params, bool composition)
      : with_authorizer_({.params = has_params, .authorizer = true}, {}, composition, false, Environments::Both),
        without_authorizer_({.params = has_params, .authorizer = false}, {}, composition, false,
                            Environments::Both) {}

  std::optional<validation::FieldError> compile(const Path& path, std::string_view written,
                                                const std::string& expression, ReturnTypes return_types,
                                                bool authorizer, Environment environment) const {
    const AdmissionCompiler& compiler = authorizer ? with_authorizer_ : without_authorizer_;
    CompiledExpression compiled = compiler.compile(expression, return_types, environment);
    if (!compiled.error) return std::nullopt;
    return cel_error(path, written, *compiled.error);
  }
  std::optional<validation::FieldError> add_variable(const Path& path, const std::string& name,
                                                     const std::string& expression, Environment environment) {
    without_authorizer_.add_variable(name, expression, environment);
    const CompiledExpression& compiled = with_authorizer_.add_variable(name, expression, environment);
    if (!compiled.error) return std::nullopt;
    return cel_error(path, expression, *compiled.error);
  }

 private:
  AdmissionCompiler with_authorizer_;
  AdmissionCompiler without_authorizer_;
};

// findValidatingPolicyPreexistingExpressions: what an update compiles in the StoredExpressions environment.
struct PreexistingExpressions {
  ExpressionSet match_conditions;
  ExpressionSet validations;
  ExpressionSet validation_messages;
  ExpressionSet audit_annotation_values;
};

PreexistingExpressions preexisting_expressions(const json::object& policy) {
  PreexistingExpressions preexisting;
  const json::object& spec = object_or_empty(policy, "spec");
  const auto each = [&](std::string_view list, std::string_view key, ExpressionSet& into) {
    for (const json::value& item : array_or_empty(spec, list))
      if (item.is_object()) into.emplace(string_at(item.as_object(), key));
  };
  each("matchConditions", "expression", preexisting.match_conditions);
  each("validations", "expression", preexisting.validations);
  each("validations", "messageExpression", preexisting.validation_messages);
  each("auditAnnotations", "valueExpression", preexisting.audit_annotation_values);
  return preexisting;
}

ErrorList validate_validation(const PolicyCompiler& compiler, const json::object& rule, const Path& path,
                              const PreexistingExpressions& preexisting) {
  ErrorList errors;
  const std::string expression(string_at(rule, "expression"));
  if (trimmed(expression).empty())
    errors.push_back(validation::required(path.child("expression"), "expression is not specified"));
  else if (auto error = compiler.compile(path.child("expression"), expression, expression, ReturnTypes::Bool, true,
                                         environment_of(preexisting.validations, expression)))
    errors.push_back(std::move(*error));
  const std::string message_expression(string_at(rule, "messageExpression"));
  if (!message_expression.empty() && trimmed(message_expression).empty())
    errors.push_back(validation::invalid(path.child("messageExpression"), message_expression, "must be non-empty if specified"));
  else if (!message_expression.empty())
    if (auto error = compiler.compile(path.child("messageExpression"), message_expression, message_expression,
                                      ReturnTypes::String, false,
                                      environment_of(preexisting.validation_messages, message_expression)))
      errors.push_back(std::move(*error));
  const std::string_view message = string_at(rule, "message");
  const std::string trimmed_message = trimmed(message);
  if (!message.empty() && trimmed_message.empty())
    errors.push_back(validation::invalid(path.child("message"), message, "message must be non-empty if specified"));
  else if (trimmed_message.find_first_of("\r\n") != std::string::npos)
    errors.push_back(validation::invalid(path.child("message"), message, "message must not contain line breaks"));
  if (present(rule, "reason") && !contains(kValidationReasons, string_at(rule, "reason")))
    errors.push_back(validation::not_supported(path.child("reason"), string_at(rule, "reason"), kValidationReasons));
  return errors;
}

ErrorList validate_audit_annotation(const PolicyCompiler& compiler, std::string_view policy_name,
                                    const json::object& annotation, const Path& path,
                                    const PreexistingExpressions& preexisting) {
  ErrorList errors;
  const std::string_view key = string_at(annotation, "key");
  if (!policy_name.empty())
    append(errors, qualified_name_errors(path.child("key"), std::string(policy_name) + "/" + std::string(key)));
  else
    errors.push_back(validation::invalid(path.child("key"), key, "requires metadata.name be non-empty"));
  const std::string value = trimmed(string_at(annotation, "valueExpression"));
  if (value.empty())
    errors.push_back(validation::required(path.child("valueExpression"), "valueExpression is not specified"));
  else if (value.size() > 5 * 1024)
    errors.push_back(validation::required(path.child("valueExpression"), "must not exceed 5120 bytes in length"));
  else if (auto error = compiler.compile(
               path.child("valueExpression"), string_at(annotation, "valueExpression"), value,
               ReturnTypes::StringOrNull, true,
               environment_of(preexisting.audit_annotation_values, string_at(annotation, "valueExpression"))))
    errors.push_back(std::move(*error));
  return errors;
}


ErrorList validate_policy(const json::object& policy, bool ignore_match_conditions,
                          const PreexistingExpressions& preexisting) {
  ErrorList errors;
  const json::object& spec = object_or_empty(policy, "spec");
  const Path path("spec");
  if (!present(spec, "failurePolicy")) errors.push_back(validation::required(path.child("failurePolicy")));
  else if (!contains(kFailurePolicies, string_at(spec, "failurePolicy")))
    errors.push_back(validation::not_supported(path.child("failurePolicy"), string_at(spec, "failurePolicy"), kFailurePolicies));
  const json::object* param_kind = object_at(spec, "paramKind");
  if (param_kind) append(errors, validate_param_kind(*param_kind, path.child("paramKind")));
  if (const json::object* constraints = object_at(spec, "matchConstraints")) {
    append(errors, validate_match_resources(*constraints, path.child("matchConstraints")));
    // At least one resource rule, for the type information the expressions are checked against.
    if (array_or_empty(*constraints, "resourceRules").empty())
      errors.push_back(validation::required(path.child("matchConstraints").child("resourceRules")));
  } else {
    errors.push_back(validation::required(path.child("matchConstraints")));
  }
  if (!ignore_match_conditions)
    append(errors, validate_match_conditions(spec, path.child("matchConditions"), param_kind != nullptr,
                                             preexisting.match_conditions));
  const json::array& variables = array_or_empty(spec, "variables");
  PolicyCompiler compiler(param_kind != nullptr, !variables.empty());
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const json::object& variable = variables[i].is_object() ? variables[i].as_object() : not_an_object();
    const Path at = path.child("variables").index(i);
    const std::string_view name = string_at(variable, "name");
    if (trimmed(name).empty()) errors.push_back(validation::required(at.child("name"), "name is not specified"));
    else if (!is_cel_identifier(name))
      errors.push_back(validation::invalid(at.child("name"), name, "name is not a valid CEL identifier"));
    const std::string expression(string_at(variable, "expression"));
    if (trimmed(expression).empty())
      errors.push_back(validation::required(at.child("expression"), "expression is not specified"));
    // kube looks a variable's expression up among the stored validations' expressions.
    else if (auto error = compiler.add_variable(at.child("expression"), std::string(name), expression,
                                                environment_of(preexisting.validations, expression)))
      errors.push_back(std::move(*error));
  }
  const json::array& validations = array_or_empty(spec, "validations");
  const json::array& audit_annotations = array_or_empty(spec, "auditAnnotations");
  if (validations.empty() && audit_annotations.empty()) {
    const std::string message = "validations or auditAnnotations must contain at least one item";
    errors.push_back(validation::required(path.child("validations"), message));
    errors.push_back(validation::required(path.child("auditAnnotations"), message));
    return errors;
  }
  for (std::size_t i = 0; i < validations.size(); ++i)
    if (validations[i].is_object()) append(errors, validate_validation(compiler, validations[i].as_object(), path.child("validations").index(i),
                                         preexisting));
  if (audit_annotations.size() > 20)
    errors.push_back(validation::invalid_value(path.child("auditAnnotations"), "[]admissionregistration.AuditAnnotation{...}",
                                               "must not have more than 20 auditAnnotations"));
  std::set<std::string> keys;
  const std::string_view policy_name = registry::fields::string_at(object_or_empty(policy, "metadata"), "name");
  for (std::size_t i = 0; i < audit_annotations.size(); ++i) {
    if (!audit_annotations[i].is_object()) continue;
    const json::object& annotation = audit_annotations[i].as_object();
    const Path at = path.child("auditAnnotations").index(i);
    append(errors, validate_audit_annotation(compiler, policy_name, annotation, at, preexisting));
    const std::string_view key = string_at(annotation, "key");
    if (!keys.insert(std::string(key)).second) errors.push_back(validation::duplicate(at.child("key"), key));
  }
  return errors;
}

}  // namespace

ErrorList validate_admission_policy(const json::object& policy) { return validate_policy(policy, false, {}); }

ErrorList validate_admission_policy_update(const json::object& policy, const json::object& old) {
  // Stored match conditions are not checked again while they and the paramKind they may read stay as they are.
  const json::object& spec = object_or_empty(policy, "spec");
  const json::object& old_spec = object_or_empty(old, "spec");
  const auto member = [](const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    return value ? *value : json::value();
  };
  const bool unchanged = member(spec, "paramKind") == member(old_spec, "paramKind") &&
                         member(spec, "matchConditions") == member(old_spec, "matchConditions");
  return validate_policy(policy, unchanged, preexisting_expressions(old));
}

ErrorList validate_admission_policy_status(const json::object& policy) {
  ErrorList errors;
  const json::object& status = object_or_empty(policy, "status");
  const Path path("status");
  if (const json::object* type_checking = object_at(status, "typeChecking")) {
    const json::array& warnings = array_or_empty(*type_checking, "expressionWarnings");
    for (std::size_t i = 0; i < warnings.size(); ++i) {
      const json::object& warning = warnings[i].is_object() ? warnings[i].as_object() : not_an_object();
      const Path at = path.child("typeChecking").child("expressionWarnings").index(i);
      if (string_at(warning, "warning").empty()) errors.push_back(validation::required(at.child("warning")));
      // The fieldRef's JSONPath syntax is not parsed (kube: jsonpath.Parse).
      if (trimmed(string_at(warning, "fieldRef")).empty()) errors.push_back(validation::required(at.child("fieldRef")));
    }
  }
  append(errors, validation::validate_conditions(array_or_empty(status, "conditions"), path.child("conditions")));
  return errors;
}

ErrorList validate_policy_binding(const json::object& binding) {
  ErrorList errors;
  const json::object& spec = object_or_empty(binding, "spec");
  const Path path("spec");
  const std::string_view policy_name = string_at(spec, "policyName");
  if (policy_name.empty()) errors.push_back(validation::required(path.child("policyName")));
  else
    for (auto& message : validation::is_dns1123_subdomain(policy_name))
      errors.push_back(validation::invalid(path.child("policyName"), policy_name, message));
  if (const json::object* param_ref = object_at(spec, "paramRef")) {
    const Path at = path.child("paramRef");
    const std::string_view name = string_at(*param_ref, "name");
    const json::object* selector = object_at(*param_ref, "selector");
    if (!name.empty()) {
      for (auto& message : validation::is_valid_path_segment_name(name))
        errors.push_back(validation::invalid(at.child("name"), name, message));
      if (selector) errors.push_back(validation::forbidden(at.child("name"), "name and selector are mutually exclusive"));
    }
    if (selector) {
      append(errors, validation::validate_label_selector(*selector, at.child("selector")));
      if (!name.empty()) errors.push_back(validation::forbidden(at.child("selector"), "name and selector are mutually exclusive"));
    }
    if (name.empty() && !selector) errors.push_back(validation::required(at, "one of name or selector must be specified"));
    const std::string_view action = string_at(*param_ref, "parameterNotFoundAction");
    if (action.empty()) errors.push_back(validation::required(at.child("parameterNotFoundAction")));
    else if (action != "Deny" && action != "Allow")
      errors.push_back(validation::not_supported(at.child("parameterNotFoundAction"), action, {"Deny", "Allow"}));
  }
  // kube's path spells it "matchResouces".
  if (const json::object* match = object_at(spec, "matchResources"))
    append(errors, validate_match_resources(*match, path.child("matchResouces")));
  const std::vector<std::string> actions = strings_of(spec, "validationActions");
  const Path actions_path = path.child("validationActions");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (!contains(kValidationActions, actions[i]))
      errors.push_back(validation::not_supported(actions_path.index(i), actions[i], kValidationActions));
    if (!seen.insert(actions[i]).second) errors.push_back(validation::duplicate(actions_path.index(i), actions[i]));
  }
  if (seen.contains("Deny") && seen.contains("Warn"))
    errors.push_back(validation::invalid_value(
        actions_path, go_typed_slice("admissionregistration.ValidationAction", actions),
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response "
        "and headers serves no purpose)"));
  if (seen.empty()) errors.push_back(validation::required(actions_path, "at least one validation action is required"));
  return errors;
}

}  // namespace kapi::apis::admissionregistration

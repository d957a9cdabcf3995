// kube's compilePolicy (k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go) and the policy and
// binding accessors (accessor.go): v1 defaults for what a stored object leaves out.
#include "server/plugin/admission/validating_admission_policy/policy.h"

#include "server/registry/object_meta.h"
#include "server/selectors/metav1_label_selector.h"

namespace kapi::admission::policy {
namespace {

namespace json = boost::json;
using apis::admissionregistration::Environments;
using apis::admissionregistration::ReturnTypes;

std::string string_or(const json::object& object, std::string_view key, std::string fallback = {}) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::move(fallback);
}

const json::object& object_or_empty(const json::object& object, std::string_view key) {
  static const json::object empty;
  const json::value* value = object.if_contains(key);
  return value && value->is_object() ? value->as_object() : empty;
}

const json::array& array_or_empty(const json::object& object, std::string_view key) {
  static const json::array empty;
  const json::value* value = object.if_contains(key);
  return value && value->is_array() ? value->as_array() : empty;
}

std::vector<webhook::Rule> rules_of(const json::object& match, std::string_view key) {
  std::vector<webhook::Rule> rules;
  for (const json::value& rule : array_or_empty(match, key))
    if (rule.is_object()) rules.push_back(webhook::parse_rule(rule.as_object()));
  return rules;
}

std::optional<ParamKind> param_kind_of(const json::object& spec) {
  const json::value* value = spec.if_contains("paramKind");
  if (!value || !value->is_object()) return std::nullopt;
  ParamKind kind{string_or(value->as_object(), "apiVersion"), "", "", string_or(value->as_object(), "kind")};
  const std::size_t slash = kind.api_version.find('/');
  if (slash == std::string::npos) {
    kind.version = kind.api_version;
  } else {
    kind.group = kind.api_version.substr(0, slash);
    kind.version = kind.api_version.substr(slash + 1);
  }
  return kind;
}

}  // namespace

MatchResources parse_match_resources(const json::object& match) {
  MatchResources out;
  out.resource_rules = rules_of(match, "resourceRules");
  out.exclude_resource_rules = rules_of(match, "excludeResourceRules");
  out.match_equivalent = string_or(match, "matchPolicy", "Equivalent") == "Equivalent";
  out.namespace_selector = webhook::selector_of(match, "namespaceSelector");
  out.object_selector = webhook::selector_of(match, "objectSelector");
  return out;
}

std::shared_ptr<const CompiledPolicy> compile_policy(const json::object& object) {
  const json::object& spec = object_or_empty(object, "spec");
  const std::optional<ParamKind> param_kind = param_kind_of(spec);
  const bool has_params = param_kind.has_value();
  auto policy = std::make_shared<CompiledPolicy>(CompiledPolicy{
      .name = std::string(registry::meta_string(object, "name")),
      .uid = std::string(registry::meta_string(object, "uid")),
      .generation = 0,
      .fail_open = string_or(spec, "failurePolicy", "Fail") == "Ignore",
      .param_kind = param_kind,
      .match_constraints = parse_match_resources(object_or_empty(spec, "matchConstraints")),
      .compiler = AdmissionCompiler({.params = has_params, .authorizer = true}, {}, true, true, Environments::Stored),
      .match_conditions = {},
      .validations = {},
      .audit_annotations = {}});
  if (const json::value* metadata = object.if_contains("metadata"); metadata && metadata->is_object())
    if (const json::value* generation = metadata->as_object().if_contains("generation"); generation && generation->is_int64())
      policy->generation = generation->as_int64();
  AdmissionCompiler messages({.params = has_params, .authorizer = false}, {}, true, true, Environments::Stored);
  for (const json::value& item : array_or_empty(spec, "variables")) {
    if (!item.is_object()) continue;
    const std::string name = string_or(item.as_object(), "name");
    const std::string expression = string_or(item.as_object(), "expression");
    policy->compiler.add_variable(name, expression);
    messages.add_variable(name, expression);
  }
  policy->match_conditions =
      cel_runtime::compile_match_conditions(array_or_empty(spec, "matchConditions"), policy->compiler);
  for (const json::value& item : array_or_empty(spec, "validations")) {
    if (!item.is_object()) continue;
    const json::object& rule = item.as_object();
    Validation validation{policy->compiler.compile(string_or(rule, "expression"), ReturnTypes::Bool),
                          string_or(rule, "message"), std::nullopt, string_or(rule, "reason")};
    if (const std::string message_expression = string_or(rule, "messageExpression"); !message_expression.empty())
      validation.message_expression = messages.compile(message_expression, ReturnTypes::String);
    policy->validations.push_back(std::move(validation));
  }
  for (const json::value& item : array_or_empty(spec, "auditAnnotations")) {
    if (!item.is_object()) continue;
    const json::object& annotation = item.as_object();
    const std::string value_expression = string_or(annotation, "valueExpression");
    policy->audit_annotations.push_back({string_or(annotation, "key"), value_expression,
                                         policy->compiler.compile(value_expression, ReturnTypes::StringOrNull)});
  }
  return policy;
}

Binding parse_binding(const json::object& object) {
  const json::object& spec = object_or_empty(object, "spec");
  Binding binding;
  binding.name = std::string(registry::meta_string(object, "name"));
  binding.policy_name = string_or(spec, "policyName");
  if (const json::value* value = spec.if_contains("paramRef"); value && value->is_object()) {
    const json::object& reference = value->as_object();
    ParamRef param_ref{string_or(reference, "name"), string_or(reference, "namespace"), std::nullopt,
                       string_or(reference, "parameterNotFoundAction") == "Deny"};
    if (const json::value* selector = reference.if_contains("selector"); selector && selector->is_object())
      param_ref.selector = webhook::selector_of(reference, "selector");
    binding.param_ref = std::move(param_ref);
  }
  if (const json::value* match = spec.if_contains("matchResources"); match && match->is_object())
    binding.match_resources = parse_match_resources(match->as_object());
  for (const json::value& action : array_or_empty(spec, "validationActions"))
    if (action.is_string()) binding.validation_actions.emplace_back(action.as_string());
  return binding;
}

}  // namespace kapi::admission::policy

#pragma once
// A ValidatingAdmissionPolicy and its bindings as the plugin uses them (kube's policy/validating accessor.go and
// plugin.go's compilePolicy): match resources and selectors parsed, every expression compiled once per
// generation of the policy.
#include "server/apis/admissionregistration/admission_cel.h"
#include "server/plugin/admission/cel/match_conditions.h"
#include "server/plugin/admission/webhook/configuration.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::policy {

using apis::admissionregistration::AdmissionCompiler;
using apis::admissionregistration::CompiledExpression;

// admissionregistration.k8s.io/v1 MatchResources.
struct MatchResources {
  std::vector<webhook::Rule> resource_rules;
  std::vector<webhook::Rule> exclude_resource_rules;
  bool match_equivalent = true;  // matchPolicy Equivalent (the v1 default)
  selectors::LabelSelector namespace_selector;
  selectors::LabelSelector object_selector;
};

MatchResources parse_match_resources(const boost::json::object& match);

struct ParamKind {
  std::string api_version;
  std::string group;
  std::string version;
  std::string kind;
};

struct Validation {
  CompiledExpression expression;
  std::string message;
  std::optional<CompiledExpression> message_expression;
  std::string reason;  // "" when unset (kube then answers Invalid)
};

struct AuditAnnotation {
  std::string key;
  std::string value_expression;
  CompiledExpression compiled;
};

struct CompiledPolicy {
  std::string name;
  std::string uid;
  std::int64_t generation = 0;
  bool fail_open = false;  // failurePolicy Ignore
  std::optional<ParamKind> param_kind;
  MatchResources match_constraints;
  // The variables, validations, match conditions and audit annotations, compiled by a composited compiler with
  // the authorizer; message expressions by one without it.
  AdmissionCompiler compiler;
  std::vector<cel_runtime::MatchCondition> match_conditions;
  std::vector<Validation> validations;
  std::vector<AuditAnnotation> audit_annotations;
};

// compilePolicy.
std::shared_ptr<const CompiledPolicy> compile_policy(const boost::json::object& policy);

struct ParamRef {
  std::string name;
  std::string namespace_;
  std::optional<selectors::LabelSelector> selector;
  bool deny_when_not_found = false;  // parameterNotFoundAction Deny
};

struct Binding {
  std::string name;
  std::string policy_name;
  std::optional<ParamRef> param_ref;
  std::optional<MatchResources> match_resources;
  std::vector<std::string> validation_actions;  // as written: Deny, Warn, Audit
};

Binding parse_binding(const boost::json::object& binding);

}  // namespace kapi::admission::policy

#pragma once
// What the admissionregistration.k8s.io/v1 checks of webhooks and policies share (pkg/apis/admissionregistration/
// validation): the enumerations kube accepts, validateRuleWithOperations and validateMatchConditions, and the
// JSON reading helpers both use.
#include "server/apis/admissionregistration/admission_cel.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::admissionregistration {

// The accepted values, sorted as kube's sets list them in NotSupported errors.
inline const std::vector<std::string> kFailurePolicies{"Fail", "Ignore"};
inline const std::vector<std::string> kMatchPolicies{"Equivalent", "Exact"};

// What a list element that is not an object reads as (Go: the zero struct).
const boost::json::object& not_an_object();
bool contains(const std::vector<std::string>& values, std::string_view value);
// A []string member (a missing one is empty; a non-string element reads as "").
std::vector<std::string> strings_of(const boost::json::object& object, std::string_view key);
// Go's %#v of a slice of a named string type, e.g. []admissionregistration.OperationType{"CREATE", "*"}.
std::string go_typed_slice(std::string_view type, const std::vector<std::string>& values);
// strings.TrimSpace.
std::string trimmed(std::string_view text);
// A member present in JSON (Go: a non-nil pointer).
const boost::json::value* present(const boost::json::object& object, std::string_view key);
// core/validation.ValidateQualifiedName.
validation::ErrorList qualified_name_errors(const validation::Path& path, std::string_view name);

// validateRuleWithOperations (validateRule with subresources allowed); `rule` holds the inlined Rule.
validation::ErrorList validate_rule_with_operations(const boost::json::object& rule, const validation::Path& path);
// validateMatchConditions over `holder`'s matchConditions: at most 64, each named (a qualified name, unique) with
// an expression that compiles to a bool; `params` is declared when `allow_params` (a policy with a paramKind).
// On an update, the expressions the stored object has (`preexisting`) compile in the StoredExpressions environment.
using ExpressionSet = std::set<std::string, std::less<>>;
validation::ErrorList validate_match_conditions(const boost::json::object& holder, const validation::Path& path,
                                                bool allow_params, const ExpressionSet& preexisting = {});
// The environment of an expression being validated: StoredExpressions when the stored object already has it.
inline Environment environment_of(const ExpressionSet& preexisting, std::string_view expression) {
  return preexisting.contains(expression) ? Environment::Stored : Environment::New;
}

// convertCELErrorToValidationError: an Invalid error shows the expression as written.
std::optional<validation::FieldError> cel_error(const validation::Path& path, std::string_view written,
                                           const CompileError& error);
// validateCELCondition with the stateless compiler: the field error when `expression` does not compile.
std::optional<validation::FieldError> compile_error(const validation::Path& path, std::string_view written,
                                               const std::string& expression, VariableDeclarations declarations,
                                               ReturnTypes return_types, Environment environment = Environment::New);

}  // namespace kapi::apis::admissionregistration

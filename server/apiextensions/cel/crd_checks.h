#pragma once
// What kube checks of x-kubernetes-validations when a CRD is written (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go and cel_validation.go): each rule's fields (rule, message,
// messageExpression, reason, fieldPath), then, when the schema is otherwise valid, that every rule and
// messageExpression compiles against the node's type, that transition rules sit where old values can be
// correlated, and that the estimated costs stay within kube's per-expression and per-CRD limits.
#include "cel/cost.h"
#include "server/apiextensions/cel/rules.h"
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <cstdint>

namespace kapi::apiextensions::cel {

inline constexpr std::uint64_t kStaticEstimatedCostLimit = kapi::cel::cost_limits::kStaticEstimatedCostLimit;
inline constexpr std::uint64_t kStaticEstimatedCrdCostLimit = kapi::cel::cost_limits::kStaticEstimatedCrdCostLimit;

struct CrdRuleCheckOptions {
  // Compile the rules (kube does only for a structural schema with valid defaults and no schema errors).
  bool compile = true;
  // An update that leaves this version's schema as it was: rules that compiled before stay acceptable whatever
  // their cost (suppressExpressionCostForUnchangedSchema).
  bool suppress_per_expression_cost = false;
  // On an update, the expressions the stored CRD has: they compile in the StoredExpressions environment.
  const PreexistingExpressions* preexisting = nullptr;
};

// The checks for the openAPIV3Schema `root` at `path` (e.g. spec.validation.openAPIV3Schema): rule-field errors
// first, then compilation and per-expression cost errors, then the CRD's total cost.
validation::ErrorList validate_crd_rules(const schema::Schema& root, const validation::Path& path,
                                         const CrdRuleCheckOptions& options = {});

// kube's getCostErrorMessage: "<name> exceeds budget by factor of 1.500000x (try simplifying the rule, ...)".
std::string cost_error_message(std::string_view cost_name, std::uint64_t cost, std::uint64_t limit);

}  // namespace kapi::apiextensions::cel

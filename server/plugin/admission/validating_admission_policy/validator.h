#pragma once
// One policy evaluated for one binding and param (kube's policy/validating validator.go Validate): match
// conditions, validations with their messages, audit annotations; errors decided by the failure policy.
#include "server/plugin/admission/cel/evaluation.h"
#include "server/plugin/admission/cel/match_conditions.h"
#include "server/plugin/admission/validating_admission_policy/policy.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission::policy {

struct Decision {
  bool deny = false;
  bool evaluation_error = false;  // kube's EvalError (else EvalDeny / EvalAdmit)
  std::string message;
  std::string reason;             // for a validation that evaluated to false: its reason, "Invalid" by default
  std::chrono::steady_clock::duration elapsed{};  // the validation's evaluation time, for kube's metrics
};

struct AuditAnnotationResult {
  enum class Action { Publish, Error, Exclude } action = Action::Exclude;
  std::string key;
  std::string value;
  std::string error;
};

struct ValidateResult {
  std::vector<Decision> decisions;  // one per validation (or a single one for an error of the whole evaluation)
  std::vector<AuditAnnotationResult> audit_annotations;
  std::optional<cel_runtime::MatchResult> matched;  // when the policy has matchConditions
  std::chrono::steady_clock::duration match_elapsed{};
};

// kube's validating.ErrorType of a decision, the error_type label of its metrics.
std::string_view error_type(const Decision& decision);

// kube's MaxEvaluatedMessageExpressionSizeBytes.
inline constexpr std::size_t kMaxMessageExpressionBytes = 5 * 1024;

ValidateResult validate(const CompiledPolicy& policy, cel_runtime::AdmissionActivation& activation);

}  // namespace kapi::admission::policy

#pragma once
// Evaluating compiled admission expressions against one request (k8s.io/apiserver/pkg/admission/plugin/cel:
// activation.go's evaluationActivation and Evaluate, condition.go's ForInput, composition.go's lazily evaluated
// variables), with kube's per-call cost limit and the budget the expressions of one evaluation share.
#include "cel/program.h"
#include "cel/value.h"
#include "server/apis/admissionregistration/admission_cel.h"

#include <cstdint>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::cel_runtime {

using apis::admissionregistration::AdmissionCompiler;
using apis::admissionregistration::CompiledExpression;

// kube's celconfig: PerCallLimit, RuntimeCELCostBudget, RuntimeCELCostBudgetMatchConditions.
inline constexpr std::uint64_t kPerCallLimit = 1'000'000;
inline constexpr std::int64_t kRuntimeCostBudget = 10'000'000;
inline constexpr std::int64_t kMatchConditionsCostBudget = 7'000'000;

// The root variables (null values where kube binds nil).
struct Inputs {
  cel::Value object;
  cel::Value old_object;
  cel::Value params;
  cel::Value request;
  cel::Value namespace_object;
  std::optional<cel::Value> authorizer;           // bound only where the expression may use it
  std::optional<cel::Value> resource_authorizer;  // authorizer.requestResource
};

// The activation of one evaluation. `variables` (the policy's, compiled in order) are evaluated on first read and
// kept for the later expressions of the same activation; their cost is charged to the expression that read them
// first. Not thread-safe: one activation serves one request's evaluation.
class AdmissionActivation final : public cel::Activation {
 public:
  AdmissionActivation(Inputs inputs, const std::vector<AdmissionCompiler::Variable>* variables);
  AdmissionActivation(const AdmissionActivation&) = delete;
  AdmissionActivation& operator=(const AdmissionActivation&) = delete;

  const cel::Value* find(std::string_view name) const override;
  // The same inputs without the authorizer (kube evaluates message expressions and audit annotations without it).
  void hide_authorizer(bool hidden) { authorizer_hidden_ = hidden; }

  // The cost of the variables evaluated since the last call.
  std::uint64_t take_variables_cost() const;

  class Variables;

 private:
  Inputs inputs_;
  cel::Value variables_;
  std::shared_ptr<Variables> lazy_;
  bool authorizer_hidden_ = false;
};

struct EvaluationResult {
  bool present = false;             // false for a placeholder (kube: nil accessor)
  std::optional<cel::Value> value;  // the result, when no error
  std::optional<std::string> error; // cel.Error's Detail: "expression '...' resulted in error: ..."
  std::chrono::steady_clock::duration elapsed{};  // the evaluation's own time (kube's EvaluationResult.Elapsed)
};

struct Evaluations {
  std::vector<EvaluationResult> results;
  std::int64_t remaining_budget = 0;
  // The whole evaluation's error (out of budget): kube's ForInput error.
  std::optional<std::string> error;
};

// ForInput: each expression in turn (null ones are placeholders), stopping with an error once the budget is spent.
Evaluations evaluate(const std::vector<const CompiledExpression*>& expressions, const AdmissionActivation& activation,
                     std::int64_t budget);

}  // namespace kapi::admission::cel_runtime

// kube's matchconditions matcher (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go), with
// utilerrors.NewAggregate's wording for several errors.
#include "server/plugin/admission/cel/match_conditions.h"

#include "server/metrics/registry.h"

#include <boost/json/object.hpp>

namespace kapi::admission::cel_runtime {

using apis::admissionregistration::ReturnTypes;

std::vector<MatchCondition> compile_match_conditions(const boost::json::array& conditions,
                                                     const AdmissionCompiler& compiler) {
  std::vector<MatchCondition> out;
  for (const boost::json::value& item : conditions) {
    if (!item.is_object()) continue;
    const boost::json::object& condition = item.as_object();
    MatchCondition compiled;
    if (const boost::json::value* name = condition.if_contains("name"); name && name->is_string())
      compiled.name = std::string(name->as_string());
    std::string expression;
    if (const boost::json::value* text = condition.if_contains("expression"); text && text->is_string())
      expression = std::string(text->as_string());
    compiled.compiled = compiler.compile(expression, ReturnTypes::Bool);
    out.push_back(std::move(compiled));
  }
  return out;
}

MatchResult match(const std::vector<MatchCondition>& conditions, const AdmissionActivation& activation,
                  bool fail_open) {
  std::vector<const CompiledExpression*> expressions;
  expressions.reserve(conditions.size());
  for (const MatchCondition& condition : conditions) expressions.push_back(&condition.compiled);
  Evaluations evaluations = evaluate(expressions, activation, kMatchConditionsCostBudget);
  if (evaluations.error) {
    if (fail_open) return MatchResult{.matches = false};
    return MatchResult{.matches = false, .error = evaluations.error};
  }
  std::vector<std::string> errors;
  for (std::size_t index = 0; index < evaluations.results.size(); ++index) {
    const EvaluationResult& result = evaluations.results[index];
    if (result.error) errors.push_back(*result.error);
    if (result.value && result.value->is<bool>() && !result.value->get<bool>())
      return MatchResult{.matches = false, .failed_condition = conditions[index].name, .evaluation_errors = errors.size()};
  }
  if (errors.empty()) return MatchResult{};
  if (fail_open) return MatchResult{.matches = false, .evaluation_errors = errors.size()};
  std::string message;
  if (errors.size() == 1) {
    message = errors.front();
  } else {
    message = "[";
    for (std::size_t index = 0; index < errors.size(); ++index) message += (index ? ", " : "") + errors[index];
    message += "]";
  }
  return MatchResult{.matches = false, .error = std::move(message), .evaluation_errors = errors.size()};
}

void observe_match(metrics::Registry* metrics, const MatchObservation& labels, const MatchResult& result,
                   std::chrono::steady_clock::duration elapsed) {
  if (!metrics) return;
  const metrics::Labels values{std::string(labels.kind), std::string(labels.name), std::string(labels.operation),
                               std::string(labels.type)};
  metrics->match_condition_duration.observe(values, std::chrono::duration<double>(elapsed).count());
  if (result.evaluation_errors > 0)
    metrics->match_condition_errors.inc(values, static_cast<double>(result.evaluation_errors));
  if (!result.matches && !result.error) metrics->match_condition_exclusions.inc(values);
}

}  // namespace kapi::admission::cel_runtime

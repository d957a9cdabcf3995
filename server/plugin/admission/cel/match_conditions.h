#pragma once
// matchConditions of policies and webhooks (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions:
// matcher.go): any condition false skips the policy or webhook; errors (with no condition false) follow the
// failure policy.
#include "server/plugin/admission/cel/evaluation.h"

#include <boost/json/array.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::cel_runtime {

struct MatchCondition {
  std::string name;
  CompiledExpression compiled;
};

struct MatchResult {
  bool matches = true;
  std::optional<std::string> error;  // under failurePolicy Fail: the errors, aggregated as kube aggregates them
  std::string failed_condition;      // the first condition that evaluated to false
};

// Compiles the matchConditions list of a webhook or policy with `compiler` (bool results).
std::vector<MatchCondition> compile_match_conditions(const boost::json::array& conditions,
                                                     const AdmissionCompiler& compiler);

MatchResult match(const std::vector<MatchCondition>& conditions, const AdmissionActivation& activation,
                  bool fail_open);

}  // namespace kapi::admission::cel_runtime

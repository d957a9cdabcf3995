#pragma once
// matchConditions of policies and webhooks (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions:
// matcher.go): any condition false skips the policy or webhook; errors (with no condition false) follow the
// failure policy.
#include "server/plugin/admission/cel/evaluation.h"

#include <boost/json/array.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::metrics {
class Registry;
}

namespace kapi::admission::cel_runtime {

struct MatchCondition {
  std::string name;
  CompiledExpression compiled;
};

struct MatchResult {
  bool matches = true;
  std::optional<std::string> error;  // under failurePolicy Fail: the errors, aggregated as kube aggregates them
  std::string failed_condition;      // the first condition that evaluated to false
  std::size_t evaluation_errors = 0;  // conditions that failed to evaluate (kube counts each in its metrics)
};

// Compiles the matchConditions list of a webhook or policy with `compiler` (bool results).
std::vector<MatchCondition> compile_match_conditions(const boost::json::array& conditions,
                                                     const AdmissionCompiler& compiler);

MatchResult match(const std::vector<MatchCondition>& conditions, const AdmissionActivation& activation,
                  bool fail_open);

// What one evaluation of a webhook's or policy's conditions adds to kube's match condition metrics: its duration,
// its evaluation errors, and an exclusion when it skipped the webhook or policy. `kind` is "webhook" or "policy",
// `type` kube's "validating" / "admit" (webhooks) or "validate" (policies).
struct MatchObservation {
  std::string_view name;
  std::string_view kind;
  std::string_view type;
  std::string_view operation;
};
void observe_match(metrics::Registry* metrics, const MatchObservation& labels, const MatchResult& result,
                   std::chrono::steady_clock::duration elapsed);

}  // namespace kapi::admission::cel_runtime

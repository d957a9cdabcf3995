#pragma once
// Whether a policy's matchConstraints or a binding's matchResources select a request (kube's
// policy/matching/matching.go Matches), over the webhook plugin's rule and selector matching.
#include "server/plugin/admission/validating_admission_policy/policy.h"
#include "server/plugin/admission/webhook/matching.h"

#include <asio/awaitable.hpp>

#include <optional>
#include <string>

namespace kapi::admission::policy {

struct MatchOutcome {
  bool matches = false;
  webhook::Invocation invocation;    // the resource and kind matched (an equivalent one under Equivalent)
  std::optional<std::string> error;  // a selector that could not be evaluated for a request the rules select
};

// Selectors first (their errors kept for later), then excludeResourceRules, then resourceRules (none: every
// request, as itself).
asio::awaitable<MatchOutcome> match_resources(const MatchResources& match, const Attributes& attributes,
                                              webhook::NamespaceLabels& namespace_labels);

}  // namespace kapi::admission::policy

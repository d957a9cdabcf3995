#pragma once
// The audit configuration kube-apiserver builds from its flags (AuditOptions.Validate and ApplyTo in
// k8s.io/apiserver/pkg/server/options/audit.go): the policy, and the backends each wrapped as backend.h draws.
// No policy, or neither a log path nor a webhook file: no audit, as kube.
#include "base/log.h"
#include "server/audit/backend.h"
#include "server/audit/options.h"
#include "server/audit/policy.h"
#include "server/metrics/registry.h"

#include <memory>
#include <string>
#include <vector>

namespace kapi::audit {

struct Audit {
  std::shared_ptr<const Policy> policy;
  std::shared_ptr<Backend> backend;  // run() it on the reactor; shutdown() once requests have drained
  bool enabled() const { return policy && backend; }
};

// kube's Validate: every problem, in kube's words ("invalid audit log mode eventually, allowed modes are
// \"batch,blocking,blocking-strict\"", "--audit-log-maxage -1 can't be a negative number").
std::vector<std::string> validate(const AuditOptions& options);

// Validates the options, loads the policy (even without a backend, as kube does), opens the log and reads the
// webhook's file. Throws std::runtime_error with kube's wording: the validation errors (several as Go's
// aggregate prints them, "[a, b]"), "loading audit policy file: rules[0].level: Unsupported value: ...".
Audit set_up(const AuditOptions& options, metrics::Registry& metrics, base::Logger& logger);

}  // namespace kapi::audit

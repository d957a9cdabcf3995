#pragma once
// The audit configuration from kube-apiserver's flags (k8s.io/apiserver/pkg/server/options/audit.go): the policy
// from --audit-policy-file and the log backend from --audit-log-*. No policy or no log path: no audit, as kube.
#include "base/log.h"
#include "server/audit/log_backend.h"
#include "server/audit/policy.h"
#include "server/metrics/registry.h"

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace kapi::audit {

struct AuditOptions {
  std::filesystem::path policy_file;  // --audit-policy-file
  std::filesystem::path log_path;     // --audit-log-path ("-": standard output)
  int log_max_size_mb = 0;            // --audit-log-maxsize
  int log_max_backups = 0;            // --audit-log-maxbackup
  int log_max_age_days = 0;           // --audit-log-maxage
  int log_batch_buffer_size = 10000;  // --audit-log-batch-buffer-size
};

struct Audit {
  std::shared_ptr<const Policy> policy;
  std::shared_ptr<LogBackend> log;  // started; shutdown() flushes it
  bool enabled() const { return policy && log; }
};

// Validates the options and loads the policy (even without a log path, as kube does); opens the log. Throws
// std::runtime_error with kube's wording: "--audit-log-maxage -1 can't be a negative number",
// "loading audit policy file: rules[0].level: Unsupported value: ...: from file /etc/audit.yaml".
Audit set_up(const AuditOptions& options, metrics::Registry& metrics, base::Logger& logger);

}  // namespace kapi::audit

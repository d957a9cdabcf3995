#pragma once
// The audit configuration from kube-apiserver's flags (k8s.io/apiserver/pkg/server/options/audit.go): the policy
// from --audit-policy-file and the log backend from --audit-log-*. No policy or no log path: no audit, as kube.
#include "base/log.h"
#include "server/audit/log_backend.h"
#include "server/audit/policy.h"
#include "server/audit/webhook_backend.h"
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
  // The webhook backend (--audit-webhook-*): off without a config file.
  std::filesystem::path webhook_config_file;
  std::string webhook_mode = "batch";
  std::string webhook_version = "audit.k8s.io/v1";
  int webhook_batch_buffer_size = 10000;
  int webhook_batch_max_size = 400;
  std::chrono::nanoseconds webhook_batch_max_wait = std::chrono::seconds(30);
  std::chrono::nanoseconds webhook_initial_backoff = std::chrono::seconds(10);
};

struct Audit {
  std::shared_ptr<const Policy> policy;
  std::shared_ptr<LogBackend> log;  // started; shutdown() flushes it
  std::shared_ptr<WebhookBackend> webhook;  // run() it on the reactor
  bool enabled() const { return policy && (log || webhook); }
  // Where events go: the log, the webhook, or both.
  std::shared_ptr<Sink> sink() const {
    if (log && webhook) return std::make_shared<UnionSink>(std::vector<std::shared_ptr<Sink>>{log, webhook});
    if (webhook) return webhook;
    return log;
  }
};

// Validates the options and loads the policy (even without a log path, as kube does); opens the log. Throws
// std::runtime_error with kube's wording: "--audit-log-maxage -1 can't be a negative number",
// "loading audit policy file: rules[0].level: Unsupported value: ...: from file /etc/audit.yaml".
Audit set_up(const AuditOptions& options, metrics::Registry& metrics, base::Logger& logger);

}  // namespace kapi::audit

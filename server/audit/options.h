#pragma once
// kube-apiserver's audit flags (k8s.io/apiserver/pkg/server/options/audit.go), with its defaults: the policy, the
// log backend (--audit-log-*) and the webhook backend (--audit-webhook-*), each with its mode, batching and
// truncation options.
#include "server/audit/buffered_backend.h"
#include "server/audit/truncate_backend.h"

#include <chrono>
#include <filesystem>
#include <string>

namespace kapi::audit {

// AuditBatchOptions: --audit-<backend>-mode and --audit-<backend>-batch-*.
struct BatchOptions {
  std::string mode;  // batch | blocking | blocking-strict
  BatchConfig config;
};

// AuditTruncateOptions: --audit-<backend>-truncate-*.
struct TruncateOptions {
  bool enabled = false;
  TruncateConfig config;
};

struct AuditLogOptions {
  std::filesystem::path path;  // "-": standard output; empty: no log
  int max_age_days = 0;
  int max_backups = 0;
  int max_size_mb = 0;
  bool compress = false;
  std::string format = "json";  // json | legacy
  std::string version = "audit.k8s.io/v1";
  // Batching is not useful for a file: one event per batch, no throttle, written where the sender runs.
  BatchOptions batch{"blocking", {.max_batch_size = 1, .max_batch_wait = {}, .throttle_enable = false,
                                  .async_delegate = false}};
  TruncateOptions truncate;
};

struct AuditWebhookOptions {
  std::filesystem::path config_file;  // empty: no webhook
  std::chrono::nanoseconds initial_backoff = std::chrono::seconds(10);
  std::string version = "audit.k8s.io/v1";
  BatchOptions batch{"batch", {}};
  TruncateOptions truncate;
};

struct AuditOptions {
  std::filesystem::path policy_file;
  AuditLogOptions log;
  AuditWebhookOptions webhook;
};

}  // namespace kapi::audit

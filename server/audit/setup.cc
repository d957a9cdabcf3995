#include "server/audit/setup.h"

#include <system_error>

namespace kapi::audit {

Audit set_up(const AuditOptions& options, metrics::Registry& metrics, base::Logger& logger) {
  const bool log_enabled = !options.log_path.empty();
  if (log_enabled) {
    std::string errors;
    auto negative = [&](std::string_view flag, int value) {
      if (value < 0) errors += (errors.empty() ? "" : ", ") + std::string(flag) + " " + std::to_string(value) + " can't be a negative number";
    };
    if (options.log_batch_buffer_size <= 0)
      errors = "invalid audit batch log buffer size " + std::to_string(options.log_batch_buffer_size) +
               ", must be a positive number";
    negative("--audit-log-maxage", options.log_max_age_days);
    negative("--audit-log-maxbackup", options.log_max_backups);
    negative("--audit-log-maxsize", options.log_max_size_mb);
    if (!errors.empty()) throw std::runtime_error(errors);
  }

  Audit audit;
  if (!options.policy_file.empty()) {
    try {
      audit.policy = std::make_shared<const Policy>(load_policy_file(options.policy_file));
    } catch (const PolicyError& error) {
      throw std::runtime_error(std::string("loading audit policy file: ") + error.what());
    }
  }
  if (!options.webhook_config_file.empty()) {
    // AuditWebhookOptions.Validate, then the webhook (kapi sends in batch mode only).
    if (options.webhook_mode != "batch" && options.webhook_mode != "blocking" && options.webhook_mode != "blocking-strict")
      throw std::runtime_error("invalid audit webhook mode " + options.webhook_mode +
                               ", allowed modes are \"batch,blocking,blocking-strict\"");
    if (options.webhook_mode != "batch")
      throw std::runtime_error("audit webhook mode " + options.webhook_mode + " is not implemented by kapi (batch only)");
    if (options.webhook_batch_buffer_size <= 0)
      throw std::runtime_error("invalid audit batch webhook buffer size " + std::to_string(options.webhook_batch_buffer_size) +
                               ", must be a positive number");
    if (options.webhook_batch_max_size <= 0)
      throw std::runtime_error("invalid audit batch webhook max size " + std::to_string(options.webhook_batch_max_size) +
                               ", must be a positive number");
    if (options.webhook_batch_max_wait <= std::chrono::nanoseconds::zero())
      throw std::runtime_error("invalid audit batch webhook max wait, must be a positive duration");
    if (options.webhook_version != "audit.k8s.io/v1")
      throw std::runtime_error("invalid audit webhook version " + options.webhook_version + ", supported: audit.k8s.io/v1");
    if (audit.policy) {
      WebhookBackendOptions webhook;
      try {
        webhook.target = webhook::load_kubeconfig(options.webhook_config_file);
      } catch (const webhook::KubeconfigError& error) {
        throw std::runtime_error(std::string("failed to set up the audit webhook: ") + error.what());
      }
      webhook.version = options.webhook_version;
      webhook.buffer_size = static_cast<std::size_t>(options.webhook_batch_buffer_size);
      webhook.max_batch_size = static_cast<std::size_t>(options.webhook_batch_max_size);
      webhook.max_batch_wait = std::chrono::duration_cast<std::chrono::milliseconds>(options.webhook_batch_max_wait);
      webhook.initial_backoff = std::chrono::duration_cast<std::chrono::milliseconds>(options.webhook_initial_backoff);
      audit.webhook = std::make_shared<WebhookBackend>(std::move(webhook), metrics, logger);
    }
  }
  if (!log_enabled) return audit;
  if (!audit.policy) {
    logger.v(2, "No audit policy file provided, no events will be recorded for log backend");
    return audit;
  }
  LogBackendOptions log;
  log.path = options.log_path;
  log.max_size_mb = options.log_max_size_mb;
  log.max_backups = options.log_max_backups;
  log.max_age_days = options.log_max_age_days;
  log.buffer_size = static_cast<std::size_t>(options.log_batch_buffer_size);
  try {
    audit.log = std::make_shared<LogBackend>(std::move(log), metrics, logger);
  } catch (const std::system_error& error) {
    throw std::runtime_error(std::string("failed to set up the audit log: ") + error.what());
  }
  audit.log->run();
  return audit;
}

}  // namespace kapi::audit

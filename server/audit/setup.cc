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

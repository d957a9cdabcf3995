#include "server/audit/setup.h"

#include "server/audit/log_backend.h"
#include "server/audit/webhook_backend.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <system_error>

namespace kapi::audit {
namespace {

constexpr std::array<std::string_view, 3> kModes{"batch", "blocking", "blocking-strict"};

// fmt's %v of a float32 flag value: "10", "0.5", "-1".
std::string go_float(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// validateBackendBatchOptions: the batch options count only in batch mode.
std::optional<std::string> batch_error(std::string_view plugin, const BatchOptions& options) {
  const std::string name(plugin);
  if (std::find(kModes.begin(), kModes.end(), options.mode) == kModes.end())
    return "invalid audit " + name + " mode " + options.mode + ", allowed modes are \"batch,blocking,blocking-strict\"";
  if (options.mode != "batch") return std::nullopt;
  const BatchConfig& config = options.config;
  if (config.buffer_size <= 0)
    return "invalid audit batch " + name + " buffer size " + std::to_string(config.buffer_size) +
           ", must be a positive number";
  if (config.max_batch_size <= 0)
    return "invalid audit batch " + name + " max batch size " + std::to_string(config.max_batch_size) +
           ", must be a positive number";
  if (config.throttle_enable && config.throttle_qps <= 0)
    return "invalid audit batch " + name + " throttle QPS " + go_float(config.throttle_qps) + ", must be a positive number";
  if (config.throttle_enable && config.throttle_burst <= 0)
    return "invalid audit batch " + name + " throttle burst " + std::to_string(config.throttle_burst) +
           ", must be a positive number";
  return std::nullopt;
}

std::optional<std::string> truncate_error(std::string_view plugin, const TruncateOptions& options) {
  const std::string name(plugin);
  const TruncateConfig& config = options.config;
  if (config.max_event_size <= 0)
    return "invalid audit truncate " + name + " max event size " + std::to_string(config.max_event_size) +
           ", must be a positive number";
  if (config.max_batch_size < config.max_event_size)
    return "invalid audit truncate " + name + " max batch size " + std::to_string(config.max_batch_size) +
           ", must be greater than max event size (" + std::to_string(config.max_event_size) + ")";
  return std::nullopt;
}

// validateGroupVersionString: schema.ParseGroupVersion, then the one version 1.32 knows.
std::optional<std::string> version_error(const std::string& version) {
  if (std::count(version.begin(), version.end(), '/') > 1) return "unexpected GroupVersion string: " + version;
  if (version != "audit.k8s.io/v1") return std::string("invalid group version, allowed versions are [\"audit.k8s.io/v1\"]");
  return std::nullopt;
}

// wrapBackend of the batch options, then of the truncate options.
std::shared_ptr<Backend> wrapped(std::shared_ptr<Backend> backend, const BatchOptions& batch,
                                 const TruncateOptions& truncate, const PluginErrors& errors) {
  if (batch.mode == "blocking") backend = std::make_shared<IgnoreErrors>(std::move(backend));
  else if (batch.mode == "batch") backend = std::make_shared<BufferedBackend>(std::move(backend), batch.config, errors);
  if (truncate.enabled) backend = std::make_shared<TruncateBackend>(std::move(backend), truncate.config, errors);
  return backend;
}

std::shared_ptr<Backend> log_backend(const AuditLogOptions& options, const PluginErrors& errors) {
  LogBackendOptions log;
  log.path = options.path;
  log.format = options.format == "legacy" ? LogFormat::Legacy : LogFormat::Json;
  log.max_size_mb = options.max_size_mb;
  log.max_backups = options.max_backups;
  log.max_age_days = options.max_age_days;
  log.compress = options.compress;
  try {
    return wrapped(std::make_shared<LogBackend>(std::move(log), errors), options.batch, options.truncate, errors);
  } catch (const std::system_error& error) {
    throw std::runtime_error(error.what());
  }
}

std::shared_ptr<Backend> webhook_backend(const AuditWebhookOptions& options, const PluginErrors& errors) {
  WebhookBackendOptions webhook;
  try {
    webhook.target = webhook::load_kubeconfig(options.config_file);
  } catch (const webhook::KubeconfigError& error) {
    throw std::runtime_error(std::string("initializing audit webhook: ") + error.what());
  }
  webhook.version = options.version;
  webhook.initial_backoff = options.initial_backoff;
  return wrapped(std::make_shared<WebhookBackend>(std::move(webhook), errors), options.batch, options.truncate, errors);
}

}  // namespace

std::vector<std::string> validate(const AuditOptions& options) {
  std::vector<std::string> errors;
  auto add = [&errors](std::optional<std::string> error) {
    if (error) errors.push_back(std::move(*error));
  };
  if (const AuditLogOptions& log = options.log; !log.path.empty()) {
    add(batch_error("log", log.batch));
    add(truncate_error("log", log.truncate));
    add(version_error(log.version));
    if (log.format != "json" && log.format != "legacy")
      errors.push_back("invalid audit log format " + log.format + ", allowed formats are \"legacy,json\"");
    auto negative = [&](std::string_view flag, int value) {
      if (value < 0) errors.push_back(std::string(flag) + " " + std::to_string(value) + " can't be a negative number");
    };
    negative("--audit-log-maxage", log.max_age_days);
    negative("--audit-log-maxbackup", log.max_backups);
    negative("--audit-log-maxsize", log.max_size_mb);
  }
  if (const AuditWebhookOptions& webhook = options.webhook; !webhook.config_file.empty()) {
    add(batch_error("webhook", webhook.batch));
    add(truncate_error("webhook", webhook.truncate));
    add(version_error(webhook.version));
  }
  return errors;
}

Audit set_up(const AuditOptions& options, metrics::Registry& metrics, base::Logger& logger) {
  if (std::vector<std::string> errors = validate(options); !errors.empty()) {
    std::string message = errors.front();
    if (errors.size() > 1) {
      message = "[";
      for (std::size_t i = 0; i < errors.size(); ++i) message += (i ? ", " : "") + errors[i];
      message += "]";
    }
    throw std::runtime_error(message);
  }

  Audit audit;
  if (!options.policy_file.empty()) {
    try {
      audit.policy = std::make_shared<const Policy>(load_policy_file(options.policy_file));
    } catch (const PolicyError& error) {
      throw std::runtime_error(std::string("loading audit policy file: ") + error.what());
    }
  }
  const PluginErrors errors(metrics, logger);
  std::vector<std::shared_ptr<Backend>> backends;
  for (std::string_view backend : {"log", "webhook"}) {
    const bool configured = backend == "log" ? !options.log.path.empty() : !options.webhook.config_file.empty();
    if (!configured) continue;
    if (!audit.policy) {
      logger.v(2, "No audit policy file provided, no events will be recorded for " + std::string(backend) + " backend");
      continue;
    }
    backends.push_back(backend == "log" ? log_backend(options.log, errors) : webhook_backend(options.webhook, errors));
  }
  if (backends.size() == 2) audit.backend = std::make_shared<UnionBackend>(std::move(backends));
  else if (backends.size() == 1) audit.backend = std::move(backends.front());
  if (audit.backend) logger.v(2, "Using audit backend: " + audit.backend->name());
  return audit;
}

}  // namespace kapi::audit

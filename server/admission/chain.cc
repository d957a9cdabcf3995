#include "server/admission/chain.h"

#include "server/apierrors/errors.h"
#include "server/metrics/registry.h"

#include <chrono>
#include <exception>

namespace kapi::admission {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

Chain::Chain(std::vector<NamedPlugin> plugins, metrics::Registry* metrics)
    : plugins_(std::move(plugins)), metrics_(metrics) {}

bool Chain::handles(const Attributes& attributes) const {
  for (const auto& [name, plugin] : plugins_)
    if (plugin->handles(attributes)) return true;
  return false;
}

// Both steps time each plugin that runs and the step as a whole, as kube's pluginHandlerWithMetrics and
// chainAdmissionHandler do (rejected="true" when the plugin or step refused).
asio::awaitable<void> Chain::admit(Attributes& attributes) const {
  const auto step_start = Clock::now();
  const std::string operation(to_string(attributes.operation));
  for (const auto& [name, plugin] : plugins_) {
    if (!plugin->mutates() || !plugin->handles(attributes)) continue;
    const auto start = Clock::now();
    std::exception_ptr refused;
    try {
      co_await plugin->admit(attributes);
    } catch (...) {
      refused = std::current_exception();
    }
    if (metrics_) {
      const std::string rejected = refused ? "true" : "false";
      metrics_->admission_controller_duration.observe({name, operation, rejected, "admit"}, seconds_since(start));
      if (refused) metrics_->admission_step_duration.observe({operation, "true", "admit"}, seconds_since(step_start));
    }
    if (refused) std::rethrow_exception(refused);
  }
  if (metrics_) metrics_->admission_step_duration.observe({operation, "false", "admit"}, seconds_since(step_start));
}

asio::awaitable<void> Chain::validate(const Attributes& attributes) const {
  const auto step_start = Clock::now();
  const std::string operation(to_string(attributes.operation));
  for (const auto& [name, plugin] : plugins_) {
    if (!plugin->validates() || !plugin->handles(attributes)) continue;
    const auto start = Clock::now();
    std::exception_ptr refused;
    try {
      co_await plugin->validate(attributes);
    } catch (...) {
      refused = std::current_exception();
    }
    if (metrics_) {
      const std::string rejected = refused ? "true" : "false";
      metrics_->admission_controller_duration.observe({name, operation, rejected, "validate"}, seconds_since(start));
      if (refused)
        metrics_->admission_step_duration.observe({operation, "true", "validate"}, seconds_since(step_start));
    }
    if (refused) std::rethrow_exception(refused);
  }
  if (metrics_)
    metrics_->admission_step_duration.observe({operation, "false", "validate"}, seconds_since(step_start));
}

}  // namespace kapi::admission

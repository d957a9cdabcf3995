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

constexpr std::size_t kOperations = 4;  // Operation's values
constexpr std::size_t kSeriesPerSlot = kOperations * 2 * 2;  // operation × rejected × step

}  // namespace

Chain::Chain(std::vector<NamedPlugin> plugins, metrics::Registry* metrics)
    : plugins_(std::move(plugins)), metrics_(metrics) {
  for (std::size_t i = 0; i < plugins_.size(); ++i) {
    if (plugins_[i].plugin->mutates()) admitting_.push_back(i);
    if (plugins_[i].plugin->validates()) validating_.push_back(i);
  }
  // One slot per plugin and one for the steps; value-initialised, so every series is still to be found.
  series_ = std::make_unique<std::atomic<metrics::HistogramFamily::Series*>[]>((plugins_.size() + 1) * kSeriesPerSlot);
}

bool Chain::handles(const Attributes& attributes) const {
  for (const auto& [name, plugin] : plugins_)
    if (plugin->handles(attributes)) return true;
  return false;
}

asio::awaitable<void> Chain::admit(Attributes& attributes) const {
  // Each admission of the object starts afresh (a retried update is admitted again, as kube makes a new record).
  attributes.reinvocation = {};
  return run_step(attributes, &attributes, Step::Admit);
}

asio::awaitable<void> Chain::validate(const Attributes& attributes) const {
  return run_step(attributes, nullptr, Step::Validate);
}

// One coroutine per step, whatever the number of plugins: a frame per plugin call is all a step costs beyond them.
// The step is timed as a whole, both passes of a reinvoked mutating step included, as kube's WithStepMetrics
// wraps its reinvocation handler; each plugin that runs is timed as kube's pluginHandlerWithMetrics does.
asio::awaitable<void> Chain::run_step(const Attributes& attributes, Attributes* admitted, Step step) const {
  const auto step_start = Clock::now();
  std::exception_ptr refused;
  try {
    for (bool reinvoking = false;; reinvoking = true) {
      for (std::size_t index : step == Step::Admit ? admitting_ : validating_) {
        Plugin& plugin = *plugins_[index].plugin;
        if (!plugin.handles(attributes)) continue;
        const auto start = Clock::now();
        try {
          // (g++ 12 mishandles temporaries in a co_await expression: the awaitable is named.)
          asio::awaitable<void> call = admitted ? plugin.admit(*admitted) : plugin.validate(attributes);
          co_await std::move(call);
        } catch (...) {
          observe(index, attributes, true, step, seconds_since(start));
          throw;  // the first refusal ends the step
        }
        observe(index, attributes, false, step, seconds_since(start));
      }
      // kube's reinvoker: one more pass of every mutating plugin when one asked for it.
      if (!admitted || reinvoking || !admitted->reinvocation.should_reinvoke) break;
      admitted->reinvocation.is_reinvoke = true;
    }
  } catch (...) {
    refused = std::current_exception();
  }
  observe(std::string::npos, attributes, refused != nullptr, step, seconds_since(step_start));
  if (refused) std::rethrow_exception(refused);
}

void Chain::observe(std::size_t plugin, const Attributes& attributes, bool refused, Step step, double seconds) const {
  if (!metrics_) return;
  const bool of_step = plugin == std::string::npos;
  const std::size_t slot = of_step ? plugins_.size() : plugin;
  const std::size_t operation = static_cast<std::size_t>(attributes.operation);
  std::atomic<metrics::HistogramFamily::Series*>& cached =
      series_[slot * kSeriesPerSlot + (operation * 2 + refused) * 2 + static_cast<std::size_t>(step)];
  metrics::HistogramFamily::Series* series = cached.load(std::memory_order_acquire);
  if (!series) {
    // Two threads may both look it up: they find the same series.
    const std::string operation_name(to_string(attributes.operation));
    const std::string rejected = refused ? "true" : "false";
    const std::string type = step == Step::Admit ? "admit" : "validate";
    series = of_step ? &metrics_->admission_step_duration.series({operation_name, rejected, type})
                     : &metrics_->admission_controller_duration.series({plugins_[plugin].name, operation_name,
                                                                         rejected, type});
    cached.store(series, std::memory_order_release);
  }
  series->observe(seconds);
}

}  // namespace kapi::admission

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

bool mutating(const Plugin& plugin) { return plugin.mutates(); }
bool validating(const Plugin& plugin) { return plugin.validates(); }

}  // namespace

Chain::Chain(std::vector<NamedPlugin> plugins, metrics::Registry* metrics)
    : plugins_(std::move(plugins)), metrics_(metrics) {}

bool Chain::handles(const Attributes& attributes) const {
  for (const auto& [name, plugin] : plugins_)
    if (plugin->handles(attributes)) return true;
  return false;
}

// (Every argument of a co_await'ed call is a named variable: g++ 12 mishandles temporaries there.)
asio::awaitable<void> Chain::admit(Attributes& attributes) const {
  std::function<asio::awaitable<void>(Plugin&)> admit = [&attributes](Plugin& plugin) {
    return plugin.admit(attributes);
  };
  // Each admission of the object starts afresh (a retried update is admitted again, as kube makes a new record).
  attributes.reinvocation = {};
  Reinvocation* reinvocation = &attributes.reinvocation;
  co_await run_step(attributes, "admit", &mutating, admit, reinvocation);
}

asio::awaitable<void> Chain::validate(const Attributes& attributes) const {
  std::function<asio::awaitable<void>(Plugin&)> validate = [&attributes](Plugin& plugin) {
    return plugin.validate(attributes);
  };
  co_await run_step(attributes, "validate", &validating, validate);
}

// Times the step as a whole, both passes of a reinvoked mutating step included, as kube's WithStepMetrics wraps
// its reinvocation handler (rejected="true" when the step refused).
asio::awaitable<void> Chain::run_step(const Attributes& attributes, std::string_view type,
                                      bool (*takes_part)(const Plugin&),
                                      std::function<asio::awaitable<void>(Plugin&)> call,
                                      Reinvocation* reinvocation) const {
  const auto step_start = Clock::now();
  const std::string operation(to_string(attributes.operation));
  const std::string step(type);
  std::exception_ptr refused;
  try {
    co_await run_plugins(attributes, step, takes_part, call);
    // kube's reinvoker: one more pass of every mutating plugin when one asked for it.
    if (reinvocation && reinvocation->should_reinvoke) {
      reinvocation->is_reinvoke = true;
      co_await run_plugins(attributes, step, takes_part, call);
    }
  } catch (...) {
    refused = std::current_exception();
  }
  if (metrics_)
    metrics_->admission_step_duration.observe({operation, refused ? "true" : "false", step}, seconds_since(step_start));
  if (refused) std::rethrow_exception(refused);
}

// Times each plugin that runs, as kube's pluginHandlerWithMetrics does; the first refusal ends the pass.
asio::awaitable<void> Chain::run_plugins(const Attributes& attributes, const std::string& step,
                                         bool (*takes_part)(const Plugin&),
                                         const std::function<asio::awaitable<void>(Plugin&)>& call) const {
  const std::string operation(to_string(attributes.operation));
  for (const auto& [name, plugin] : plugins_) {
    if (!takes_part(*plugin) || !plugin->handles(attributes)) continue;
    const auto start = Clock::now();
    std::exception_ptr refused;
    try {
      co_await call(*plugin);
    } catch (...) {
      refused = std::current_exception();
    }
    if (metrics_)
      metrics_->admission_controller_duration.observe({name, operation, refused ? "true" : "false", step},
                                                      seconds_since(start));
    if (refused) std::rethrow_exception(refused);
  }
}

}  // namespace kapi::admission

#pragma once
// The admission chain (k8s.io/apiserver/pkg/admission/chain.go with the metrics of its metrics.go): the enabled
// plugins in kube's order; a request's mutating step runs every mutating plugin that handles it (all of them once
// more when a plugin asks, kube's reinvocation.go), then, once the object has passed the resource's own
// validation, its validating step runs every validating plugin. The first refusal ends the step with that
// plugin's error.
//
// Made once at start; shared read-only by every request thread (plugins keep their own state thread-safe).
#include "server/admission/plugin.h"
#include "server/metrics/families.h"

#include <asio/awaitable.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

namespace kapi::metrics { class Registry; }

namespace kapi::admission {

class Chain {
 public:
  struct NamedPlugin {
    std::string name;
    std::unique_ptr<Plugin> plugin;
  };

  explicit Chain(std::vector<NamedPlugin> plugins, metrics::Registry* metrics = nullptr);

  // Whether any plugin would run for the request (lets a handler skip building what only plugins read).
  bool handles(const Attributes& attributes) const;
  asio::awaitable<void> admit(Attributes& attributes) const;
  asio::awaitable<void> validate(const Attributes& attributes) const;

  const std::vector<NamedPlugin>& plugins() const { return plugins_; }

 private:
  enum class Step { Admit, Validate };
  // Runs every plugin of the step that handles the request, in order: admit() on `admitted` (the request's
  // attributes, twice when a plugin asked for reinvocation), or validate() when it is null.
  asio::awaitable<void> run_step(const Attributes& attributes, Attributes* admitted, Step step) const;
  // Records a step's duration (plugin: npos) or a plugin's in its metric series, each series found once: label
  // values built and looked up per call cost more than most plugins that handle the request.
  void observe(std::size_t plugin, const Attributes& attributes, bool refused, Step step, double seconds) const;

  std::vector<NamedPlugin> plugins_;
  std::vector<std::size_t> admitting_, validating_;  // the plugins of each step, in order
  metrics::Registry* metrics_;
  mutable std::unique_ptr<std::atomic<metrics::HistogramFamily::Series*>[]> series_;
};

}  // namespace kapi::admission

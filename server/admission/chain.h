#pragma once
// The admission chain (k8s.io/apiserver/pkg/admission/chain.go with the metrics of its metrics.go): the enabled
// plugins in kube's order; a request's mutating step runs every mutating plugin that handles it (all of them once
// more when a plugin asks, kube's reinvocation.go), then, once the object has passed the resource's own
// validation, its validating step runs every validating plugin. The first refusal ends the step with that
// plugin's error.
//
// Made once at start; shared read-only by every request thread (plugins keep their own state thread-safe).
#include "server/admission/plugin.h"

#include <asio/awaitable.hpp>

#include <functional>
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
  // One step: every plugin that `takes_part` and handles the request, `call`ed in order (twice for a mutating
  // step whose plugins asked for it in `reinvocation`).
  asio::awaitable<void> run_step(const Attributes& attributes, std::string_view type,
                                 bool (*takes_part)(const Plugin&),
                                 std::function<asio::awaitable<void>(Plugin&)> call,
                                 Reinvocation* reinvocation = nullptr) const;
  asio::awaitable<void> run_plugins(const Attributes& attributes, const std::string& step,
                                    bool (*takes_part)(const Plugin&),
                                    const std::function<asio::awaitable<void>(Plugin&)>& call) const;

  std::vector<NamedPlugin> plugins_;
  metrics::Registry* metrics_;
};

}  // namespace kapi::admission

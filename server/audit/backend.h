#pragma once
// Where audit events go: kube's audit.Backend (k8s.io/apiserver/pkg/audit/types.go), and the plugins that wrap
// one another as kube-apiserver's options assemble them (k8s.io/apiserver/pkg/server/options/audit.go):
//
//   log      truncate? ( batch: buffered(log) | blocking: ignore_errors(log) | blocking-strict: log )
//   webhook  truncate? ( batch: buffered(webhook) | blocking: ignore_errors(webhook) | blocking-strict: webhook )
//   both     union(log, webhook)
//
// The audit filter awaits process_events once per stage of a request. A buffered backend queues the events and
// returns at once; the others return once the events are written. Only a blocking-strict backend answers false
// (the events were not stored), and a request whose RequestReceived event was not stored fails.
//
// Threads: process_events may be called from any reactor thread, concurrently. run() and shutdown() are called
// once each, by the server: run before the first request, shutdown after the last one has ended.
#include "base/log.h"
#include "server/audit/event.h"
#include "server/metrics/registry.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::audit {

class Backend {
 public:
  virtual ~Backend() = default;
  // Takes the events (kube's ProcessEvents); false only when a blocking-strict backend could not store them.
  virtual asio::awaitable<bool> process_events(std::vector<Event> events) = 0;
  // Starts what works in the background (a buffered backend's sender) on the reactor.
  virtual void run(asio::any_io_executor executor) = 0;
  // Writes what was queued, waits for the writes in flight, and takes no more events (kube's Shutdown).
  virtual asio::awaitable<void> shutdown() = 0;
  // kube's String(): "truncate<buffered<webhook>>", for the start-up log.
  virtual std::string name() const = 0;
};

// audit.HandlePluginError: counts the events a plugin failed on in apiserver_audit_error_total{plugin} and logs
// them, each as its one-line text form.
class PluginErrors {
 public:
  PluginErrors(metrics::Registry& metrics, base::Logger& logger) : metrics_(&metrics), logger_(&logger) {}
  void report(std::string_view plugin, std::string_view error, std::span<const Event> impacted) const;

 private:
  metrics::Registry* metrics_;
  base::Logger* logger_;
};

// A backend in front of another, forwarding what it does not change.
class BackendDecorator : public Backend {
 public:
  explicit BackendDecorator(std::shared_ptr<Backend> delegate) : delegate_(std::move(delegate)) {}
  void run(asio::any_io_executor executor) override { delegate_->run(std::move(executor)); }
  asio::awaitable<void> shutdown() override;

 protected:
  Backend& delegate() const { return *delegate_; }

 private:
  std::shared_ptr<Backend> delegate_;
};

// kube's ignoreErrorsBackend: the blocking mode, which writes before the request goes on but never fails it.
class IgnoreErrors final : public BackendDecorator {
 public:
  using BackendDecorator::BackendDecorator;
  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  std::string name() const override { return "ignoreErrors<" + delegate().name() + ">"; }
};

// kube's union backend: the log and the webhook, each given every event; stored only if every one stored them.
class UnionBackend final : public Backend {
 public:
  explicit UnionBackend(std::vector<std::shared_ptr<Backend>> backends) : backends_(std::move(backends)) {}
  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  void run(asio::any_io_executor executor) override;
  asio::awaitable<void> shutdown() override;
  std::string name() const override;

 private:
  std::vector<std::shared_ptr<Backend>> backends_;
};

}  // namespace kapi::audit

#pragma once
// The audit webhook backend (k8s.io/apiserver/plugin/pkg/audit/webhook behind plugin/pkg/audit/buffered), in kube's
// default batch mode: a request only queues its event (a full buffer drops it, counted and logged as the log
// backend does); batches of at most --audit-webhook-batch-max-size events, or whatever queued within
// --audit-webhook-batch-max-wait, are POSTed as one audit.k8s.io/v1 EventList through the GenericWebhook that
// --audit-webhook-config-file names, retried with backoff from --audit-webhook-initial-backoff. A batch that still
// fails is apiserver_audit_error_total{plugin="webhook"} and logged.
#include "base/log.h"
#include "server/audit/log_backend.h"
#include "server/metrics/registry.h"
#include "server/webhook/generic_webhook.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::audit {

struct WebhookBackendOptions {
  webhook::WebhookTarget target;                    // --audit-webhook-config-file
  std::string version = "audit.k8s.io/v1";         // --audit-webhook-version
  std::size_t buffer_size = 10000;                  // --audit-webhook-batch-buffer-size
  std::size_t max_batch_size = 400;                 // --audit-webhook-batch-max-size
  std::chrono::milliseconds max_batch_wait{30'000};  // --audit-webhook-batch-max-wait
  std::chrono::milliseconds initial_backoff{10'000};  // --audit-webhook-initial-backoff
};

class WebhookBackend final : public Sink {
 public:
  // Throws webhook::KubeconfigError for unusable TLS material.
  WebhookBackend(WebhookBackendOptions options, metrics::Registry& metrics, base::Logger& logger);
  ~WebhookBackend() override;

  void process_event(Event event) override;
  // Starts sending on `executor` (kube's Backend.Run).
  void run(asio::any_io_executor executor);
  // Stops taking events; the sender sends what is queued while the reactor still runs, then ends.
  void shutdown();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// Events to several sinks (kube's union backend): the log and the webhook.
class UnionSink final : public Sink {
 public:
  explicit UnionSink(std::vector<std::shared_ptr<Sink>> sinks) : sinks_(std::move(sinks)) {}
  void process_event(Event event) override {
    for (std::size_t i = 0; i + 1 < sinks_.size(); ++i) sinks_[i]->process_event(event);
    if (!sinks_.empty()) sinks_.back()->process_event(std::move(event));
  }

 private:
  std::vector<std::shared_ptr<Sink>> sinks_;
};

}  // namespace kapi::audit

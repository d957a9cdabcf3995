#pragma once
// kube's truncate audit plugin (k8s.io/apiserver/plugin/pkg/audit/truncate), on with --audit-*-truncate-enabled:
// an event larger than max_event_size (as the JSON the backends write, newline included) loses its request and
// response objects and gains the annotation audit.k8s.io/truncated=true; one still too large is dropped
// (apiserver_audit_error_total{plugin="truncate"}, "event is too large even after truncating"). The events are
// handed on in batches of at most max_batch_size bytes.
#include "server/audit/backend.h"

#include <cstdint>

namespace kapi::audit {

struct TruncateConfig {
  std::int64_t max_event_size = 100 * 1024;        // --audit-*-truncate-max-event-size
  std::int64_t max_batch_size = 10 * 1024 * 1024;  // --audit-*-truncate-max-batch-size
};

class TruncateBackend final : public BackendDecorator {
 public:
  TruncateBackend(std::shared_ptr<Backend> delegate, TruncateConfig config, PluginErrors errors)
      : BackendDecorator(std::move(delegate)), config_(config), errors_(errors) {}

  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  std::string name() const override { return "truncate<" + delegate().name() + ">"; }

 private:
  TruncateConfig config_;
  PluginErrors errors_;
};

}  // namespace kapi::audit

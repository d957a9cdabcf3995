#pragma once
// kube's buffered audit plugin (k8s.io/apiserver/plugin/pkg/audit/buffered), the batch mode: a request only
// queues its events in a bounded buffer and never waits (a full buffer drops them: apiserver_audit_error_total
// {plugin="buffered"}, "audit buffer queue blocked"). A sender on the reactor collects batches of at most
// max_batch_size events, or what queued within max_batch_wait, and hands each to the delegate, at most
// throttle_qps batches a second (bursts of throttle_burst) when throttling is on. With async_delegate (the
// webhook) batches are sent concurrently, so one slow batch does not hold the queue; without (the log) one after
// another. shutdown() sends what is queued and waits for every batch in flight.
#include "server/audit/backend.h"

#include <chrono>
#include <cstddef>
#include <memory>

namespace kapi::audit {

// pluginbuffered.BatchConfig, with kube-apiserver's webhook defaults (its log defaults: max_batch_size 1,
// no throttle, synchronous delegate).
struct BatchConfig {
  int buffer_size = 10000;
  int max_batch_size = 400;
  std::chrono::nanoseconds max_batch_wait = std::chrono::seconds(30);
  bool throttle_enable = true;
  double throttle_qps = 10;
  int throttle_burst = 15;
  bool async_delegate = true;
};

class BufferedBackend final : public Backend {
 public:
  BufferedBackend(std::shared_ptr<Backend> delegate, BatchConfig config, PluginErrors errors);
  ~BufferedBackend() override;

  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  void run(asio::any_io_executor executor) override;
  asio::awaitable<void> shutdown() override;
  std::string name() const override;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the sender and the batches in flight
};

}  // namespace kapi::audit

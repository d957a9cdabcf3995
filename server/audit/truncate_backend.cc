#include "server/audit/truncate_backend.h"

namespace kapi::audit {
namespace {

// What the encoder writes for the event: its JSON and the newline.
std::int64_t encoded_size(const Event& event) { return static_cast<std::int64_t>(to_json(event).size()) + 1; }

}  // namespace

asio::awaitable<bool> TruncateBackend::process_events(std::vector<Event> events) {
  std::vector<Event> too_large;
  std::vector<Event> batch;
  std::int64_t batch_size = 0;
  bool stored = true;
  for (Event& event : events) {
    std::int64_t size = encoded_size(event);
    // Only worth it when there is a request or a response to strip.
    if (size > config_.max_event_size && event.level >= Level::Request) {
      event.request_object.reset();
      event.response_object.reset();
      event.annotations["audit.k8s.io/truncated"] = "true";
      size = encoded_size(event);
    }
    if (size > config_.max_event_size) {
      too_large.push_back(std::move(event));
      continue;
    }
    if (!batch.empty() && batch_size + size > config_.max_batch_size) {
      auto processing = delegate().process_events(std::exchange(batch, {}));
      const bool this_batch = co_await std::move(processing);
      stored = this_batch && stored;
      batch_size = 0;
    }
    batch_size += size;
    batch.push_back(std::move(event));
  }
  if (!batch.empty()) {
    auto processing = delegate().process_events(std::move(batch));
    const bool this_batch = co_await std::move(processing);
    stored = this_batch && stored;
  }
  if (!too_large.empty()) errors_.report("truncate", "event is too large even after truncating", too_large);
  co_return stored;
}

}  // namespace kapi::audit

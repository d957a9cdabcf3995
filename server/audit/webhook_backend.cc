#include "server/audit/webhook_backend.h"

#include "base/sleep.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

namespace kapi::audit {

struct WebhookBackend::State {
  State(WebhookBackendOptions options_, metrics::Registry& metrics_, base::Logger& logger_,
        std::unique_ptr<webhook::GenericWebhook> webhook_)
      : options(std::move(options_)), metrics(metrics_), logger(logger_), webhook(std::move(webhook_)) {}
  WebhookBackendOptions options;
  metrics::Registry& metrics;
  base::Logger& logger;
  std::unique_ptr<webhook::GenericWebhook> webhook;
  std::mutex mutex;
  std::deque<Event> queue;
  bool stopping = false;
  bool running = false;
};

namespace {

// An audit.k8s.io EventList of `events`, each as the log backend writes it.
std::string event_list(const std::vector<Event>& events, const std::string& version) {
  std::string body = "{\"kind\":\"EventList\",\"apiVersion\":\"" + version + "\",\"metadata\":{},\"items\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) body += ',';
    std::string line = to_json(events[i]);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    body += line;
  }
  return body + "]}";
}

// The batch to send now: up to max_batch_size events, once that many queued or max_batch_wait passed since the
// last batch (kube's collectEvents), or whatever is left when stopping.
std::vector<Event> take_batch(WebhookBackend::State& state) {
  std::lock_guard lock(state.mutex);
  std::vector<Event> batch;
  while (!state.queue.empty() && batch.size() < state.options.max_batch_size) {
    batch.push_back(std::move(state.queue.front()));
    state.queue.pop_front();
  }
  return batch;
}

asio::awaitable<void> send_batches(std::shared_ptr<WebhookBackend::State> state) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kPoll = std::chrono::milliseconds(50);
  auto last_sent = Clock::now();
  for (;;) {
    bool stopping;
    std::size_t queued;
    {
      std::lock_guard lock(state->mutex);
      stopping = state->stopping;
      queued = state->queue.size();
    }
    const bool due = queued >= state->options.max_batch_size ||
                     (queued > 0 && Clock::now() - last_sent >= state->options.max_batch_wait) ||
                     (queued > 0 && stopping);
    if (!due) {
      if (stopping) co_return;
      auto pausing = base::sleep_for(kPoll);
      co_await std::move(pausing);
      continue;
    }
    std::vector<Event> batch = take_batch(*state);
    last_sent = Clock::now();
    std::string failure;
    try {
      auto posting = state->webhook->post(event_list(batch, state->options.version));
      co_await std::move(posting);
    } catch (const webhook::CallError& error) {
      failure = error.what();
    }
    if (!failure.empty()) {
      // audit.HandlePluginError for the webhook backend.
      state->metrics.audit_errors.inc({"webhook"});
      state->logger.error("Error in audit plugin 'webhook' affecting " + std::to_string(batch.size()) +
                          " audit events: " + failure);
    }
  }
}

}  // namespace

WebhookBackend::WebhookBackend(WebhookBackendOptions options, metrics::Registry& metrics, base::Logger& logger) {
  webhook::RetryBackoff backoff;
  backoff.initial = options.initial_backoff;
  auto client = std::make_unique<webhook::GenericWebhook>(options.target, backoff);
  state_ = std::make_shared<State>(std::move(options), metrics, logger, std::move(client));
}

WebhookBackend::~WebhookBackend() { shutdown(); }

void WebhookBackend::process_event(Event event) {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->stopping && state_->queue.size() < state_->options.buffer_size) {
      state_->queue.push_back(std::move(event));
      return;
    }
  }
  state_->metrics.audit_errors.inc({"buffered"});
  state_->logger.error("Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked\n"
                       "Impacted events:\n" + to_json(event));
}

void WebhookBackend::run(asio::any_io_executor executor) {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->running || state_->stopping) return;
    state_->running = true;
  }
  asio::co_spawn(executor, send_batches(state_), asio::detached);
}

void WebhookBackend::shutdown() {
  std::lock_guard lock(state_->mutex);
  state_->stopping = true;
}

}  // namespace kapi::audit

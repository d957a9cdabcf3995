#include "server/audit/webhook_backend.h"

namespace kapi::audit {
namespace {

// An audit.k8s.io EventList of `events`, each as the log backend writes it.
std::string event_list(const std::vector<Event>& events, const std::string& version) {
  std::string body = "{\"kind\":\"EventList\",\"apiVersion\":\"" + version + "\",\"metadata\":{},\"items\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) body += ',';
    body += to_json(events[i]);
  }
  return body + "]}";
}

std::unique_ptr<webhook::GenericWebhook> client_for(const WebhookBackendOptions& options) {
  webhook::RetryBackoff backoff;
  backoff.initial = std::chrono::duration_cast<std::chrono::milliseconds>(options.initial_backoff);
  return std::make_unique<webhook::GenericWebhook>(options.target, backoff);
}

}  // namespace

WebhookBackend::WebhookBackend(WebhookBackendOptions options, PluginErrors errors)
    : version_(options.version), errors_(errors), webhook_(client_for(options)) {}

asio::awaitable<bool> WebhookBackend::process_events(std::vector<Event> events) {
  std::string failure;
  try {
    auto posting = webhook_->post(event_list(events, version_));
    co_await std::move(posting);
  } catch (const webhook::CallError& error) {
    failure = error.what();
  }
  if (failure.empty()) co_return true;
  errors_.report("webhook", failure, events);
  co_return false;
}

}  // namespace kapi::audit

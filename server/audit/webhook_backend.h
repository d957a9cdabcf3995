#pragma once
// The webhook backend behind --audit-webhook-config-file (k8s.io/apiserver/plugin/pkg/audit/webhook): events
// POSTed as one audit.k8s.io/v1 EventList through the GenericWebhook the kubeconfig-format file names, retried
// with backoff from --audit-webhook-initial-backoff. A list that still fails is apiserver_audit_error_total
// {plugin="webhook"}, logged, and answered false (which only a blocking-strict webhook passes on).
#include "server/audit/backend.h"
#include "server/webhook/generic_webhook.h"

#include <chrono>
#include <memory>
#include <string>

namespace kapi::audit {

struct WebhookBackendOptions {
  webhook::WebhookTarget target;                      // --audit-webhook-config-file
  std::string version = "audit.k8s.io/v1";           // --audit-webhook-version
  std::chrono::nanoseconds initial_backoff = std::chrono::seconds(10);  // --audit-webhook-initial-backoff
};

class WebhookBackend final : public Backend {
 public:
  // Throws webhook::KubeconfigError for unusable TLS material.
  WebhookBackend(WebhookBackendOptions options, PluginErrors errors);

  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  void run(asio::any_io_executor) override {}
  asio::awaitable<void> shutdown() override { co_return; }
  std::string name() const override { return "webhook"; }

 private:
  std::string version_;
  PluginErrors errors_;
  std::unique_ptr<webhook::GenericWebhook> webhook_;
};

}  // namespace kapi::audit

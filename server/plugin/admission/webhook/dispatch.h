#pragma once
// What the mutating and validating webhook plugins share (k8s.io/apiserver/pkg/admission/plugin/webhook/generic):
// the configuration source, the matching of a request's webhooks, one call and its checks, the failure policy
// and the metrics kube records for each call.
#include "server/admission/plugin.h"
#include "server/admission/versioned_attributes.h"
#include "server/apierrors/errors.h"
#include "server/plugin/admission/webhook/admission_review.h"
#include "server/plugin/admission/webhook/client.h"
#include "server/plugin/admission/webhook/configuration.h"
#include "server/plugin/admission/webhook/matching.h"

#include <asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kapi::admission::webhook {

// The webhook refused the request (ErrWebhookRejection): its Status goes to the client as it is.
class Rejection : public apierrors::ApiError {
 public:
  using apierrors::ApiError::ApiError;
};

struct Match {
  const Webhook* webhook;
  Invocation invocation;
  std::size_t index;  // among all the plugin's webhooks (the audit annotations' index)
};

class WebhookDispatcher {
 public:
  WebhookDispatcher(const PluginContext& context, bool mutating);

  // The plugin's webhooks now.
  asio::awaitable<std::shared_ptr<const WebhookList>> webhooks() { return source_.webhooks(); }
  NamespaceLabels namespace_labels(const Attributes& attributes) const { return {namespaces_, attributes}; }

  // Whether the webhook applies to the request as it is now (ShouldCallHook): its rules and selectors against the
  // request, its matchConditions against the request in the version it would be called with.
  asio::awaitable<std::optional<Invocation>> applies(const Webhook& webhook, VersionedAttributes& versioned,
                                                     NamespaceLabels& namespace_labels);
  // The webhooks of `snapshot` that apply to the request, in order.
  asio::awaitable<std::vector<Match>> matching(const WebhookList& snapshot, VersionedAttributes& versioned);

  // Sends the review of `attributes` (the request in the invocation's version) and reads the answer, with kube's
  // checks: dry-run against sideEffects, the response's validity, audit annotations and warnings recorded, a
  // refusal thrown as Rejection. Throws CallFailure when the call failed (the failure policy decides), ApiError
  // for errors kube returns as they are.
  asio::awaitable<ReviewResponse> call(const Webhook& webhook, const Invocation& invocation,
                                       const Attributes& attributes);

  // apiserver_admission_webhook_admission_duration_seconds and, for a refusal, _rejection_count.
  enum class Outcome { Allowed, Rejected, CallingError, InternalError };
  void observe(const Webhook& webhook, const Attributes& attributes, std::chrono::steady_clock::time_point start,
               Outcome outcome, int code) const;

  // ErrCallingWebhook under failurePolicy Fail: 500 "Internal error occurred: failed calling webhook ...".
  static apierrors::ApiError calling_error(const Webhook& webhook, const CallFailure& failure);
  // A call that failed under failurePolicy Ignore: logged and counted (apiserver_admission_webhook_fail_open_count).
  void record_fail_open(const Webhook& webhook, const CallFailure& failure) const;

 private:
  // ShouldCallHook's matchConditions (none false; an error under failurePolicy Fail throws kube's 403).
  bool conditions_match(const Webhook& webhook, const Invocation& invocation, const Attributes& attributes) const;

  bool mutating_;
  ConfigurationSource source_;
  StoreLookup stores_;
  registry::Store* namespaces_;
  ServiceStores service_stores_;
  proxy::ConnectionPool pool_;  // the plugin's webhook connections, kept alive between calls
  const authorization::Authorizer* authorizer_;
  metrics::Registry* metrics_;
  base::Logger* logger_;
};

}  // namespace kapi::admission::webhook

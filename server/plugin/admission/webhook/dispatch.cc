// The shared half of kube's webhook dispatchers (k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go
// Dispatch and ShouldCallHook; the call halves of mutating/dispatcher.go and validating/dispatcher.go;
// pkg/admission/metrics for the webhook metrics).
#include "server/plugin/admission/webhook/dispatch.h"

#include "base/log.h"
#include "server/metrics/registry.h"
#include "server/plugin/admission/cel/inputs.h"
#include "server/registry/store.h"

#include <algorithm>

namespace kapi::admission::webhook {

WebhookDispatcher::WebhookDispatcher(const PluginContext& context, bool mutating)
    : mutating_(mutating),
      source_(context.stores ? context.stores("admissionregistration.k8s.io", mutating ? "mutatingwebhookconfigurations"
                                                                                      : "validatingwebhookconfigurations")
                             : nullptr,
              mutating, context.proxy_client_cert_file, context.proxy_client_key_file),
      stores_(context.stores),
      namespaces_(context.stores ? context.stores("", "namespaces") : nullptr),
      service_stores_{context.stores ? context.stores("", "services") : nullptr,
                      context.stores ? context.stores("", "endpoints") : nullptr},
      authorizer_(context.authorizer),
      metrics_(context.metrics),
      logger_(context.logger) {
  if (context.executor && context.stopping && context.logger)
    source_.start(context.executor, context.stopping, *context.logger);
}

asio::awaitable<std::optional<Invocation>> WebhookDispatcher::applies(const Webhook& webhook,
                                                                      VersionedAttributes& versioned,
                                                                      NamespaceLabels& namespace_labels) {
  std::optional<Invocation> invocation = co_await should_call(webhook, versioned.request(), namespace_labels);
  if (invocation && webhook.match_conditions) {
    const Attributes& converted = versioned.as(invocation->kind);
    if (!conditions_match(webhook, *invocation, converted)) invocation.reset();
  }
  co_return invocation;
}

asio::awaitable<std::vector<Match>> WebhookDispatcher::matching(const WebhookList& snapshot,
                                                                VersionedAttributes& versioned) {
  std::vector<Match> matches;
  NamespaceLabels namespace_labels = this->namespace_labels(versioned.request());
  for (std::size_t index = 0; index < snapshot.size(); ++index) {
    const Webhook& webhook = snapshot[index];
    std::optional<Invocation> invocation = co_await applies(webhook, versioned, namespace_labels);
    if (invocation) matches.push_back({&webhook, std::move(*invocation), index});
  }
  co_return matches;
}

bool WebhookDispatcher::conditions_match(const Webhook& webhook, const Invocation& invocation,
                                         const Attributes& attributes) const {
  if (!webhook.match_conditions) return true;
  // kube's matcher shows the request's own resource with the kind the webhook is called with.
  const cel_runtime::InputSources sources{.attributes = &attributes,
                                          .matched_resource = attributes.resource,
                                          .matched_kind = invocation.kind,
                                          .authorizer = authorizer_};
  const cel_runtime::AdmissionActivation activation(cel_runtime::make_inputs(sources), nullptr);
  const auto start = std::chrono::steady_clock::now();
  const cel_runtime::MatchResult result = cel_runtime::match(*webhook.match_conditions, activation, webhook.fail_open);
  cel_runtime::observe_match(metrics_,
                             {.name = webhook.name, .kind = "webhook", .type = mutating_ ? "admit" : "validating",
                              .operation = to_string(attributes.operation)},
                             result, std::chrono::steady_clock::now() - start);
  if (result.error) {
    if (logger_)
      logger_->warning("Failed evaluating match conditions, failing closed " + webhook.name + ": " + *result.error);
    throw apierrors::ApiError(apierrors::forbidden(attributes.resource.group, attributes.resource.resource,
                                                   attributes.name, *result.error));
  }
  return result.matches;
}

asio::awaitable<ReviewResponse> WebhookDispatcher::call(const Webhook& webhook, const Invocation& invocation,
                                                        const Attributes& attributes) {
  if (attributes.dry_run) {
    if (!webhook.side_effects) throw CallFailure("Webhook SideEffects is nil", 400);
    if (*webhook.side_effects != "None" && *webhook.side_effects != "NoneOnDryRun")
      throw apierrors::ApiError(
          apierrors::bad_request("admission webhook \"" + webhook.name + "\" does not support dry run"));
  }
  ReviewRequest review;
  try {
    review = make_review(webhook, invocation, attributes);
  } catch (const std::runtime_error& error) {
    throw CallFailure(std::string("could not create admission objects: ") + error.what(), 400);
  }
  std::string body = review.body;
  std::string answer = co_await post_review(webhook, std::move(body), service_stores_, pool_);
  ReviewResponse response;
  try {
    response = read_review(review, answer, mutating_);
  } catch (const UndecodableResponse& error) {
    throw CallFailure(std::string("failed to call webhook: ") + error.what(), 0);
  } catch (const InvalidResponse& error) {
    throw CallFailure(std::string("received invalid webhook response: ") + error.what(), 503);
  }
  for (const auto& [key, value] : response.audit_annotations) {
    const std::string qualified = webhook.name + "/" + key;
    if (!attributes.add_annotation(qualified, value) && logger_)
      logger_->warning("Failed to set admission audit annotation " + qualified + " to " + value + " for " +
                       (mutating_ ? "mutating" : "validating") + " webhook " + webhook.name);
  }
  for (const std::string& warning : response.warnings) attributes.add_warning(warning);
  if (!response.allowed) throw Rejection(denial_status(webhook.name, response.result));
  co_return response;
}

void WebhookDispatcher::observe(const Webhook& webhook, const Attributes& attributes,
                                std::chrono::steady_clock::time_point start, Outcome outcome, int code) const {
  if (!metrics_) return;
  const std::string operation(to_string(attributes.operation));
  const std::string type = mutating_ ? "admit" : "validating";
  const bool rejected = outcome != Outcome::Allowed;
  // A call that failed without a Status is counted as kube's dispatchers wrap it (ServiceUnavailable when
  // mutating, BadRequest when validating).
  if (code == 0 && outcome != Outcome::InternalError) code = mutating_ ? 503 : 400;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_->admission_webhook_duration.observe({webhook.name, operation, rejected ? "true" : "false", type}, seconds);
  metrics_->admission_webhook_requests.inc(
      {std::to_string(std::min(code, 600)), webhook.name, operation, rejected ? "true" : "false", type});
  if (!rejected) return;
  std::string error_type = "no_error";
  if (outcome == Outcome::CallingError) error_type = "calling_webhook_error";
  if (outcome == Outcome::InternalError) error_type = "apiserver_internal_error";
  metrics_->admission_webhook_rejections.inc({error_type, webhook.name, operation, std::to_string(std::min(code, 600)),
                                              type});
}

apierrors::ApiError WebhookDispatcher::calling_error(const Webhook& webhook, const CallFailure& failure) {
  return apierrors::ApiError(
      apierrors::internal_error("failed calling webhook \"" + webhook.name + "\": " + failure.what()));
}

void WebhookDispatcher::record_fail_open(const Webhook& webhook, const CallFailure& failure) const {
  if (metrics_) metrics_->admission_webhook_fail_open.inc({webhook.name, mutating_ ? "admit" : "validating"});
  if (logger_)
    logger_->warning("Failed calling webhook, failing open " + webhook.name + ": failed calling webhook \"" +
                     webhook.name + "\": " + failure.what());
}

}  // namespace kapi::admission::webhook

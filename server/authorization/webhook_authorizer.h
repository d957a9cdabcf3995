#pragma once
// The Webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): a SubjectAccessReview
// (authorization.k8s.io v1, or v1beta1) describing the request is POSTed to the server a kubeconfig-format file
// names; status.allowed, denied and reason decide. Answers are cached by the review's spec, allowed ones for
// authorized_ttl and the others for unauthorized_ttl. A call that fails gives the failure policy's decision
// (NoOpinion for the --authorization-webhook-* flags) with the error, which the authorization filter turns into a
// 500 unless a later authorizer allows. Each round-trip is counted in apiserver_authorization_webhook_evaluations_total
// and _duration_seconds by result (success, timeout, error, canceled), a failure that gives no opinion in
// _evaluations_fail_open_total, and the match conditions in apiserver_authorization_match_condition_*.
//
// The webhook needs I/O, so it decides through authorize_async(). Its synchronous authorize(), which only callers
// that cannot wait use (CEL's authorizer library, the RBAC escalation check, the signer checks), answers from the
// cache alone and has no opinion otherwise.
#include "base/log.h"
#include "server/authorization/authorizer.h"
#include "server/metrics/authorization.h"
#include "server/webhook/generic_webhook.h"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace kapi::authorization {

// What a webhook's matchConditions say of one request (kube's CELMatcher.Eval).
struct MatchOutcome {
  bool excluded = false;  // a condition evaluated to false: the webhook is skipped (no opinion)
  std::string error;      // otherwise, the evaluation errors aggregated: the failure policy decides
  bool errored = false;   // some condition failed to evaluate, even when another excluded the request
};

struct WebhookAuthorizerOptions {
  // The authorizer's name in AuthorizationConfiguration (kube names the --authorization-webhook-* one "default"),
  // for the metrics.
  std::string name = "default";
  webhook::WebhookTarget target;      // from --authorization-webhook-config-file, or connectionInfo
  std::string version = "v1beta1";   // subjectAccessReviewVersion
  std::chrono::milliseconds timeout = webhook::GenericWebhook::kDefaultRequestTimeout;
  std::chrono::nanoseconds authorized_ttl = std::chrono::minutes(5);
  std::chrono::nanoseconds unauthorized_ttl = std::chrono::seconds(30);
  bool cache_authorized = true;
  bool cache_unauthorized = true;
  Decision decision_on_error = Decision::NoOpinion;  // failurePolicy
  webhook::RetryBackoff retry_backoff;               // kube's DefaultAuthWebhookRetryBackoff
  // matchConditions: called with the v1 SubjectAccessReview. Empty: every request matches.
  std::function<MatchOutcome(const boost::json::object& review)> matches;
  // Where its round-trips, failures that fail open and match conditions are counted (kube-apiserver's
  // kubeapiserverWebhookMetrics); null: nowhere.
  metrics::AuthorizationFamilies* metrics = nullptr;
};

class WebhookAuthorizer final : public Authorizer {
 public:
  // Throws std::invalid_argument for an unsupported version, webhook::KubeconfigError for unusable TLS material.
  WebhookAuthorizer(WebhookAuthorizerOptions options, base::Logger* logger);
  ~WebhookAuthorizer() override;

  Result authorize(const Attributes& attributes) const override;
  bool decides_in_memory() const override { return false; }
  asio::awaitable<Result> authorize_async(const Attributes& attributes) const override;
  // kube: "webhook authorizer does not support user rule resolution".
  RuleSet rules_for(const request::UserInfo&, const std::string&) const override {
    return {.incomplete = true, .errors = {"webhook authorizer does not support user rule resolution"}};
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Cached {
    boost::json::object status;
    Clock::time_point expires;
    std::list<std::string>::iterator age;
  };
  std::optional<boost::json::object> cached(const std::string& key) const;
  void remember(const std::string& key, boost::json::object status, Clock::duration ttl) const;

  WebhookAuthorizerOptions options_;
  std::unique_ptr<webhook::GenericWebhook> webhook_;
  base::Logger* logger_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Cached> cache_;  // kube's LRUExpireCache of 8192 entries
  mutable std::list<std::string> ages_;          // least recently used first
};

// The v1 SubjectAccessReview kube sends for `attributes` (resourceAttributes with the selectors' requirements as
// kube 1.32 sends them, or nonResourceAttributes; user, groups, uid, extra), status empty.
boost::json::object subject_access_review(const Attributes& attributes);

}  // namespace kapi::authorization

// kube-apiserver 1.32's authorization metrics as the authorizers record them: each configured authorizer's terminal
// decisions (apiserver_authorization_decisions_total, named as buildAuthorizationConfiguration names the modes), the
// webhook's round-trips and the failures that fail open, and its match conditions.
#include "server/authorization/configured_authorizer.h"
#include "server/authorization/modes.h"
#include "server/authorization/webhook_authorizer.h"
#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

namespace kapi::authorization::authorization_metrics_test {
namespace {

using kapi::test_support::run_sync;

Attributes request(std::string user, std::vector<std::string> groups = {}) {
  Attributes attributes;
  attributes.user.name = std::move(user);
  attributes.user.groups = std::move(groups);
  attributes.verb = "get";
  attributes.resource_request = true;
  attributes.api_version = "v1";
  attributes.namespace_ = "default";
  attributes.resource = "configmaps";
  return attributes;
}

TEST(AuthorizationMetricsTest, TerminalDecisionsAreCountedByTypeAndName) {
  metrics::AuthorizationFamilies metrics;
  auto chain = build_authorizer({"AlwaysDeny", "AlwaysAllow"}, nullptr, nullptr, nullptr, &metrics);
  EXPECT_EQ(chain->authorize(request("jane")).decision, Decision::Allow);
  EXPECT_EQ(run_sync(chain->authorize_async(request("jane"))).decision, Decision::Allow);
  EXPECT_EQ(metrics.decisions.value({"allowed", "alwaysallow", "AlwaysAllow"}), 2);
  // No opinion is not terminal; system:masters are allowed ahead of the counted authorizers.
  EXPECT_EQ(metrics.decisions.value({"denied", "alwaysdeny", "AlwaysDeny"}), 0);
  EXPECT_EQ(chain->authorize(request("admin", {"system:masters"})).decision, Decision::Allow);
  EXPECT_EQ(metrics.decisions.value({"allowed", "alwaysallow", "AlwaysAllow"}), 2);

  // From a configuration file: its names.
  AuthorizationConfiguration config;
  config.authorizers = {{"AlwaysAllow", "everyone", std::nullopt}};
  auto configured = build_configured_authorizer(config, nullptr, nullptr, nullptr, &metrics);
  EXPECT_EQ(configured->authorize(request("jane")).decision, Decision::Allow);
  EXPECT_EQ(metrics.decisions.value({"allowed", "everyone", "AlwaysAllow"}), 1);
  std::string rendered;
  metrics.render(rendered);
  EXPECT_NE(rendered.find("apiserver_authorization_decisions_total{decision=\"allowed\",name=\"everyone\","
                          "type=\"AlwaysAllow\"} 1\n"),
            std::string::npos)
      << rendered;
}

WebhookAuthorizerOptions unreachable(metrics::AuthorizationFamilies& metrics) {
  WebhookAuthorizerOptions options;
  options.target.server = "https://127.0.0.1:1/authorize";
  options.version = "v1";
  options.metrics = &metrics;
  options.retry_backoff.initial = std::chrono::milliseconds(1);
  return options;
}

TEST(AuthorizationMetricsTest, AFailedRoundTripIsCountedAndFailsOpenUnderNoOpinion) {
  metrics::AuthorizationFamilies metrics;
  WebhookAuthorizer no_opinion(unreachable(metrics), nullptr);
  Result result = run_sync(no_opinion.authorize_async(request("jane")));
  EXPECT_EQ(result.decision, Decision::NoOpinion);
  EXPECT_NE(result.error.find("connection refused"), std::string::npos) << result.error;
  // A refused connection is not retried (DefaultShouldRetry): one round-trip.
  EXPECT_EQ(metrics.webhook_evaluations.value({"default", "error"}), 1);
  EXPECT_EQ(metrics.webhook_duration.count({"default", "error"}), 1u);
  EXPECT_EQ(metrics.webhook_fail_open.value({"default", "error"}), 1);

  WebhookAuthorizerOptions options = unreachable(metrics);
  options.name = "strict";
  options.decision_on_error = Decision::Deny;
  WebhookAuthorizer deny(std::move(options), nullptr);
  EXPECT_EQ(run_sync(deny.authorize_async(request("jane"))).decision, Decision::Deny);
  EXPECT_EQ(metrics.webhook_evaluations.value({"strict", "error"}), 1);
  EXPECT_EQ(metrics.webhook_fail_open.value({"strict", "error"}), 0) << "Deny does not fail open";
}

TEST(AuthorizationMetricsTest, MatchConditionsAreTimedAndTheirExclusionsAndErrorsCounted) {
  metrics::AuthorizationFamilies metrics;
  WebhookAuthorizerOptions options = unreachable(metrics);
  options.name = "conditional";
  options.matches = [](const boost::json::object& review) {
    MatchOutcome outcome;
    const std::string user(review.at("spec").at("user").as_string());
    outcome.excluded = user != "bob";
    outcome.errored = user == "carol" || user == "bob";
    if (user == "bob") outcome.error = "cel evaluation error: expression 'x' resulted in error: no such key";
    return outcome;
  };
  WebhookAuthorizer webhook(std::move(options), nullptr);
  EXPECT_EQ(run_sync(webhook.authorize_async(request("alice"))).decision, Decision::NoOpinion);
  EXPECT_EQ(run_sync(webhook.authorize_async(request("carol"))).decision, Decision::NoOpinion);
  Result bob = run_sync(webhook.authorize_async(request("bob")));
  EXPECT_EQ(bob.decision, Decision::NoOpinion);
  EXPECT_EQ(bob.error, "cel evaluation error: expression 'x' resulted in error: no such key");
  const metrics::Labels labels{"conditional", "Webhook"};
  EXPECT_EQ(metrics.match_condition_duration.count(labels), 3u);
  EXPECT_EQ(metrics.match_condition_exclusions.value(labels), 2);
  EXPECT_EQ(metrics.match_condition_errors.value(labels), 2);
  EXPECT_EQ(metrics.webhook_evaluations.value({"conditional", "error"}), 0) << "never called";
}

}  // namespace
}  // namespace kapi::authorization::authorization_metrics_test

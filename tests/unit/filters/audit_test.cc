// The audit stage (kube's WithAudit): the level the policy gives a request, the stages it sends and omits, and the
// event's fields (auditID, verb, user, objectRef, responseStatus, request and response objects, annotations) as the
// stages after it and the handler fill them in.
#include "filters/audit.h"
#include "filters/authorization.h"
#include "request/request_info_resolver.h"

#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

namespace kapi::filters::audit_test {
namespace {

using audit::Level;
using audit::Stage;
using test_support::make_request;
using test_support::RecordingWriter;
using test_support::run_sync;

// Records every event; `stores` false makes it a blocking-strict backend that could not store them.
class RecordingBackend final : public audit::Backend {
 public:
  std::vector<audit::Event> events;
  bool stores = true;
  asio::awaitable<bool> process_events(std::vector<audit::Event> more) override {
    for (auto& event : more) events.push_back(std::move(event));
    co_return stores;
  }
  void run(asio::any_io_executor) override {}
  asio::awaitable<void> shutdown() override { co_return; }
  std::string name() const override { return "recording"; }
};

class AllowAll final : public authorization::Authorizer {
 public:
  authorization::Result authorize(const authorization::Attributes&) const override {
    return {authorization::Decision::Allow, "allowed"};
  }
};

class DenyAll final : public authorization::Authorizer {
 public:
  authorization::Result authorize(const authorization::Attributes&) const override { return {}; }
};

audit::Policy policy_at(Level level, std::vector<Stage> omit_stages = {}) {
  audit::Policy policy;
  policy.rules.push_back(audit::PolicyRule{.level = level});
  policy.omit_stages = std::move(omit_stages);
  return policy;
}

struct Sent {
  std::string method = "GET";
  std::string target = "/api/v1/namespaces/default/configmaps/settings";
  std::string body;
  bool long_running = false;
};

// The audit stage, then authorization (allowing unless `authorizer` says otherwise), then `handler`.
class AuditTest : public ::testing::Test {
 protected:
  RecordingWriter serve(const audit::Policy& policy, Sent sent, Handler handler,
                        std::shared_ptr<const authorization::Authorizer> authorizer = std::make_shared<AllowAll>()) {
    std::vector<std::unique_ptr<Filter>> stages;
    stages.push_back(std::make_unique<AuditFilter>(
        AuditSettings{std::make_shared<const audit::Policy>(policy), backend_}, metrics_));
    stages.push_back(std::make_unique<AuthorizationFilter>(std::move(authorizer)));
    Chain chain(std::move(stages), std::move(handler));
    http::Request request = make_request(sent.method, sent.target);
    request.body = sent.body;
    if (!sent.body.empty()) request.headers.add("Content-Type", "application/json");
    request.headers.add("User-Agent", "kubectl/v1.32.0");
    request.remote_address = "10.0.0.7:51234";
    RecordingWriter writer;
    RequestContext context;
    context.audit_id = "8e2f1c3a-audit";
    context.user = UserInfo{"jane", "1001", {"devs", "system:authenticated"}, {}};
    context.request_info = request::RequestInfoResolver().resolve_target(sent.method, sent.target)->info;
    context.long_running = sent.long_running;
    Exchange exchange{request, &writer, std::move(context)};
    run_sync(chain(exchange));
    return writer;
  }

  std::vector<Stage> stages() const {
    std::vector<Stage> out;
    for (const auto& event : backend_->events) out.push_back(event.stage);
    return out;
  }
  const audit::Event& last() const { return backend_->events.back(); }

  std::shared_ptr<RecordingBackend> backend_ = std::make_shared<RecordingBackend>();
  metrics::Registry metrics_;
};

asio::awaitable<void> answer_json(Exchange& exchange) {
  exchange.response->headers().set("Content-Type", "application/json");
  co_await exchange.response->write(200, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings"}})");
}

TEST_F(AuditTest, LevelNoneRecordsNothing) {
  RecordingWriter writer = serve(policy_at(Level::None), {}, answer_json);
  EXPECT_EQ(writer.status(), 200);
  EXPECT_TRUE(backend_->events.empty());
}

TEST_F(AuditTest, TheFirstMatchingRuleDecidesTheLevel) {
  audit::Policy policy;
  policy.rules.push_back(audit::PolicyRule{.level = Level::None, .users = {"jane"}});
  policy.rules.push_back(audit::PolicyRule{.level = Level::RequestResponse});
  serve(policy, {}, answer_json);
  EXPECT_TRUE(backend_->events.empty());

  policy.rules.front().users = {"bob"};
  serve(policy, {}, answer_json);
  ASSERT_FALSE(backend_->events.empty());
  EXPECT_EQ(last().level, Level::RequestResponse);
}

TEST_F(AuditTest, MetadataEventsDescribeTheRequestAndItsOutcome) {
  serve(policy_at(Level::Metadata), {}, answer_json);
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseComplete}));
  for (const audit::Event& event : backend_->events) {
    EXPECT_EQ(event.level, Level::Metadata);
    EXPECT_EQ(event.audit_id, "8e2f1c3a-audit");
    EXPECT_EQ(event.verb, "get");
    EXPECT_EQ(event.request_uri, "/api/v1/namespaces/default/configmaps/settings");
    EXPECT_EQ(event.user.name, "jane");
    EXPECT_EQ(event.user.groups, (std::vector<std::string>{"devs", "system:authenticated"}));
    EXPECT_EQ(event.user_agent, "kubectl/v1.32.0");
    EXPECT_EQ(event.source_ips, (std::vector<std::string>{"10.0.0.7"}));
    ASSERT_TRUE(event.object_ref);
    EXPECT_EQ(event.object_ref->resource, "configmaps");
    EXPECT_EQ(event.object_ref->namespace_, "default");
    EXPECT_EQ(event.object_ref->name, "settings");
    EXPECT_EQ(event.object_ref->api_group, "");
    EXPECT_EQ(event.object_ref->api_version, "v1");
    EXPECT_FALSE(event.request_object);
    EXPECT_FALSE(event.response_object);
  }
  const audit::Event& received = backend_->events.front();
  EXPECT_FALSE(received.response_status) << "nothing is known of the response yet";
  EXPECT_TRUE(received.annotations.empty());
  EXPECT_EQ(received.stage_timestamp, received.request_received_timestamp);

  const audit::Event& completed = last();
  ASSERT_TRUE(completed.response_status);
  EXPECT_EQ(completed.response_status->code, 200);
  EXPECT_EQ(completed.response_status->message, "") << "only a Status body's fields are copied";
  EXPECT_GE(completed.stage_timestamp, completed.request_received_timestamp);
  EXPECT_EQ(completed.annotations, (std::map<std::string, std::string>{{"authorization.k8s.io/decision", "allow"},
                                                                       {"authorization.k8s.io/reason", "allowed"}}));
}

TEST_F(AuditTest, RequestLevelAddsTheRequestObjectAndCompletesTheObjectRef) {
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fresh","uid":"u-1"}})";
  serve(policy_at(Level::Request), {.method = "POST", .target = "/api/v1/namespaces/default/configmaps", .body = body},
        answer_json);
  const audit::Event& completed = last();
  EXPECT_EQ(completed.verb, "create");
  ASSERT_TRUE(completed.request_object);
  EXPECT_EQ(*completed.request_object, body);
  EXPECT_FALSE(completed.response_object) << "the response is for RequestResponse";
  ASSERT_TRUE(completed.object_ref);
  EXPECT_EQ(completed.object_ref->name, "fresh") << "a create's objectRef takes its name from the body";
  EXPECT_EQ(completed.object_ref->uid, "u-1");
}

TEST_F(AuditTest, RequestResponseLevelAddsTheResponseObject) {
  serve(policy_at(Level::RequestResponse), {}, answer_json);
  ASSERT_TRUE(last().response_object);
  EXPECT_EQ(*last().response_object, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings"}})");
}

TEST_F(AuditTest, ADeniedRequestRecordsTheForbiddenStatusButNotItsBody) {
  bool reached = false;
  serve(policy_at(Level::Request), {.method = "POST", .target = "/api/v1/namespaces/default/configmaps", .body = "{}"},
        [&](Exchange&) -> asio::awaitable<void> {
          reached = true;
          co_return;
        },
        std::make_shared<DenyAll>());
  EXPECT_FALSE(reached);
  const audit::Event& completed = last();
  ASSERT_TRUE(completed.response_status);
  EXPECT_EQ(completed.response_status->code, 403);
  EXPECT_EQ(completed.response_status->status, "Failure");
  EXPECT_EQ(completed.response_status->reason, "Forbidden");
  EXPECT_EQ(completed.response_status->message,
            "configmaps is forbidden: User \"jane\" cannot create resource \"configmaps\" in API group \"\" in the "
            "namespace \"default\"");
  EXPECT_EQ(completed.response_status->details, R"({"kind":"configmaps"})");
  EXPECT_FALSE(completed.request_object) << "kube logs the request object from the handler, which never ran";
  EXPECT_EQ(completed.annotations.at("authorization.k8s.io/decision"), "forbid");
}

TEST_F(AuditTest, OmittedStagesAreNotSent) {
  serve(policy_at(Level::Metadata, {Stage::RequestReceived}), {}, answer_json);
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::ResponseComplete}));

  backend_->events.clear();
  audit::Policy by_rule = policy_at(Level::Metadata);
  by_rule.rules.front().omit_stages = {Stage::ResponseComplete};
  serve(by_rule, {}, answer_json);
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived}));
}

TEST_F(AuditTest, ALongRunningResponseSendsResponseStartedWhenItBegins) {
  std::vector<Stage> seen_when_streaming;
  serve(policy_at(Level::Metadata), {.target = "/api/v1/namespaces/default/configmaps?watch=1", .long_running = true},
        [&](Exchange& exchange) -> asio::awaitable<void> {
          co_await exchange.response->begin_stream(200);
          seen_when_streaming = stages();
          co_await exchange.response->write_chunk("{}\n");
          co_await exchange.response->end_stream();
        });
  EXPECT_EQ(seen_when_streaming, (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseStarted}));
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseStarted, Stage::ResponseComplete}));
  EXPECT_EQ(last().verb, "watch");
  EXPECT_EQ(last().response_status->code, 200);
}

// A handler that hands its stream off (Exchange::handed_off): the audit stage runs it, and completes the event
// when it has ended, not when the handler returned.
asio::awaitable<void> stream_one_event(Exchange& exchange, std::function<void()> at_start) {
  at_start();
  co_await exchange.response->write_chunk("{}\n");
  co_await exchange.response->end_stream();
}

TEST_F(AuditTest, AHandedOffStreamIsCompleteWhenItEnds) {
  std::vector<Stage> seen_when_streaming;
  auto writer = serve(policy_at(Level::Metadata),
                      {.target = "/api/v1/namespaces/default/configmaps?watch=1", .long_running = true},
                      [&](Exchange& exchange) -> asio::awaitable<void> {
                        co_await exchange.response->begin_stream(200);
                        exchange.handed_off = stream_one_event(exchange, [&] { seen_when_streaming = stages(); });
                      });
  EXPECT_EQ(seen_when_streaming, (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseStarted}));
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseStarted, Stage::ResponseComplete}));
  EXPECT_EQ(writer.body(), "{}\n");
}

TEST_F(AuditTest, AShortRequestHasNoResponseStartedStage) {
  serve(policy_at(Level::Metadata), {}, answer_json);
  for (Stage stage : stages()) EXPECT_NE(stage, Stage::ResponseStarted);
}

TEST_F(AuditTest, AnExceptionFromTheHandlerIsAPanicEvent) {
  auto failing = [](Exchange&) -> asio::awaitable<void> {
    throw std::runtime_error("boom");
    co_return;
  };
  EXPECT_THROW(serve(policy_at(Level::Metadata), {}, failing), std::runtime_error) << "the panic goes on up";
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived, Stage::Panic}));
  ASSERT_TRUE(last().response_status);
  EXPECT_EQ(last().response_status->code, 500);
  EXPECT_EQ(last().response_status->reason, "InternalError");
  EXPECT_EQ(last().response_status->message, "APIServer panic'd: boom");
}

TEST_F(AuditTest, AnApiErrorIsTheResponseNotAPanic) {
  auto refusing = [](Exchange&) -> asio::awaitable<void> {
    throw apierrors::ApiError(apierrors::not_found("", "configmaps", "settings"));
    co_return;
  };
  EXPECT_THROW(serve(policy_at(Level::Metadata), {}, refusing), apierrors::ApiError);
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived, Stage::ResponseComplete}));
  EXPECT_EQ(last().response_status->code, 404);
  EXPECT_EQ(last().response_status->reason, "NotFound");
  EXPECT_EQ(last().response_status->message, "configmaps \"settings\" not found");
}

TEST_F(AuditTest, AnnotationsTheHandlerAddsAreInTheCompletedEvent) {
  serve(policy_at(Level::Metadata), {}, [](Exchange& exchange) -> asio::awaitable<void> {
    exchange.context.audit_annotations.emplace("pod-security.kubernetes.io/enforce-policy", "restricted:latest");
    co_await answer_json(exchange);
  });
  EXPECT_EQ(last().annotations.at("pod-security.kubernetes.io/enforce-policy"), "restricted:latest");
  EXPECT_TRUE(backend_->events.front().annotations.empty());
}

TEST_F(AuditTest, TheEventRecordsWhoWasImpersonated) {
  serve(policy_at(Level::Metadata), {}, [](Exchange& exchange) -> asio::awaitable<void> {
    // What the impersonation stage leaves: the request now acts as bob, sent by jane.
    exchange.context.impersonated_by = exchange.context.user;
    exchange.context.user = UserInfo{"bob", "", {"system:authenticated"}, {}};
    co_await answer_json(exchange);
  });
  EXPECT_EQ(last().user.name, "jane");
  ASSERT_TRUE(last().impersonated_user);
  EXPECT_EQ(last().impersonated_user->name, "bob");
}

// blocking-strict: a RequestReceived event that was not stored fails the request before the handler runs.
TEST_F(AuditTest, ARequestWhoseFirstEventWasNotStoredFails) {
  backend_->stores = false;
  bool handled = false;
  RecordingWriter writer = serve(policy_at(Level::Metadata), {}, [&handled](Exchange& exchange) -> asio::awaitable<void> {
    handled = true;
    co_await answer_json(exchange);
  });
  EXPECT_FALSE(handled);
  EXPECT_EQ(writer.status(), 500);
  EXPECT_EQ(writer.body(),
            "Internal Server Error: \"/api/v1/namespaces/default/configmaps/settings\": failed to store audit event\n");
  EXPECT_EQ(stages(), (std::vector<Stage>{Stage::RequestReceived}));
  EXPECT_EQ(metrics_.audit_requests_rejected.value({}), 1);
}

}  // namespace
}  // namespace kapi::filters::audit_test

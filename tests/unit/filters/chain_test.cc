// The common filter chain: its order, and each stage's behaviour on requests built in memory.
#include "filters/chain.h"

#include "filters/audit_id.h"
#include "filters/authentication.h"
#include "filters/cors.h"
#include "filters/latency_tracker.h"
#include "filters/max_in_flight.h"
#include "filters/panic_recovery.h"
#include "filters/request_deadline.h"
#include "filters/request_info.h"
#include "filters/timeout.h"
#include "filters/wait_group.h"
#include "filters/warning_recorder.h"
#include "tests/unit/support/recording_writer.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <gtest/gtest.h>

#include <functional>

namespace kapi::filters::chain_test {
namespace {

using test_support::make_request;
using test_support::RecordingWriter;
using test_support::run_sync;

struct Fixture {
  base::Logger logger{0};
  metrics::Registry metrics;
  server::Lifecycle lifecycle;
};

asio::awaitable<void> answer_ok(Exchange& exchange) {
  exchange.response->headers().set("Content-Type", "text/plain");
  co_await exchange.response->write(200, "ok");
}

// Runs one request through a chain of the given stages ending in `handler`.
RecordingWriter serve(std::vector<std::unique_ptr<Filter>> stages, http::Request request, Handler handler,
                      RequestContext context = {}) {
  Chain chain(std::move(stages), std::move(handler));
  RecordingWriter writer;
  Exchange exchange{request, &writer, std::move(context)};
  run_sync(chain(exchange));
  return writer;
}

template <typename F, typename... Args>
std::vector<std::unique_ptr<Filter>> stages(Args&&... args) {
  std::vector<std::unique_ptr<Filter>> out;
  out.push_back(std::make_unique<F>(std::forward<Args>(args)...));
  return out;
}

TEST(FilterChain, RunsTheStagesInKubeApiserversOrder) {
  Fixture f;
  ChainConfig config(f.logger, f.metrics, f.lifecycle);
  config.cors_allowed_origins = {"example.com"};
  Chain chain = build_handler_chain(config, &answer_ok);
  std::vector<std::string> names;
  for (const auto& filter : chain.filters()) names.emplace_back(filter->name());
  std::vector<std::string> expected = {"audit-id",        "panic-recovery", "received-timestamp", "request-info",
                                       "latency-tracker", "http-log",       "hsts",               "cache-control",
                                       "warning-recorder", "wait-group",    "request-deadline",   "timeout",
                                       "cors",            "authentication", "audit",              "impersonation",
                                       "max-in-flight",   "authorization"};
  EXPECT_EQ(names, expected);
}

TEST(FilterChain, ServesThroughEveryStageAndRecordsMetrics) {
  Fixture f;
  ChainConfig config(f.logger, f.metrics, f.lifecycle);
  Chain chain = build_handler_chain(config, &answer_ok);
  auto request = make_request("GET", "/api/v1/namespaces/default/pods/p");
  RecordingWriter writer;
  Exchange exchange{request, &writer, {}};
  run_sync(chain(exchange));
  EXPECT_EQ(writer.status(), 200);
  EXPECT_EQ(writer.headers().get("Cache-Control"), "no-cache, private");
  EXPECT_TRUE(writer.headers().has("Audit-ID"));
  ASSERT_TRUE(exchange.context.user);
  EXPECT_EQ(exchange.context.user->name, "system:anonymous");
  EXPECT_EQ(f.metrics.request_total.value({"200", "apiserver", "", "", "pods", "resource", "", "GET", "v1"}), 1);
  EXPECT_NE(f.metrics.render().find("apiserver_request_filter_duration_seconds_count{filter=\"authentication\"} 1"),
            std::string::npos);
}

// A watch's events after its response began, as a handler hands them off (Exchange::handed_off).
asio::awaitable<void> stream_rest(Exchange& exchange, std::function<void()> at_start) {
  at_start();
  co_await exchange.response->write_chunk("event\n");
  co_await exchange.response->end_stream();
}

// Notes when the stages after it have returned.
class ReturnProbe final : public Filter {
 public:
  explicit ReturnProbe(bool& returned) : returned_(returned) {}
  std::string_view name() const override { return "probe"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    co_await next(exchange);
    returned_ = true;
  }

 private:
  bool& returned_;
};

TEST(FilterChain, AHandedOffStreamRunsAfterTheStagesBehindTheRequestMetricsReturned) {
  Fixture f;
  ChainConfig config(f.logger, f.metrics, f.lifecycle);
  bool stages_returned = false;
  bool counted_before_the_stream = true;
  std::vector<std::unique_ptr<Filter>> filters;
  filters.push_back(std::make_unique<RequestInfoFilter>(config.long_running));
  filters.push_back(std::make_unique<LatencyTrackerFilter>(f.metrics));
  filters.push_back(std::make_unique<ReturnProbe>(stages_returned));
  filters.push_back(std::make_unique<WarningRecorderFilter>());
  const std::vector<std::string> watch_labels = {"200", "apiserver", "", "", "pods", "namespace", "", "WATCH", "v1"};
  bool returned_when_streaming = false;
  Handler handler = [&](Exchange& exchange) -> asio::awaitable<void> {
    co_await exchange.response->begin_stream(200);
    exchange.handed_off = stream_rest(exchange, [&] {
      returned_when_streaming = stages_returned;
      counted_before_the_stream = f.metrics.request_total.value(watch_labels) != 0;
    });
  };
  auto writer = serve(std::move(filters), make_request("GET", "/api/v1/namespaces/default/pods?watch=true"),
                      std::move(handler));
  EXPECT_TRUE(returned_when_streaming);  // the stages after the metrics' were gone while the stream ran
  EXPECT_FALSE(counted_before_the_stream);
  EXPECT_EQ(f.metrics.request_total.value(watch_labels), 1);  // counted when it ended, as kube counts a watch
  EXPECT_EQ(writer.body(), "event\n");
}

TEST(AuditId, KeepsTheClientsIdOrMakesAUuid) {
  auto request = make_request("GET", "/healthz");
  request.headers.add("Audit-ID", "given-id");
  EXPECT_EQ(serve(stages<AuditIdFilter>(), request, &answer_ok).headers().get("Audit-ID"), "given-id");
  auto writer = serve(stages<AuditIdFilter>(), make_request("GET", "/healthz"), &answer_ok);
  auto generated = writer.headers().get("Audit-ID");
  ASSERT_TRUE(generated);
  EXPECT_EQ(generated->size(), 36u);
  EXPECT_EQ((*generated)[14], '4');
}

TEST(PanicRecovery, TurnsAnExceptionIntoA500Status) {
  Fixture f;
  auto writer = serve(stages<PanicRecoveryFilter>(f.logger, f.metrics), make_request("GET", "/x"),
                      [](Exchange&) -> asio::awaitable<void> {
                        throw std::runtime_error("boom");
                        co_return;
                      });
  EXPECT_EQ(writer.status(), 500);
  EXPECT_NE(writer.body().find("\"reason\":\"InternalError\""), std::string::npos);
  EXPECT_NE(writer.body().find("This request caused apiserver to panic"), std::string::npos);
}

TEST(PanicRecovery, AnswersAnApiErrorWithItsOwnStatus) {
  Fixture f;
  auto writer = serve(stages<PanicRecoveryFilter>(f.logger, f.metrics), make_request("GET", "/x"),
                      [](Exchange&) -> asio::awaitable<void> {
                        throw apierrors::ApiError(apierrors::not_found("apps", "deployments", "web"));
                        co_return;
                      });
  EXPECT_EQ(writer.status(), 404);
  EXPECT_EQ(writer.body(),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
}

TEST(RequestDeadline, RejectsAnUnparsableTimeout) {
  auto writer = serve(stages<RequestDeadlineFilter>(std::chrono::seconds(60)), make_request("GET", "/x?timeout=soon"),
                      &answer_ok);
  EXPECT_EQ(writer.status(), 400);
  EXPECT_NE(writer.body().find("invalid timeout specified in the request URL"), std::string::npos);
}

TEST(RequestDeadline, CapsTheTimeoutAtRequestTimeout) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  RequestContext context;
  context.received_steady = std::chrono::steady_clock::now();
  serve(stages<RequestDeadlineFilter>(std::chrono::seconds(60)), make_request("GET", "/x?timeout=1h"),
        [&](Exchange& exchange) {
          deadline = exchange.context.deadline;
          return answer_ok(exchange);
        },
        context);
  ASSERT_TRUE(deadline);
  EXPECT_LE(*deadline - context.received_steady, std::chrono::seconds(60));
}

TEST(Timeout, AnswersGatewayTimeoutWhenTheDeadlinePassesFirst) {
  Fixture f;
  RequestContext context;
  context.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  bool cancelled = false;
  auto writer = serve(stages<TimeoutFilter>(f.metrics), make_request("GET", "/x"),
                      [&](Exchange&) -> asio::awaitable<void> {
                        asio::steady_timer timer(co_await asio::this_coro::executor);
                        timer.expires_after(std::chrono::seconds(30));
                        try {
                          co_await timer.async_wait(asio::use_awaitable);
                        } catch (const std::system_error&) {
                          cancelled = true;
                        }
                      },
                      context);
  EXPECT_EQ(writer.status(), 504);
  EXPECT_TRUE(cancelled);
  EXPECT_NE(writer.body().find("\"reason\":\"Timeout\""), std::string::npos);
}

TEST(Timeout, LetsLongRunningRequestsRun) {
  Fixture f;
  RequestContext context;
  context.long_running = true;
  context.deadline = std::chrono::steady_clock::now();
  auto writer = serve(stages<TimeoutFilter>(f.metrics), make_request("GET", "/x"), &answer_ok, context);
  EXPECT_EQ(writer.status(), 200);
}

TEST(WaitGroup, RefusesRequestsOnceShutdownStopsAcceptingThem) {
  Fixture f;
  f.lifecycle.stop_accepting_requests();
  auto writer = serve(stages<WaitGroupFilter>(f.lifecycle), make_request("GET", "/x"), &answer_ok);
  EXPECT_EQ(writer.status(), 503);
  EXPECT_EQ(writer.headers().get("Retry-After"), "1");
  EXPECT_NE(writer.body().find("apiserver is shutting down"), std::string::npos);
}

TEST(WaitGroup, CountsRequestsInFlight) {
  Fixture f;
  std::int64_t during = -1;
  serve(stages<WaitGroupFilter>(f.lifecycle), make_request("GET", "/x"), [&](Exchange& exchange) {
    during = f.lifecycle.in_flight();
    return answer_ok(exchange);
  });
  EXPECT_EQ(during, 1);
  EXPECT_EQ(f.lifecycle.in_flight(), 0);
}

TEST(MaxInFlight, RefusesPastTheLimitButServesSystemMasters) {
  Fixture f;
  MaxInFlightFilter filter(1, 1, f.metrics);
  auto request = make_request("GET", "/api/v1/pods");
  RequestContext context;
  context.request_info = request::RequestInfoResolver().resolve("GET", "/api/v1/pods", request.query).info;
  context.user = UserInfo{"jane", "", {"system:authenticated"}, {}};
  std::vector<int> statuses;
  // The first request holds the only read-only slot while the others arrive.
  Handler inner = [&](Exchange& outer) -> asio::awaitable<void> {
    for (auto groups : {std::vector<std::string>{"system:authenticated"}, std::vector<std::string>{"system:masters"}}) {
      RecordingWriter writer;
      RequestContext nested = context;
      nested.user->groups = groups;
      Exchange exchange{request, &writer, nested};
      Chain single({}, &answer_ok);
      co_await filter.handle(exchange, Next(single, 0));
      statuses.push_back(writer.status());
      if (writer.status() == 429) {
        EXPECT_EQ(writer.headers().get("Retry-After"), "1");
      }
    }
    co_await answer_ok(outer);
  };
  RecordingWriter writer;
  Exchange exchange{request, &writer, context};
  Chain rest({}, inner);
  run_sync(filter.handle(exchange, Next(rest, 0)));
  EXPECT_EQ(writer.status(), 200);
  EXPECT_EQ(statuses, (std::vector<int>{429, 200}));
  EXPECT_EQ(f.metrics.dropped_requests.value({"readOnly"}), 1);
}

TEST(Authentication, MapsAVerifiedCertificateToItsUserAndGroups) {
  auto request = make_request("GET", "/x");
  request.peer_certificate = http::PeerCertificate{true, "", "kapi-admin", {"system:masters"}};
  request.headers.add("Authorization", "Bearer secret");
  std::optional<UserInfo> user;
  bool authorization_seen = true;
  auto writer = serve(stages<AuthenticationFilter>(authentication::RequestAuthenticator::build({})), request, [&](Exchange& exchange) {
    user = exchange.context.user;
    authorization_seen = exchange.request.headers.has("Authorization");
    return answer_ok(exchange);
  });
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "kapi-admin");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"system:masters", "system:authenticated"}));
  EXPECT_FALSE(authorization_seen);
}

TEST(Authentication, RejectsAnUnverifiedCertificate) {
  auto request = make_request("GET", "/x");
  request.peer_certificate = http::PeerCertificate{false, "unable to get local issuer certificate", "mallory", {}};
  auto writer = serve(stages<AuthenticationFilter>(authentication::RequestAuthenticator::build({})), request, &answer_ok);
  EXPECT_EQ(writer.status(), 401);
  EXPECT_EQ(writer.body(),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
}

TEST(Cors, AnswersPreflightForAllowedOriginsOnly) {
  std::vector<std::string> allowed = {"^https://ui\\.example\\.com$"};
  auto preflight = make_request("OPTIONS", "/api");
  preflight.headers.add("Origin", "https://ui.example.com");
  auto writer = serve(stages<CorsFilter>(allowed), preflight, &answer_ok);
  EXPECT_EQ(writer.status(), 204);
  EXPECT_EQ(writer.headers().get("Access-Control-Allow-Origin"), "https://ui.example.com");

  auto other = make_request("GET", "/api");
  other.headers.add("Origin", "https://evil.example.org");
  auto served = serve(stages<CorsFilter>(allowed), other, &answer_ok);
  EXPECT_EQ(served.status(), 200);
  EXPECT_FALSE(served.headers().has("Access-Control-Allow-Origin"));
}

TEST(WarningRecorder, SendsEachWarningOnceAsA299Header) {
  auto writer = serve(stages<WarningRecorderFilter>(), make_request("GET", "/x"), [](Exchange& exchange) {
    exchange.context.warnings = {"unknown field \"spec.x\"", "unknown field \"spec.x\"", "deprecated"};
    return answer_ok(exchange);
  });
  auto warnings = writer.headers().all("Warning");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], R"(299 - "unknown field \"spec.x\"")");
  EXPECT_EQ(warnings[1], R"(299 - "deprecated")");
}

}  // namespace
}  // namespace kapi::filters::chain_test

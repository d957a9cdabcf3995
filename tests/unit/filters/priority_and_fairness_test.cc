// The priority-and-fairness stage (kube's WithPriorityAndFairness) over a real controller following a small stored
// configuration: a level "tiny" of one seat and one queue of one request, chosen by the FlowSchema "tiny" for the
// group tiny-users. It checks what the stage decides: the classification it names in the response headers, that
// exempt and long-running requests are not queued, that a full queue answers 429 with Retry-After, and that a
// WATCH gives its seat back once its response starts. Its io thread is a reactor with a low-priority lane, where the
// requests admitted to a limited level run.
#include "filters/priority_and_fairness.h"
#include "request/request_info_resolver.h"
#include "server/http/low_priority_lane.h"

#include "base/executor_target.h"
#include "base/log.h"
#include "base/sleep.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/support/recording_writer.h"

#include <asio/co_spawn.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_future.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace kapi::filters::priority_and_fairness_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr std::string_view kTinyLevel = R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1",
  "kind":"PriorityLevelConfiguration","metadata":{"name":"tiny"},
  "spec":{"type":"Limited","limited":{"nominalConcurrencyShares":5,"lendablePercent":0,"borrowingLimitPercent":0,
    "limitResponse":{"type":"Queue","queuing":{"queues":1,"handSize":1,"queueLengthLimit":1}}}}})";
constexpr std::string_view kTinySchema = R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
  "metadata":{"name":"tiny"},
  "spec":{"priorityLevelConfiguration":{"name":"tiny"},"matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},
    "rules":[{"subjects":[{"kind":"Group","group":{"name":"tiny-users"}}],
      "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}]}]}})";

UserInfo tiny_user(std::string name) { return {std::move(name), "", {"tiny-users", "system:authenticated"}, {}}; }
UserInfo admin() { return {"kapi-admin", "", {"system:masters", "system:authenticated"}, {}}; }

// One request in flight on the controller's io thread; its parts live until it is answered (a failed test
// releases the requests it held first).
struct InFlight {
  explicit InFlight(std::atomic<bool>& release) : release(release) {}
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() {
    release = true;
    if (done.valid()) done.wait_for(10s);
  }

  std::atomic<bool>& release;
  http::Request request;
  test_support::RecordingWriter writer;
  std::optional<Exchange> exchange;
  std::future<void> done;

  bool answered_within(std::chrono::milliseconds timeout) {
    return done.wait_for(timeout) == std::future_status::ready;
  }
  std::string header(std::string_view name) { return std::string(writer.headers().get(name).value_or("")); }
};

// The controller, its stores and the stage are shared by the suite: the controller's rebalancing wakes every 10 s,
// so each fixture costs that much to take down.
class PriorityAndFairnessTest : public ::testing::Test {
 protected:
  struct Environment {
    test_support::TempDir dir{"kapi-apf-filter"};
    base::Logger logger{0};
    metrics::Registry metrics;
    std::unique_ptr<storage::embedded::Store> backend;
    std::unique_ptr<registry::Store> flow_schemas, priority_levels;
    std::shared_ptr<std::atomic<bool>> stopping = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<flowcontrol::Controller> controller;
    std::unique_ptr<Chain> chain;
    std::string tiny_schema_uid, tiny_level_uid;
    std::unique_ptr<test_support::IoThread> io = std::make_unique<test_support::IoThread>();

    // Requests carrying X-Test-Hold wait in the handler until `release` is set.
    std::atomic<bool> release{false};
    std::atomic<int> handled{0};
    std::atomic<int> handled_in_lane{0};
  };

  static void SetUpTestSuite() {
    env_ = std::make_unique<Environment>();
    Environment& env = *env_;
    http::add_low_priority_lane(env.io->context());
    storage::embedded::Options options;
    options.data_dir = env.dir.path() / "data";
    env.backend = storage::embedded::Store::open(std::move(options));
    apis::ResourceStorage schemas = apis::flowschemas();
    apis::ResourceStorage levels = apis::prioritylevelconfigurations();
    env.flow_schemas = std::make_unique<registry::Store>(schemas.definition, schemas.strategy, *env.backend);
    env.priority_levels = std::make_unique<registry::Store>(levels.definition, levels.strategy, *env.backend);
    auto uid_of = [](const std::string& stored) {
      return std::string(registry::meta_string(registry::parse_json(stored).as_object(), "uid"));
    };
    env.tiny_level_uid = uid_of(env.io->run(
        env.priority_levels->create("", json::parse(kTinyLevel).as_object(), registry::WriteOptions{})));
    env.tiny_schema_uid = uid_of(env.io->run(
        env.flow_schemas->create("", json::parse(kTinySchema).as_object(), registry::WriteOptions{})));

    // Two seats: one for tiny and one for the imagined catch-all (five shares each; exempt has none).
    flowcontrol::WorkEstimator estimator([](std::string_view, std::string_view) { return std::nullopt; });
    env.controller = std::make_shared<flowcontrol::Controller>(2, std::move(estimator), env.metrics.flowcontrol,
                                                               env.io->executor(), env.logger);
    env.controller->start(*env.flow_schemas, *env.priority_levels, env.stopping);
    std::vector<std::unique_ptr<Filter>> stages;
    stages.push_back(std::make_unique<PriorityAndFairnessFilter>(env.controller, env.metrics));
    env.chain = std::make_unique<Chain>(std::move(stages), [&env](Exchange& exchange) -> asio::awaitable<void> {
      const bool hold = exchange.request.headers.get("X-Test-Hold").has_value();
      if (hold && exchange.context.long_running) co_await exchange.response->begin_stream(200);
      const auto executor = co_await asio::this_coro::executor;
      if (!base::executor_target<asio::io_context::executor_type>(executor)) ++env.handled_in_lane;
      ++env.handled;  // after a stream's head: a test that sees the count sees the status
      if (hold) {
        while (!env.release) co_await base::sleep_for(1ms);
        if (exchange.context.long_running) co_return co_await exchange.response->end_stream();
      }
      co_await exchange.response->write(200, "ok");
    });
  }

  static void TearDownTestSuite() {
    // The controller's followers wait on their watches and its rebalancer sleeps 10 s: nothing more is asked of
    // them, so the context stops rather than waiting for them (taking the backend away first hung a CI run).
    // Everything that posts to the context or holds its strands goes while it still exists, stopped: the stage and
    // the controller, then the stores and the backend, whose closing watches queue their completions on it. The
    // context goes last, destroying what is queued and the frames still suspended on it.
    env_->stopping->store(true);
    env_->io->context().stop();
    env_->chain.reset();
    env_->controller.reset();
    env_->flow_schemas.reset();
    env_->priority_levels.reset();
    env_->backend.reset();
    env_.reset();
  }

  void SetUp() override {
    // The stored configuration is read asynchronously: wait until tiny-users are classified by it.
    bool configured = false;
    for (int attempt = 0; attempt < 500 && !configured; ++attempt) {
      auto probe = send(tiny_user("probe"), "/api/v1/namespaces/default/configmaps");
      configured =
          probe->answered_within(5s) && probe->header("X-Kubernetes-PF-FlowSchema-UID") == env_->tiny_schema_uid;
      if (!configured) std::this_thread::sleep_for(10ms);
    }
    ASSERT_TRUE(configured) << "the controller never read the stored configuration";
    env_->release = false;
  }
  void TearDown() override { env_->release = true; }

  std::unique_ptr<InFlight> send(UserInfo user, std::string target, bool hold = false, bool long_running = false) {
    auto sent = std::make_unique<InFlight>(env_->release);
    sent->request = test_support::make_request("GET", target);
    if (hold) sent->request.headers.add("X-Test-Hold", "1");
    RequestContext context;
    context.user = std::move(user);
    context.request_info = request::RequestInfoResolver().resolve_target("GET", target)->info;
    context.long_running = long_running;
    sent->exchange.emplace(Exchange{sent->request, &sent->writer, std::move(context)});
    sent->done = asio::co_spawn(env_->io->context(), (*env_->chain)(*sent->exchange), asio::use_future);
    return sent;
  }

  // Waits (a bounded while) until the handler has seen `count` requests in all.
  static bool handled_reaches(int count) {
    for (int i = 0; i < 1000 && env_->handled < count; ++i) std::this_thread::sleep_for(5ms);
    return env_->handled >= count;
  }
  static double waiting_in_tiny() {
    return env_->metrics.flowcontrol.current_inqueue_requests.value({"tiny", "tiny"});
  }

  static inline std::unique_ptr<Environment> env_;
};


TEST_F(PriorityAndFairnessTest, ARequestIsClassifiedAndTheResponseNamesSchemaAndLevel) {
  auto served = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(served->answered_within(5s));
  served->done.get();
  EXPECT_EQ(served->writer.status(), 200);
  EXPECT_EQ(served->header("X-Kubernetes-PF-FlowSchema-UID"), env_->tiny_schema_uid);
  EXPECT_EQ(served->header("X-Kubernetes-PF-PriorityLevel-UID"), env_->tiny_level_uid);
  EXPECT_EQ(env_->tiny_schema_uid.size(), 36u);

  // Anyone else falls through to the (imagined) catch-all, whose headers are sent too.
  auto other = send(UserInfo{"bob", "", {"system:authenticated"}, {}}, "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(other->answered_within(5s));
  EXPECT_EQ(other->writer.status(), 200);
  EXPECT_NE(other->header("X-Kubernetes-PF-FlowSchema-UID"), env_->tiny_schema_uid);
  EXPECT_TRUE(other->writer.headers().get("X-Kubernetes-PF-PriorityLevel-UID"));
}

TEST_F(PriorityAndFairnessTest, AFullQueueAnswers429WithRetryAfter) {
  const int before = env_->handled;
  auto holding = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps", true);
  ASSERT_TRUE(handled_reaches(before + 1)) << "the one seat is taken";
  auto queued = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  for (int i = 0; i < 1000 && waiting_in_tiny() < 1; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(waiting_in_tiny(), 1) << "the second waits in the queue";
  EXPECT_FALSE(queued->answered_within(50ms));

  auto refused = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(refused->answered_within(5s)) << "no room in the queue: refused at once";
  EXPECT_EQ(refused->writer.status(), 429);
  EXPECT_EQ(refused->header("Retry-After"), "1");
  EXPECT_EQ(refused->header("X-Kubernetes-PF-FlowSchema-UID"), env_->tiny_schema_uid);
  json::object body = json::parse(refused->writer.body()).as_object();
  EXPECT_EQ(body.at("reason"), "TooManyRequests");
  EXPECT_EQ(body.at("message"), "Too many requests, please try again later.");
  EXPECT_EQ(body.at("details").at("retryAfterSeconds"), 1);
  EXPECT_EQ(env_->handled, before + 1) << "neither the queued nor the refused request ran";

  env_->release = true;
  ASSERT_TRUE(holding->answered_within(5s));
  ASSERT_TRUE(queued->answered_within(5s)) << "the seat freed goes to the queued request";
  EXPECT_EQ(queued->writer.status(), 200);
  EXPECT_EQ(waiting_in_tiny(), 0);
}

TEST_F(PriorityAndFairnessTest, ExemptRequestsAreNeverQueued) {
  const int before = env_->handled;
  auto holding = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps", true);
  ASSERT_TRUE(handled_reaches(before + 1));
  auto queued = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  for (int i = 0; i < 1000 && waiting_in_tiny() < 1; ++i) std::this_thread::sleep_for(5ms);

  // system:masters is exempt: however busy the other levels, it runs at once.
  auto exempt = send(admin(), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(exempt->answered_within(5s));
  EXPECT_EQ(exempt->writer.status(), 200);
  EXPECT_TRUE(exempt->writer.headers().get("X-Kubernetes-PF-PriorityLevel-UID")) << "exempt is named too";
  EXPECT_NE(exempt->header("X-Kubernetes-PF-FlowSchema-UID"), env_->tiny_schema_uid);
  EXPECT_EQ(waiting_in_tiny(), 1);

  env_->release = true;
  ASSERT_TRUE(holding->answered_within(5s));
  ASSERT_TRUE(queued->answered_within(5s));
}

TEST_F(PriorityAndFairnessTest, AdmittedRequestsRunInTheReactorsLowPriorityLaneAndExemptOnesDoNot) {
  int in_lane = env_->handled_in_lane;
  auto admitted = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(admitted->answered_within(5s));
  admitted->done.get();
  EXPECT_EQ(admitted->writer.status(), 200);
  EXPECT_EQ(env_->handled_in_lane, ++in_lane);

  auto exempt = send(admin(), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(exempt->answered_within(5s));
  EXPECT_EQ(exempt->writer.status(), 200);
  EXPECT_EQ(env_->handled_in_lane, in_lane) << "exempt work stays on the reactor, ahead of the lane";

  auto watch = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps?watch=1", false, true);
  ASSERT_TRUE(watch->answered_within(5s));
  EXPECT_EQ(env_->handled_in_lane, in_lane) << "a watch streams for hours: not from the lane";
}

TEST_F(PriorityAndFairnessTest, AWatchGivesItsSeatBackOnceItsResponseStarts) {
  const int before = env_->handled;
  auto watch = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps?watch=1", true, true);
  ASSERT_TRUE(handled_reaches(before + 1));
  EXPECT_EQ(watch->writer.status(), 200) << "the stream has begun";
  EXPECT_EQ(watch->header("X-Kubernetes-PF-FlowSchema-UID"), env_->tiny_schema_uid) << "a watch is classified";

  // tiny's only seat is free again while the watch goes on streaming.
  auto next = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(next->answered_within(5s));
  EXPECT_EQ(next->writer.status(), 200);
  EXPECT_FALSE(watch->answered_within(10ms));

  env_->release = true;
  ASSERT_TRUE(watch->answered_within(5s));
}

TEST_F(PriorityAndFairnessTest, OtherLongRunningRequestsAreNotLimited) {
  const int before = env_->handled;
  auto holding = send(tiny_user("jane"), "/api/v1/namespaces/default/configmaps", true);
  ASSERT_TRUE(handled_reaches(before + 1));

  // An exec stream of a tiny user: not admitted through the level at all, and so not named in headers.
  auto exec = send(tiny_user("jane"), "/api/v1/namespaces/default/pods/web/exec", false, true);
  ASSERT_TRUE(exec->answered_within(5s));
  EXPECT_EQ(exec->writer.status(), 200);
  EXPECT_FALSE(exec->writer.headers().get("X-Kubernetes-PF-FlowSchema-UID"));

  env_->release = true;
  ASSERT_TRUE(holding->answered_within(5s));
}

}  // namespace
}  // namespace kapi::filters::priority_and_fairness_test

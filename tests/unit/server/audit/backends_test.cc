// The audit backends kube-apiserver assembles from its flags: buffered (batching by size and by wait, the
// throttle, a full buffer, the drain at shutdown, concurrent and serial delegates), truncate (stripping and
// dropping large events, splitting batches by bytes), ignore-errors and union, and the validation of the flags.
#include "server/audit/buffered_backend.h"
#include "server/audit/setup.h"
#include "server/audit/truncate_backend.h"

#include "base/sleep.h"
#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <asio/this_coro.hpp>

namespace kapi::audit::backends_test {
namespace {

using namespace std::chrono_literals;
using test_support::run_sync;
using Clock = std::chrono::steady_clock;

// A delegate that records each batch it is given, when, and how many were being processed at once.
class RecordingBackend final : public Backend {
 public:
  struct Batch {
    std::vector<std::string> ids;
    Clock::time_point at;
  };
  std::vector<Batch> batches;
  Clock::duration delay{};  // each batch takes this long
  bool stores = true;
  int concurrent = 0;
  int most_concurrent = 0;
  bool shut_down = false;

  asio::awaitable<bool> process_events(std::vector<Event> events) override {
    Batch batch{{}, Clock::now()};
    for (const Event& event : events) batch.ids.push_back(event.audit_id);
    batches.push_back(std::move(batch));
    most_concurrent = std::max(most_concurrent, ++concurrent);
    if (delay > Clock::duration::zero()) {
      auto sleeping = base::sleep_for(delay);
      co_await std::move(sleeping);
    }
    --concurrent;
    co_return stores;
  }
  void run(asio::any_io_executor) override {}
  asio::awaitable<void> shutdown() override {
    shut_down = true;
    co_return;
  }
  std::string name() const override { return "recording"; }

  std::size_t events() const {
    std::size_t count = 0;
    for (const auto& batch : batches) count += batch.ids.size();
    return count;
  }
};

Event event(std::string id, Level level = Level::Metadata) {
  Event event;
  event.level = level;
  event.audit_id = std::move(id);
  event.verb = "get";
  event.request_uri = "/api/v1/namespaces/default/configmaps";
  return event;
}

std::vector<Event> events(std::string prefix, int count) {
  std::vector<Event> out;
  for (int i = 0; i < count; ++i) out.push_back(event(prefix + std::to_string(i)));
  return out;
}

class AuditBackendsTest : public ::testing::Test {
 protected:
  // Runs `scenario` against a buffered backend over `delegate_`, started on the scenario's reactor and shut down
  // after it.
  template <typename Scenario>
  void with_buffered(BatchConfig config, Scenario scenario) {
    auto buffered = std::make_shared<BufferedBackend>(delegate_, config, PluginErrors(metrics_, logger_));
    run_sync([&]() -> asio::awaitable<void> {
      buffered->run(co_await asio::this_coro::executor);
      auto playing = scenario(*buffered);
      co_await std::move(playing);
      auto shutting_down = buffered->shutdown();
      co_await std::move(shutting_down);
    }());
  }

  std::shared_ptr<RecordingBackend> delegate_ = std::make_shared<RecordingBackend>();
  metrics::Registry metrics_;
  base::Logger logger_{-1};
};

BatchConfig unthrottled(int max_batch_size, std::chrono::nanoseconds max_batch_wait) {
  return {.max_batch_size = max_batch_size, .max_batch_wait = max_batch_wait, .throttle_enable = false};
}

TEST_F(AuditBackendsTest, AFullBatchIsSentAtOnceAndTheRestWhenItsWaitIsOver) {
  const auto start = Clock::now();
  std::size_t sent_at_once = 0;
  std::size_t sent_by_the_timer = 0;
  with_buffered(unthrottled(3, 500ms), [&](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 4));
    const bool queued = co_await std::move(queuing);
    EXPECT_TRUE(queued);
    auto pausing = base::sleep_for(150ms);
    co_await std::move(pausing);
    sent_at_once = delegate_->batches.size();
    auto waiting = base::sleep_for(700ms);
    co_await std::move(waiting);
    sent_by_the_timer = delegate_->batches.size();
  });
  EXPECT_EQ(sent_at_once, 1u);  // three at once, the fourth waits for the timer
  EXPECT_EQ(sent_by_the_timer, 2u);  // not for the shutdown
  ASSERT_EQ(delegate_->batches.size(), 2u);
  EXPECT_EQ(delegate_->batches[0].ids, (std::vector<std::string>{"e0", "e1", "e2"}));
  EXPECT_EQ(delegate_->batches[1].ids, (std::vector<std::string>{"e3"}));
  EXPECT_GE(delegate_->batches[1].at - start, 500ms);
  EXPECT_TRUE(delegate_->shut_down);
}

TEST_F(AuditBackendsTest, ShutdownSendsWhatIsQueuedAndWaitsForWhatIsInFlight) {
  delegate_->delay = 100ms;
  with_buffered(unthrottled(400, 1h), [](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 5));
    co_await std::move(queuing);
  });
  ASSERT_EQ(delegate_->batches.size(), 1u);
  EXPECT_EQ(delegate_->batches[0].ids.size(), 5u);
  EXPECT_EQ(delegate_->concurrent, 0);  // the batch had finished when shutdown returned
  EXPECT_EQ(metrics_.audit_errors.value({"buffered"}), 0);
}

TEST_F(AuditBackendsTest, AFullBufferDropsWhatDoesNotFitAndCountsIt) {
  BatchConfig config = unthrottled(400, 1h);
  config.buffer_size = 3;
  with_buffered(config, [](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 5));
    const bool taken = co_await std::move(queuing);
    EXPECT_TRUE(taken);  // a buffered backend never fails the request
  });
  EXPECT_EQ(delegate_->events(), 3u);
  EXPECT_EQ(metrics_.audit_errors.value({"buffered"}), 2);
}

TEST_F(AuditBackendsTest, EventsAfterShutdownAreDroppedNotLost) {
  auto buffered = std::make_shared<BufferedBackend>(delegate_, unthrottled(1, 1h), PluginErrors(metrics_, logger_));
  run_sync([&]() -> asio::awaitable<void> {
    buffered->run(co_await asio::this_coro::executor);
    auto shutting_down = buffered->shutdown();
    co_await std::move(shutting_down);
    auto late = buffered->process_events(events("late", 1));
    co_await std::move(late);
  }());
  EXPECT_EQ(delegate_->events(), 0u);
  EXPECT_EQ(metrics_.audit_errors.value({"buffered"}), 1);
}

TEST_F(AuditBackendsTest, AnAsynchronousDelegateGetsBatchesConcurrentlyASynchronousOneInTurn) {
  delegate_->delay = 100ms;
  BatchConfig config = unthrottled(1, 0s);
  with_buffered(config, [](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 4));
    co_await std::move(queuing);
  });
  EXPECT_EQ(delegate_->events(), 4u);
  EXPECT_EQ(delegate_->most_concurrent, 4);

  delegate_ = std::make_shared<RecordingBackend>();
  delegate_->delay = 20ms;
  config.async_delegate = false;
  with_buffered(config, [](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 4));
    co_await std::move(queuing);
  });
  EXPECT_EQ(delegate_->events(), 4u);
  EXPECT_EQ(delegate_->most_concurrent, 1);
}

TEST_F(AuditBackendsTest, TheThrottleSpacesBatchesOnceItsBurstIsSpent) {
  BatchConfig config{.max_batch_size = 1, .max_batch_wait = 0s, .throttle_enable = true, .throttle_qps = 20,
                     .throttle_burst = 2};
  with_buffered(config, [](Backend& buffered) -> asio::awaitable<void> {
    auto queuing = buffered.process_events(events("e", 4));
    co_await std::move(queuing);
  });
  ASSERT_EQ(delegate_->batches.size(), 4u);
  // Two at once from the burst, then one every 50 ms.
  EXPECT_GE(delegate_->batches[2].at - delegate_->batches[0].at, 40ms);
  EXPECT_GE(delegate_->batches[3].at - delegate_->batches[0].at, 90ms);
}

TEST_F(AuditBackendsTest, TruncateStripsLargeEventsDropsThoseStillTooLargeAndSplitsBatches) {
  Event small = event("small");
  Event large = event("large", Level::RequestResponse);
  large.request_object = "{\"data\":\"" + std::string(2000, 'x') + "\"}";
  Event huge_metadata = event("huge");
  huge_metadata.request_uri = "/api/v1/namespaces/default/configmaps?labelSelector=" + std::string(2000, 'y');
  const auto size_of = [](const Event& e) { return static_cast<std::int64_t>(to_json(e).size()) + 1; };
  TruncateConfig config{.max_event_size = 1000, .max_batch_size = 3 * size_of(small)};
  TruncateBackend truncate(delegate_, config, PluginErrors(metrics_, logger_));
  const bool stored = run_sync(truncate.process_events({small, large, huge_metadata, small}));
  EXPECT_TRUE(stored);
  ASSERT_EQ(delegate_->batches.size(), 2u);  // the stripped large event is a little larger than a small one
  EXPECT_EQ(delegate_->batches[0].ids, (std::vector<std::string>{"small", "large"}));
  EXPECT_EQ(delegate_->batches[1].ids, (std::vector<std::string>{"small"}));
  EXPECT_EQ(metrics_.audit_errors.value({"truncate"}), 1);  // the event without a body to strip
}

TEST_F(AuditBackendsTest, TruncatedEventsLoseTheirObjectsAndSayWhy) {
  class Keeping final : public Backend {
   public:
    std::vector<Event> kept;
    asio::awaitable<bool> process_events(std::vector<Event> events) override {
      for (auto& e : events) kept.push_back(std::move(e));
      co_return true;
    }
    void run(asio::any_io_executor) override {}
    asio::awaitable<void> shutdown() override { co_return; }
    std::string name() const override { return "keeping"; }
  };
  auto keeping = std::make_shared<Keeping>();
  Event large = event("large", Level::Request);
  large.request_object = "{\"data\":\"" + std::string(2000, 'x') + "\"}";
  TruncateBackend truncate(keeping, {.max_event_size = 1000, .max_batch_size = 10000}, PluginErrors(metrics_, logger_));
  run_sync(truncate.process_events({large}));
  ASSERT_EQ(keeping->kept.size(), 1u);
  EXPECT_FALSE(keeping->kept[0].request_object);
  EXPECT_EQ(keeping->kept[0].annotations.at("audit.k8s.io/truncated"), "true");
  EXPECT_EQ(truncate.name(), "truncate<keeping>");
}

TEST_F(AuditBackendsTest, BlockingIgnoresFailuresStrictPassesThemOnAndAUnionNeedsEveryone) {
  delegate_->stores = false;
  IgnoreErrors blocking(delegate_);
  EXPECT_TRUE(run_sync(blocking.process_events(events("e", 1))));
  auto storing = std::make_shared<RecordingBackend>();
  UnionBackend both({storing, delegate_});
  EXPECT_FALSE(run_sync(both.process_events(events("u", 2))));
  EXPECT_EQ(storing->events(), 2u);  // every backend got the events
  EXPECT_EQ(delegate_->events(), 3u);
  EXPECT_EQ(both.name(), "union[recording,recording]");
}

TEST(AuditOptionsTest, ValidatesAsKube) {
  AuditOptions options;
  EXPECT_TRUE(validate(options).empty());  // no backend: nothing to check
  options.log.path = "/var/log/audit.log";
  options.log.batch.mode = "eventually";
  options.log.format = "xml";
  options.log.max_age_days = -1;
  EXPECT_EQ(validate(options), (std::vector<std::string>{
                                   "invalid audit log mode eventually, allowed modes are \"batch,blocking,blocking-strict\"",
                                   "invalid audit log format xml, allowed formats are \"legacy,json\"",
                                   "--audit-log-maxage -1 can't be a negative number"}));
  options = {};
  options.webhook.config_file = "/etc/audit-webhook.yaml";
  options.webhook.batch.config.throttle_qps = 0;
  options.webhook.truncate.config.max_batch_size = 10;
  options.webhook.version = "audit.k8s.io/v1beta1";
  EXPECT_EQ(validate(options), (std::vector<std::string>{
                                   "invalid audit batch webhook throttle QPS 0, must be a positive number",
                                   "invalid audit truncate webhook max batch size 10, must be greater than max event "
                                   "size (102400)",
                                   "invalid group version, allowed versions are [\"audit.k8s.io/v1\"]"}));
  options.webhook.batch.mode = "blocking";  // the batch options are not looked at outside batch mode
  options.webhook.truncate = {};
  options.webhook.version = "audit.k8s.io/v1";
  EXPECT_TRUE(validate(options).empty());
  options.webhook.batch = {"batch", {.buffer_size = 0}};
  EXPECT_EQ(validate(options),
            (std::vector<std::string>{"invalid audit batch webhook buffer size 0, must be a positive number"}));
}

}  // namespace
}  // namespace kapi::audit::backends_test

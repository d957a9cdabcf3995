// kube's token cache (cached_token_authenticator.go) and token union, with an inner authenticator that counts its
// calls and can be held: what is remembered and for how long (users, refusals, errors), the key (token and
// audiences), one shared call for concurrent lookups of a key, a waiter that gives up, the shared lookup's timeout,
// a crash, and the authentication_token_cache_* metrics.
#include "base/race.h"
#include "base/sleep.h"
#include "base/stop_signal.h"
#include "server/authentication/token_cache.h"
#include "server/authentication/token_union.h"
#include "tests/unit/support/recording_writer.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>

namespace kapi::authentication::token_cache_test {
namespace {

using namespace std::chrono_literals;
using Clock = TokenCacheOptions::Clock;
using kapi::test_support::run_sync;

// Answers by token: "user-<name>" is <name>, "refused" is refused, "error" fails; counts its calls by token and
// audiences; holds every call while `gate` is set and not yet requested.
class FakeTokens final : public TokenAuthenticator {
 public:
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override {
    ++calls;
    {
      std::lock_guard lock(mutex);
      std::string key(token);
      for (const auto& audience : audiences) key += "|" + audience;
      ++calls_by_key[key];
    }
    if (gate) {
      auto waiting = gate->wait();
      co_await std::move(waiting);
    }
    if (token == "crash") throw std::runtime_error("boom");
    if (token == "error") co_return Result::failed("the webhook is down");
    if (token.starts_with("user-")) {
      request::UserInfo user;
      user.name = std::string(token.substr(5));
      Result result = Result::authenticated(std::move(user));
      result.audiences = audiences;
      co_return result;
    }
    co_return Result::not_applicable();
  }

  int calls_for(const std::string& key) const {
    std::lock_guard lock(mutex);
    auto found = calls_by_key.find(key);
    return found == calls_by_key.end() ? 0 : found->second;
  }

  mutable std::atomic<int> calls{0};
  mutable std::mutex mutex;
  mutable std::map<std::string, int> calls_by_key;
  base::StopSignal* gate = nullptr;
};

class TokenCacheTest : public ::testing::Test {
 protected:
  std::shared_ptr<CachedTokenAuthenticator> cache(bool cache_errors, Clock::duration success, Clock::duration failure) {
    TokenCacheOptions options;
    options.cache_errors = cache_errors;
    options.success_ttl = success;
    options.failure_ttl = failure;
    options.metrics = &metrics_;
    options.now = [this] { return now_; };
    options.shared_lookup_timeout = shared_lookup_timeout_;
    return std::make_shared<CachedTokenAuthenticator>(inner_, std::move(options));
  }
  Result ask(const TokenAuthenticator& authenticator, std::string token, Audiences audiences = {}) {
    return run_sync(authenticator.authenticate_token(token, audiences));
  }

  std::shared_ptr<FakeTokens> inner_ = std::make_shared<FakeTokens>();
  metrics::AuthenticationFamilies metrics_;
  Clock::time_point now_ = Clock::now();
  Clock::duration shared_lookup_timeout_ = 30s;
};

TEST_F(TokenCacheTest, AUserFoundIsRememberedForTheSuccessTtlThenAskedForAgain) {
  auto union_cache = cache(true, 10s, 0s);  // kube-apiserver's cache of its token authenticators
  EXPECT_EQ(ask(*union_cache, "user-alice").user.name, "alice");
  now_ += 9s;
  Result cached = ask(*union_cache, "user-alice");
  EXPECT_EQ(cached.outcome, Result::Outcome::Authenticated);
  EXPECT_EQ(cached.user.name, "alice");
  EXPECT_EQ(inner_->calls, 1);
  now_ += 1s;  // expired at exactly the TTL, as utilcache.Expiring
  EXPECT_EQ(ask(*union_cache, "user-alice").user.name, "alice");
  EXPECT_EQ(inner_->calls, 2);

  // A failure TTL of 0: a refusal is asked about every time.
  EXPECT_EQ(ask(*union_cache, "refused").outcome, Result::Outcome::NotApplicable);
  EXPECT_EQ(ask(*union_cache, "refused").outcome, Result::Outcome::NotApplicable);
  EXPECT_EQ(inner_->calls_for("refused"), 2);
}

TEST_F(TokenCacheTest, ErrorsAreRememberedOnlyWhenTheCacheKeepsThem) {
  // The webhook's cache (cacheErrs false): a plain refusal is remembered, an error is not.
  auto webhook_cache = cache(false, 2min, 2min);
  EXPECT_EQ(ask(*webhook_cache, "refused").outcome, Result::Outcome::NotApplicable);
  EXPECT_EQ(ask(*webhook_cache, "refused").outcome, Result::Outcome::NotApplicable);
  EXPECT_EQ(inner_->calls_for("refused"), 1);
  Result error = ask(*webhook_cache, "error");
  EXPECT_EQ(error.outcome, Result::Outcome::Failed);
  EXPECT_EQ(error.error, "the webhook is down");
  EXPECT_EQ(ask(*webhook_cache, "error").outcome, Result::Outcome::Failed);
  EXPECT_EQ(inner_->calls_for("error"), 2);

  // cacheErrs true: an error is a refusal like any other, remembered for the failure TTL with its error.
  auto keeping = cache(true, 10s, 10s);
  EXPECT_EQ(ask(*keeping, "error").error, "the webhook is down");
  EXPECT_EQ(ask(*keeping, "error").error, "the webhook is down");
  EXPECT_EQ(inner_->calls_for("error"), 3);
}

TEST_F(TokenCacheTest, TheKeyIsTheTokenAndTheAudiences) {
  auto union_cache = cache(true, 10s, 0s);
  EXPECT_EQ(ask(*union_cache, "user-bob", {"a", "b"}).audiences, (Audiences{"a", "b"}));
  EXPECT_EQ(ask(*union_cache, "user-bob", {"ab"}).audiences, Audiences{"ab"});
  EXPECT_EQ(ask(*union_cache, "user-bob").audiences, Audiences{});
  EXPECT_EQ(inner_->calls, 3);
  EXPECT_EQ(ask(*union_cache, "user-bob", {"a", "b"}).audiences, (Audiences{"a", "b"}));
  EXPECT_EQ(inner_->calls, 3);
  // A refusal carries no user out of the cache, whatever the inner authenticator left in it.
  EXPECT_EQ(ask(*union_cache, "refused").user.name, "");
}

TEST_F(TokenCacheTest, ConcurrentLookupsOfOneKeyShareOneCall) {
  base::StopSignal gate;
  inner_->gate = &gate;
  auto union_cache = cache(true, 10s, 0s);
  const Audiences no_audiences;  // the lookups refer to it until they complete
  asio::io_context io;
  std::vector<Result> results(6);
  int done = 0;
  for (int i = 0; i < 6; ++i)
    asio::co_spawn(io, [&, i]() -> asio::awaitable<void> {
      auto asking = union_cache->authenticate_token(i < 5 ? "user-carol" : "user-dave", no_audiences);
      results[i] = co_await std::move(asking);
      ++done;
    }, asio::detached);
  io.poll();
  EXPECT_EQ(done, 0);
  EXPECT_EQ(inner_->calls, 2) << "one call per key, the other lookups waiting for it";
  EXPECT_EQ(metrics_.token_cache_active_fetches.value({"blocked"}), 6);
  EXPECT_EQ(metrics_.token_cache_active_fetches.value({"in_flight"}), 2);
  gate.request();
  io.run();
  EXPECT_EQ(done, 6);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(results[i].user.name, "carol");
  EXPECT_EQ(results[5].user.name, "dave");
  EXPECT_EQ(metrics_.token_cache_active_fetches.value({"blocked"}), 0);
  EXPECT_EQ(metrics_.token_cache_active_fetches.value({"in_flight"}), 0);
  EXPECT_EQ(metrics_.token_cache_requests.value({"miss"}), 6);
  EXPECT_EQ(metrics_.token_cache_fetches.value({"ok"}), 2);
  EXPECT_EQ(ask(*union_cache, "user-carol").user.name, "carol");
  EXPECT_EQ(metrics_.token_cache_requests.value({"hit"}), 1);
  EXPECT_EQ(metrics_.token_cache_request_duration.count({"hit"}), 1u);
  EXPECT_EQ(inner_->calls, 2);
}

TEST_F(TokenCacheTest, AWaiterThatGivesUpLeavesTheLookupToTheOthers) {
  base::StopSignal gate;
  inner_->gate = &gate;
  auto union_cache = cache(true, 10s, 0s);
  const Audiences no_audiences;  // the lookups refer to it until they complete
  asio::io_context io;
  int gave_up = -1;
  Result patient;
  // A request whose deadline comes first: its wait ends, the shared call does not.
  auto impatient = [&]() -> asio::awaitable<void> {
    auto asking = union_cache->authenticate_token("user-erin", no_audiences);
    co_await std::move(asking);
  };
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    auto racing = base::race(impatient(), base::sleep_for(20ms));
    gave_up = co_await std::move(racing);
    gate.request();
  }, asio::detached);
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    auto asking = union_cache->authenticate_token("user-erin", no_audiences);
    patient = co_await std::move(asking);
  }, asio::detached);
  io.run();
  EXPECT_EQ(gave_up, 1);
  EXPECT_EQ(patient.user.name, "erin");
  EXPECT_EQ(inner_->calls, 1);
  EXPECT_EQ(metrics_.token_cache_requests.value({"miss"}), 2);
  EXPECT_EQ(metrics_.token_cache_active_fetches.value({"blocked"}), 0);
}

TEST_F(TokenCacheTest, ASharedLookupEndsAfterItsTimeoutAndACrashIsAnInternalError) {
  base::StopSignal never;
  inner_->gate = &never;
  shared_lookup_timeout_ = 50ms;
  auto union_cache = cache(true, 10s, 0s);
  Result late = ask(*union_cache, "user-frank");
  EXPECT_EQ(late.outcome, Result::Outcome::Failed);
  EXPECT_EQ(late.error, "context deadline exceeded");
  EXPECT_EQ(metrics_.token_cache_fetches.value({"error"}), 1);

  inner_->gate = nullptr;
  Result crashed = ask(*union_cache, "crash");
  EXPECT_EQ(crashed.outcome, Result::Outcome::Failed);
  EXPECT_EQ(crashed.error, "Internal error occurred: authentication failed unexpectedly");
}

TEST(TokenUnionTest, TheFirstUserWinsAndEveryErrorIsReportedOnce) {
  class Fixed final : public TokenAuthenticator {
   public:
    explicit Fixed(Result result) : result_(std::move(result)) {}
    asio::awaitable<Result> authenticate_token(std::string_view, const Audiences&) const override { co_return result_; }

   private:
    Result result_;
  };
  request::UserInfo user;
  user.name = "grace";
  auto a = std::make_shared<Fixed>(Result::failed("a failed"));
  auto b = std::make_shared<Fixed>(Result::not_applicable());
  auto c = std::make_shared<Fixed>(Result::failed("c failed"));
  auto found = std::make_shared<Fixed>(Result::authenticated(user));
  EXPECT_EQ(run_sync(TokenUnion({a, b, found, c}).authenticate_token("t", {})).user.name, "grace");
  EXPECT_EQ(run_sync(TokenUnion({a, b, c}).authenticate_token("t", {})).error, "[a failed, c failed]");
  EXPECT_EQ(run_sync(TokenUnion({a, b, a}).authenticate_token("t", {})).error, "a failed");
  EXPECT_EQ(run_sync(TokenUnion({b, b}).authenticate_token("t", {})).outcome, Result::Outcome::NotApplicable);
}

}  // namespace
}  // namespace kapi::authentication::token_cache_test

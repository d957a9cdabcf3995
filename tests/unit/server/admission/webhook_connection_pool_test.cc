// The keep-alive connection pool the admission webhooks call through (server/proxy/connection_pool.h), against a
// kapi HttpServer serving TLS on loopback: connections reused, an idle connection the server closed replaced, the
// keep-alive race retried once and only then, the server's "Connection: close" honoured, the idle bound and idle
// timeout, TLS contexts kept apart, timeouts discarding the connection, and requests from many threads at once.
#include "server/http/http_server.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "server/proxy/connection_pool.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/thread_pool.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>

#include <atomic>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace kapi::proxy::webhook_connection_pool_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class WebhookConnectionPoolTest : public ::testing::Test {
 protected:
  WebhookConnectionPoolTest() {
    pki::EvpPkeyPtr ca_key = pki::generate_ecdsa_p256_key();
    pki::X509Ptr ca = pki::self_sign_certificate_authority(
        {"pool-ca", {}, pki::CertificateUsage::certificate_authority, 365, {}}, ca_key.get());
    pki::EvpPkeyPtr key = pki::generate_ecdsa_p256_key();
    pki::X509Ptr cert = pki::issue_certificate(
        {"pool", {}, pki::CertificateUsage::server_auth, 365, {{pki::SubjectAltName::Kind::ip, "127.0.0.1"}}},
        key.get(), {ca.get(), ca_key.get()});
    ca_pem_ = pki::certificate_to_pem(ca.get());
    tls_ = make_backend_tls(ca_pem_, false, {}, {});
    std::ofstream(dir_.path() / "tls.crt") << pki::certificate_to_pem(cert.get());
    std::ofstream(dir_.path() / "tls.key") << pki::private_key_to_pem(key.get());
    server_ = std::make_unique<http::HttpServer>(
        io_.context(), http::ConnectionOptions{},
        [this](http::Request& request, http::ResponseWriter& response) { return serve(request, response); });
    port_ = server_->listen({asio::ip::make_address("127.0.0.1"), 0},
                           http::make_server_tls_context({dir_.path() / "tls.crt", dir_.path() / "tls.key", {}, {}}))
                .port();
    server_->start();
  }

  ~WebhookConnectionPoolTest() override {
    server_->stop_accepting();
    server_->connections().close_all_when_idle();
    io_.run(until_server_has_no_connections());
  }

  // The server closes its idle connections asynchronously, on their strands: wait (bounded) until it has.
  asio::awaitable<void> until_server_has_no_connections() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (auto give_up = Clock::now() + 5s; server_->connections().size() > 0 && Clock::now() < give_up;) {
      timer.expires_after(2ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  asio::awaitable<void> serve(http::Request& request, http::ResponseWriter& response) {
    const std::string action(request.headers.get("X-Action").value_or(""));
    {
      std::lock_guard lock(mutex_);
      peers_.push_back(request.remote_address);
    }
    if (action == "drop-once" && !dropped_.exchange(true)) {
      // Closes the connection without a byte of response (the connection ends when a handler throws).
      throw std::runtime_error("dropped");
    }
    if (action == "drop") throw std::runtime_error("dropped");
    if (action == "close") {
      // Shutdown's drain makes this response the connection's last ("Connection: close"); the post lets the
      // drain, queued on this connection's strand, run before the response is written.
      server_->connections().close_all_when_idle();
      co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    }
    if (action == "slow") {
      asio::steady_timer timer(co_await asio::this_coro::executor, 3s);
      co_await timer.async_wait(asio::use_awaitable);
    }
    if (action == "wait-for-two") {
      ++waiting_;
      asio::steady_timer timer(co_await asio::this_coro::executor);
      for (auto give_up = Clock::now() + 5s; waiting_.load() < 2 && Clock::now() < give_up;) {
        timer.expires_after(1ms);
        co_await timer.async_wait(asio::use_awaitable);
      }
    }
    response.headers().set("Content-Type", "application/json");
    co_await response.write(200, "{\"path\":\"" + request.path + "\"}");
  }

  Backend backend(std::shared_ptr<asio::ssl::context> tls = nullptr) {
    Backend out;
    out.host = "127.0.0.1";
    out.port = static_cast<std::uint16_t>(port_);
    out.server_name = "127.0.0.1";
    out.tls = tls ? std::move(tls) : tls_;
    return out;
  }

  BackendRequest request(std::string action = {}) {
    BackendRequest out{"POST", "/review", {}, "{}"};
    out.headers.set("Content-Type", "application/json");
    if (!action.empty()) out.headers.set("X-Action", action);
    return out;
  }

  BackendResponse exchange(ConnectionPool& pool, BackendRequest sent, std::chrono::milliseconds timeout = 10s,
                           std::shared_ptr<asio::ssl::context> tls = nullptr) {
    return io_.run(pool.exchange(backend(std::move(tls)), std::move(sent), Clock::now() + timeout));
  }

  std::vector<std::string> peers() {
    std::lock_guard lock(mutex_);
    return peers_;
  }

  test_support::TempDir dir_{"kapi-webhook-pool-test"};
  test_support::IoThread io_;
  std::unique_ptr<http::HttpServer> server_;
  int port_ = 0;
  std::string ca_pem_;
  std::shared_ptr<asio::ssl::context> tls_;
  std::mutex mutex_;
  std::vector<std::string> peers_;  // the client address of each request the server received
  std::atomic<bool> dropped_{false};
  std::atomic<int> waiting_{0};
};

TEST_F(WebhookConnectionPoolTest, ASecondRequestReusesTheFirstsConnection) {
  ConnectionPool pool;
  BackendResponse first = exchange(pool, request());
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "{\"path\":\"/review\"}");
  EXPECT_EQ(pool.idle_count(backend()), 1u);
  BackendResponse second = exchange(pool, request());
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "{\"path\":\"/review\"}");
  auto counters = pool.counters();
  EXPECT_EQ(counters.dialed, 1u);
  EXPECT_EQ(counters.reused, 1u);
  EXPECT_EQ(counters.retried, 0u);
  ASSERT_EQ(peers().size(), 2u);
  EXPECT_EQ(peers()[0], peers()[1]);  // the same client port: the same connection
  EXPECT_EQ(pool.idle_count(backend()), 1u);
}

TEST_F(WebhookConnectionPoolTest, AnIdleConnectionTheServerClosedIsReplaced) {
  ConnectionPool pool;
  exchange(pool, request());
  server_->connections().close_all_when_idle();
  io_.run(until_server_has_no_connections());
  ASSERT_EQ(server_->connections().size(), 0u);
  BackendResponse response = exchange(pool, request());
  EXPECT_EQ(response.status, 200);
  auto counters = pool.counters();
  EXPECT_EQ(counters.stale, 1u);
  EXPECT_EQ(counters.dialed, 2u);
  EXPECT_EQ(counters.reused, 0u);
  EXPECT_EQ(counters.retried, 0u);
  ASSERT_EQ(peers().size(), 2u);  // the request was sent once
  EXPECT_NE(peers()[0], peers()[1]);
}

TEST_F(WebhookConnectionPoolTest, AReusedConnectionClosedBeforeAnyResponseByteIsRetriedOnceOnANewOne) {
  ConnectionPool pool;
  exchange(pool, request());
  // The server takes the request on the kept connection and closes it without answering: the keep-alive race.
  BackendResponse response = exchange(pool, request("drop-once"));
  EXPECT_EQ(response.status, 200);
  auto counters = pool.counters();
  EXPECT_EQ(counters.reused, 1u);
  EXPECT_EQ(counters.retried, 1u);
  EXPECT_EQ(counters.dialed, 2u);
  ASSERT_EQ(peers().size(), 3u);
  EXPECT_EQ(peers()[0], peers()[1]);
  EXPECT_NE(peers()[1], peers()[2]);
}

TEST_F(WebhookConnectionPoolTest, ANewConnectionsFailureIsNeverRetried) {
  ConnectionPool pool;
  EXPECT_THROW(exchange(pool, request("drop")), std::system_error);
  EXPECT_EQ(peers().size(), 1u);
  EXPECT_EQ(pool.counters().retried, 0u);
  EXPECT_EQ(pool.idle_count(backend()), 0u);
}

TEST_F(WebhookConnectionPoolTest, TheRetryHappensOnlyOnce) {
  ConnectionPool pool;
  exchange(pool, request());
  // Dropped on the reused connection, then on the new one: the second failure is the answer.
  EXPECT_THROW(exchange(pool, request("drop")), std::system_error);
  EXPECT_EQ(peers().size(), 3u);
  EXPECT_EQ(pool.counters().retried, 1u);
  EXPECT_EQ(pool.idle_count(backend()), 0u);
}

TEST_F(WebhookConnectionPoolTest, TheServersConnectionCloseIsHonoured) {
  ConnectionPool pool;
  BackendResponse response = exchange(pool, request("close"));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.get("Connection").value_or(""), "close");
  EXPECT_EQ(pool.idle_count(backend()), 0u);
  exchange(pool, request());
  EXPECT_EQ(pool.counters().dialed, 2u);
  EXPECT_EQ(pool.counters().reused, 0u);
}

TEST_F(WebhookConnectionPoolTest, ATimedOutConnectionIsDiscarded) {
  ConnectionPool pool;
  try {
    exchange(pool, request("slow"), 200ms);
    ADD_FAILURE() << "the exchange outlived its deadline";
  } catch (const std::system_error& error) {
    EXPECT_STREQ(error.what(), "context deadline exceeded");
  }
  EXPECT_EQ(pool.idle_count(backend()), 0u);
  EXPECT_EQ(pool.counters().retried, 0u);
  exchange(pool, request());
  EXPECT_EQ(pool.counters().dialed, 2u);
}

TEST_F(WebhookConnectionPoolTest, IdleConnectionsAreBoundedPerTarget) {
  ConnectionPoolLimits limits;
  limits.max_idle_per_target = 1;
  ConnectionPool pool(limits);
  // Two requests at once need two connections; only one stays.
  auto one = asio::co_spawn(io_.context(), pool.exchange(backend(), request("wait-for-two"), Clock::now() + 10s),
                            asio::use_future);
  auto two = asio::co_spawn(io_.context(), pool.exchange(backend(), request("wait-for-two"), Clock::now() + 10s),
                            asio::use_future);
  ASSERT_EQ(one.wait_for(20s), std::future_status::ready);
  ASSERT_EQ(two.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(one.get().status, 200);
  EXPECT_EQ(two.get().status, 200);
  EXPECT_EQ(pool.counters().dialed, 2u);
  EXPECT_EQ(pool.idle_count(backend()), 1u);
}

TEST_F(WebhookConnectionPoolTest, ConnectionsIdleLongerThanTheIdleTimeoutAreNotReused) {
  ConnectionPoolLimits limits;
  limits.idle_timeout = 0ms;
  ConnectionPool pool(limits);
  exchange(pool, request());
  exchange(pool, request());
  EXPECT_EQ(pool.counters().dialed, 2u);
  EXPECT_EQ(pool.counters().reused, 0u);
}

TEST_F(WebhookConnectionPoolTest, DifferentTlsContextsDoNotShareConnections) {
  ConnectionPool pool;
  auto other = make_backend_tls(ca_pem_, false, {}, {});  // another caBundle's context, if only by identity
  exchange(pool, request());
  exchange(pool, request(), 10s, other);
  EXPECT_EQ(pool.counters().dialed, 2u);
  EXPECT_EQ(pool.idle_count(backend()), 1u);
  EXPECT_EQ(pool.idle_count(backend(other)), 1u);
}

TEST_F(WebhookConnectionPoolTest, RequestsFromManyThreadsEachHaveAConnectionToThemselves) {
  asio::thread_pool threads(4);
  ConnectionPool pool;  // gone before the threads join: its idle connections' timers are their work
  constexpr int kRequests = 64;
  std::vector<std::future<BackendResponse>> responses;
  for (int i = 0; i < kRequests; ++i)
    responses.push_back(asio::co_spawn(threads, pool.exchange(backend(), request(), Clock::now() + 20s),
                                       asio::use_future));
  for (auto& response : responses) {
    ASSERT_EQ(response.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(response.get().status, 200);
  }
  auto counters = pool.counters();
  EXPECT_EQ(counters.dialed + counters.reused, static_cast<std::uint64_t>(kRequests));
  EXPECT_EQ(counters.retried, 0u);
  EXPECT_EQ(peers().size(), static_cast<std::size_t>(kRequests));
  // A second round finds the connections idle.
  for (int i = 0; i < 8; ++i) {
    auto again = asio::co_spawn(threads, pool.exchange(backend(), request(), Clock::now() + 20s), asio::use_future);
    ASSERT_EQ(again.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(again.get().status, 200);
  }
  EXPECT_EQ(pool.counters().dialed, counters.dialed);
}

}  // namespace
}  // namespace kapi::proxy::webhook_connection_pool_test

// Graceful shutdown on SIGTERM, as kube-apiserver's lifecycle signals order it: /readyz fails at once, requests
// are still served during --shutdown-delay-duration, then the listener closes, in-flight requests finish,
// long-running ones are ended cleanly, and the process exits 0.
#include "tests/integration/kapi_suite.h"

#include <signal.h>

#include <thread>

namespace kapi::integration::shutdown_test {
namespace {

using namespace std::chrono_literals;

// Each test shuts its own kapi down, so none is shared.
class ShutdownTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KapiOptions options;
    options.extra_flags = {"--shutdown-delay-duration=1s"};
    kapi_ = std::make_unique<KapiProcess>(options);
  }
  void TearDown() override {
    if (!kapi_) return;
    kapi_->shut_down(std::chrono::seconds(20));  // in case the test ended before it did
    EXPECT_EQ(kapi_->sanitizer_reports(), "");
    if (HasFailure()) std::cerr << kapi_->logs();
  }

  // Polls until a new connection is refused; false when one was still accepted after `bound`.
  bool new_connections_refused_within(std::chrono::milliseconds bound) {
    auto give_up = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < give_up) {
      try {
        HttpConnection probe(kapi_->port(), std::nullopt, 1s);
      } catch (const std::system_error& error) {
        if (error.code() == std::errc::connection_refused) return true;
      } catch (const std::exception&) {
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  std::unique_ptr<KapiProcess> kapi_;
};

TEST_F(ShutdownTest, DrainsInFlightRequestsEndsStreamsAndExitsZero) {
  HttpConnection stream = kapi_->connect_admin();
  stream.send("GET /debug/kapi/stream HTTP/1.1\r\nHost: kapi\r\n\r\n");
  HttpResponse stream_head = stream.read_head();
  ASSERT_EQ(stream_head.status, 200);
  ASSERT_TRUE(stream_head.chunked());
  EXPECT_EQ(stream.read_chunk(), "tick 0\n");

  HttpConnection readiness = kapi_->connect_admin();
  ASSERT_EQ(readiness.request("GET", "/readyz").status, 200);

  HttpConnection sleeper = kapi_->connect_admin();
  sleeper.send("GET /debug/kapi/sleep?duration=2s HTTP/1.1\r\nHost: kapi\r\n\r\n");
  std::this_thread::sleep_for(100ms);  // let the sleep begin before the signal
  auto signalled = std::chrono::steady_clock::now();
  kapi_->terminate();

  // During the shutdown delay /readyz fails while everything is still served, new connections included.
  HttpResponse not_ready;
  for (auto give_up = signalled + 900ms; std::chrono::steady_clock::now() < give_up;) {
    not_ready = readiness.request("GET", "/readyz?verbose");
    if (not_ready.status != 200) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(not_ready.status, 500) << not_ready.body;
  EXPECT_NE(not_ready.body.find("[-]shutdown failed"), std::string::npos) << not_ready.body;
  EXPECT_LT(seconds_since(signalled), 0.9) << "the delay must leave time to notice /readyz failing";
  EXPECT_EQ(kapi_->connect_admin().request("GET", "/healthz").status, 200);

  // After the delay the listener closes while the sleep is still in flight.
  EXPECT_TRUE(new_connections_refused_within(5s));
  EXPECT_GE(seconds_since(signalled), 0.9) << "connections refused before the shutdown delay was over";
  EXPECT_FALSE(kapi_->wait_for_exit(0ms).has_value()) << "exited with a request still in flight";

  HttpResponse slept = sleeper.read_response("GET", 10s);
  EXPECT_EQ(slept.status, 200);
  EXPECT_EQ(slept.body, "slept\n");
  EXPECT_TRUE(slept.closes_connection());
  EXPECT_TRUE(sleeper.wait_for_close(5s));

  // The stream ends cleanly: the last line, then the terminating zero-size chunk.
  std::string last_chunk;
  std::optional<std::string> chunk;
  while ((chunk = stream.read_chunk(10s))) last_chunk = *chunk;
  EXPECT_EQ(last_chunk, "ended\n");
  EXPECT_TRUE(stream.wait_for_close(5s));

  EXPECT_EQ(kapi_->wait_for_exit(15s), 0);
}

TEST_F(ShutdownTest, IdleServerExitsZeroSoonAfterTheDelay) {
  HttpConnection idle = kapi_->connect_admin();
  ASSERT_EQ(idle.request("GET", "/healthz").status, 200);
  auto signalled = std::chrono::steady_clock::now();
  kapi_->terminate();
  EXPECT_EQ(kapi_->wait_for_exit(10s), 0);
  double elapsed = seconds_since(signalled);
  EXPECT_GE(elapsed, 0.9) << "exited before the shutdown delay";
  EXPECT_LT(elapsed, 5.0);
  EXPECT_TRUE(idle.wait_for_close(1s)) << "the idle keep-alive connection was not closed";
}

TEST_F(ShutdownTest, SigintShutsDownLikeSigterm) {
  kapi_->send_signal(SIGINT);
  EXPECT_EQ(kapi_->wait_for_exit(10s), 0);
}

}  // namespace
}  // namespace kapi::integration::shutdown_test

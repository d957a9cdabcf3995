// Slow and idle clients cannot hold connections forever: the read-header timeout covers a half-sent request and
// a TLS handshake that never happens, the idle timeout a keep-alive connection nobody uses. kapi runs with short
// (hidden) timeouts here so the test takes seconds, not Go's 32 s and 90 s.
#include "tests/integration/kapi_suite.h"

#include <thread>

namespace kapi::integration::slow_client_test {
namespace {

using namespace std::chrono_literals;

class SlowClientTest : public KapiSuite<SlowClientTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--read-header-timeout=1s", "--idle-timeout=2s", "-v=3"};
    return options;
  }

 protected:
  static std::string watch_request(std::string_view query) {
    return "GET /api/v1/namespaces/default/configmaps?watch=true&" + std::string(query) +
           " HTTP/1.1\r\nHost: kapi\r\n\r\n";
  }
};

TEST_F(SlowClientTest, HalfSentHeaderIsDisconnectedAfterTheReadHeaderTimeout) {
  HttpConnection connection = kapi().connect_admin();
  auto start = std::chrono::steady_clock::now();
  connection.send("GET /version HTTP/1.1\r\nHost: kapi\r\nUser-Agent: sl");
  EXPECT_TRUE(connection.wait_for_close(6s)) << "still open after 6 s";
  double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, 0.8);
  EXPECT_LT(elapsed, 4.0);
}

TEST_F(SlowClientTest, HeaderTrickledWithinTheTimeoutIsServed) {
  HttpConnection connection = kapi().connect_admin();
  for (std::string_view piece : {"GET /healthz HTT", "P/1.1\r\nHost: ka", "pi\r\n", "\r\n"}) {
    connection.send(piece);
    std::this_thread::sleep_for(150ms);
  }
  HttpResponse response = connection.read_response();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ok");
}

TEST_F(SlowClientTest, IdleKeepAliveConnectionIsClosedAfterTheIdleTimeout) {
  HttpConnection connection = kapi().connect_admin();
  ASSERT_EQ(connection.request("GET", "/healthz").status, 200);
  auto idle_since = std::chrono::steady_clock::now();
  EXPECT_TRUE(connection.wait_for_close(8s)) << "idle connection still open after 8 s";
  double elapsed = seconds_since(idle_since);
  EXPECT_GE(elapsed, 1.5) << "closed before the idle timeout";
  EXPECT_LT(elapsed, 5.0);
}

TEST_F(SlowClientTest, ConnectionInUseOutlivesTheIdleTimeout) {
  HttpConnection connection = kapi().connect_admin();
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(connection.request("GET", "/healthz").status, 200) << "request " << i;
    std::this_thread::sleep_for(800ms);  // 3.2 s in all, longer than the idle timeout, never idle for 2 s
  }
  EXPECT_FALSE(connection.closed_by_peer());
}

TEST_F(SlowClientTest, TlsClientThatNeverHandshakesIsDropped) {
  auto start = std::chrono::steady_clock::now();
  HttpConnection raw_tcp(kapi().port());  // no TLS: the server waits for a ClientHello that never comes
  EXPECT_TRUE(raw_tcp.wait_for_close(6s)) << "still open after 6 s";
  double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, 0.8);
  EXPECT_LT(elapsed, 4.0);
  EXPECT_EQ(kapi().connect_admin().request("GET", "/healthz").status, 200);
}

// Go's server reads in the background while a handler runs and cancels the request's context when the client
// closes: a watch over HTTP/1.1 ends with its connection, not at its next event or its timeout (30 to 60 min).
TEST_F(SlowClientTest, AWatchEndsWhenItsClientCloses) {
  constexpr std::size_t kWatches = 20;
  std::vector<HttpConnection> connections;
  for (std::size_t i = 0; i < kWatches; ++i) {
    connections.push_back(kapi().connect_admin());
    connections.back().send(watch_request("fieldSelector=metadata.name%3Dclosed-watch-" + std::to_string(i)));
    ASSERT_EQ(connections.back().read_head().status, 200) << "watch " << i;
  }
  EXPECT_EQ(kapi().occurrences_in_output("closed-watch-"), 0u) << "a watch ended before its client closed";
  connections.clear();
  EXPECT_TRUE(eventually([&] { return kapi().occurrences_in_output("closed-watch-") == kWatches; }, 5s))
      << kapi().occurrences_in_output("closed-watch-") << " of " << kWatches << " watches ended";
  EXPECT_EQ(kapi().connect_admin().request("GET", "/healthz").status, 200);
}

// The background read must not take what the client sends next on the connection: after a watch that ends by its
// timeout the connection serves the next request, and a request sent while the watch runs (pipelined) is answered
// once the watch ends.
TEST_F(SlowClientTest, AConnectionGoesOnAfterAWatch) {
  HttpConnection connection = kapi().connect_admin();
  connection.send(watch_request("fieldSelector=metadata.name%3Dno-such-object&timeoutSeconds=1"));
  HttpResponse watch = connection.read_head();
  ASSERT_EQ(watch.status, 200);
  connection.read_body(watch);
  HttpResponse next = connection.request("GET", "/healthz");
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ok");

  connection.send(watch_request("fieldSelector=metadata.name%3Dno-such-object&timeoutSeconds=1"));
  watch = connection.read_head();
  ASSERT_EQ(watch.status, 200);
  connection.send("GET /healthz HTTP/1.1\r\nHost: kapi\r\n\r\n");
  connection.read_body(watch);
  next = connection.read_response();
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ok");
  EXPECT_FALSE(connection.closed_by_peer());
}

// An answer that outlasts the read-header timeout (a 3 s watch here) still leaves the connection to the idle
// timeout afterwards: the watchdog used to wake during the answer, find no deadline, and never look again, so
// the connection stayed open for good.
TEST_F(SlowClientTest, AConnectionIdleAfterALongAnswerIsClosedAfterTheIdleTimeout) {
  HttpConnection connection = kapi().connect_admin();
  connection.send(watch_request("fieldSelector=metadata.name%3Dno-such-object&timeoutSeconds=3"));
  HttpResponse watch = connection.read_head();
  ASSERT_EQ(watch.status, 200);
  connection.read_body(watch);
  const auto idle_since = std::chrono::steady_clock::now();
  EXPECT_TRUE(connection.wait_for_close(6s));
  EXPECT_GT(seconds_since(idle_since), 1.5);  // the idle timeout (2 s), not at once
}

}  // namespace
}  // namespace kapi::integration::slow_client_test

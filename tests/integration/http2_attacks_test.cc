// The HTTP/2 attack classes against kapi's secure port, each sent frame by frame: the attacker's connection is
// cut (GOAWAY or close) or its stream refused, within bounded time and memory, and other clients are served
// meanwhile. kapi runs with a short write-stall timeout (a hidden flag) so that the stall tests take seconds.
#include "tests/integration/attack_support.h"
#include "tests/integration/kapi_suite.h"

#include "tests/support/h2_client.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

namespace kapi::integration::http2_attacks_test {
namespace {

using namespace std::chrono_literals;
namespace h2 = test_support::h2;
using h2::FrameType;

constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

// Sends `attack` in pieces until the server stops reading or closes (which loopback's large socket buffers may
// hide until the end).
void send_until_cut(h2::Client& client, const std::string& attack, std::size_t piece = 64 * 1024) {
  try {
    for (std::size_t at = 0; at < attack.size(); at += piece) client.send(std::string_view(attack).substr(at, piece));
  } catch (const std::exception&) {
  }
}

// The connection ends: GOAWAY (whose error code is returned) or a plain close (-1); -2 when it went on.
long connection_end(h2::Client& client, std::chrono::milliseconds bound = 10s) {
  try {
    auto goaway = client.read_until_goaway(bound);
    return goaway ? static_cast<long>(goaway->error_code()) : -1;
  } catch (const test_support::ReadTimeout&) {
    ADD_FAILURE() << "the attacker's connection was neither cut nor closed within " << bound.count() << " ms";
    return -2;
  } catch (const std::exception&) {
    return -1;  // reset by the server
  }
}

class Http2AttackTest : public KapiSuite<Http2AttackTest> {
 public:
  static KapiOptions kapi_options() {
    return KapiOptions{.extra_flags = {"--write-stall-timeout=2s", "-v=3"}};
  }

 protected:
  h2::Client attacker(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& settings = {}) {
    return h2::Client(kapi().port(), kapi().admin_tls(), settings);
  }
  // A well-behaved HTTP/2 client's GET on a new connection.
  int fresh_h2_get(std::string_view path) {
    h2::Client client = attacker();
    return client.read_response(client.get(path)).first;
  }
};

// CVE-2023-44487: streams opened and reset at once, by the thousand. nghttp2's token bucket (1000 resets, then 33
// a second) ends the connection with GOAWAY; a stream reset before its handler started never runs one.
TEST_F(Http2AttackTest, RapidResetIsCutOffWhileOtherClientsAreServed) {
  const long rss_before = resident_kib(kapi().pid());
  ServedMeanwhile others(kapi());
  h2::Client client = attacker();
  std::string attack;
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t stream = client.take_stream();
    attack += h2::frame(FrameType::Headers, h2::flags::kEndStream | h2::flags::kEndHeaders, stream,
                        h2::request_block("GET", std::string(kConfigMaps) + "?limit=1&rapid-reset"));
    attack += h2::rst_stream(stream);
  }
  const auto start = std::chrono::steady_clock::now();
  send_until_cut(client, attack);
  EXPECT_EQ(connection_end(client), static_cast<long>(h2::kInternalError));  // nghttp2's token bucket
  EXPECT_LT(seconds_since(start), 10.0);
  others.stop();

  EXPECT_EQ(others.failures(), 0);
  EXPECT_LT(others.slowest(), 2.0) << others.answers() << " answers";
  EXPECT_EQ(fresh_h2_get("/api/v1/namespaces/default"), 200);
  if (!address_sanitized(kapi().pid())) {
    EXPECT_LT(resident_kib(kapi().pid()) - rss_before, 64 * 1024) << "KiB more after the attack";
  }
  // Only a request whose reset came in a later TLS record (a later read) than itself reaches a handler.
  const std::size_t handled = kapi().occurrences_in_output("rapid-reset\"");
  EXPECT_LT(handled, 100u);
  std::cout << "[ rapid reset ] " << handled << " handlers ran; slowest other answer " << others.slowest() << " s of "
            << others.answers() << "\n";
}

// A watch whose stream the client resets ends then, not at its next event or its timeout.
TEST_F(Http2AttackTest, AResetWatchEndsAtOnce) {
  h2::Client client = attacker();
  std::vector<std::uint32_t> watches;
  for (int i = 0; i < 200; ++i)
    watches.push_back(client.get(std::string(kConfigMaps) + "?watch=true&fieldSelector=metadata.name%3Dreset-watch-" +
                                 std::to_string(i)));
  std::size_t answered = 0;
  while (answered < watches.size()) {
    h2::Frame frame = client.read();
    if (frame.type == FrameType::Headers) ++answered;
  }
  std::string resets;
  for (std::uint32_t stream : watches) resets += h2::rst_stream(stream);
  client.send(resets);
  EXPECT_TRUE(eventually([&] { return kapi().occurrences_in_output("reset-watch-") == watches.size(); }, 5s))
      << kapi().occurrences_in_output("reset-watch-") << " of " << watches.size() << " watches ended";
  // The connection goes on.
  EXPECT_EQ(client.read_response(client.get("/api/v1/namespaces/default")).first, 200);
}

// CVE-2024-27316 and CVE-2024-28182: a header block continued forever. nghttp2 accepts 8 CONTINUATIONs.
TEST_F(Http2AttackTest, ContinuationFloodIsCutOff) {
  h2::Client client = attacker();
  const std::uint32_t stream = client.take_stream();
  std::string attack = h2::frame(FrameType::Headers, h2::flags::kEndStream, stream, h2::request_block("GET", "/version"));
  for (int i = 0; i < 100000; ++i)
    attack += h2::frame(FrameType::Continuation, 0, stream, h2::literal("x-flood", std::to_string(i)));
  const auto start = std::chrono::steady_clock::now();
  send_until_cut(client, attack);
  EXPECT_EQ(connection_end(client), -1);  // closed: nghttp2 stops at the 9th CONTINUATION
  EXPECT_LT(seconds_since(start), 10.0);
  EXPECT_EQ(fresh_h2_get("/version"), 200);
}

// CVE-2019-9515 and -9512: SETTINGS or PINGs whose acknowledgements the client never reads.
TEST_F(Http2AttackTest, SettingsAndPingFloodsAreCutOff) {
  for (const std::string& flood_frame : {h2::settings(), h2::ping()}) {
    ServedMeanwhile others(kapi());
    h2::Client client = attacker();
    std::string attack;
    for (int i = 0; i < 200000; ++i) attack += flood_frame;
    const auto start = std::chrono::steady_clock::now();
    send_until_cut(client, attack);
    EXPECT_EQ(connection_end(client), -1);  // closed: the acknowledgements cannot be delivered
    EXPECT_LT(seconds_since(start), 10.0);
    others.stop();
    EXPECT_EQ(others.failures(), 0);
    EXPECT_LT(others.slowest(), 2.0);
  }
}

// An HPACK bomb: one 4000-byte field in the dynamic table, then referenced 16,000 times (64 MB of headers from
// 20 KB). The list is over the limit after a few hundred; the request gets Go's 431, the connection goes on.
TEST_F(Http2AttackTest, HpackBombIsAnswered431) {
  h2::Client client = attacker();
  std::uint32_t stream = client.take_stream();
  std::string block = h2::request_block("GET", "/version") + h2::literal_indexed("x-bomb", std::string(4000, 'b'));
  for (int i = 0; i < 16000; ++i) block += h2::indexed(62);  // the newest dynamic entry
  // After the server's SETTINGS (frames of up to 1 MiB) have been read and acknowledged.
  while (client.read().type != FrameType::Settings) {
  }
  client.send(h2::frame(FrameType::Headers, h2::flags::kEndStream | h2::flags::kEndHeaders, stream, block));
  const auto start = std::chrono::steady_clock::now();
  auto [status, body] = client.read_response(stream);
  EXPECT_EQ(status, 431);
  EXPECT_EQ(body, "<h1>HTTP Error 431</h1><p>Request Header Field(s) Too Large</p>");
  EXPECT_LT(seconds_since(start), 2.0);
  // HPACK's state survived: the table entry is still there for the next request.
  stream = client.take_stream();
  client.send(h2::frame(FrameType::Headers, h2::flags::kEndStream | h2::flags::kEndHeaders, stream,
                        h2::request_block("GET", "/version") + h2::indexed(62)));
  EXPECT_EQ(client.read_response(stream).first, 200);
}

// A client that never opens its window: the stream is reset after the write-stall timeout, and its handler and
// response are freed.
TEST_F(Http2AttackTest, ZeroWindowStreamIsResetAfterTheStallTimeout) {
  h2::Client client = attacker({{h2::kInitialWindowSize, 0}});
  client.open_windows_as_read(false);
  const std::uint32_t stream = client.get("/api/v1/namespaces/kube-system/configmaps");
  const auto start = std::chrono::steady_clock::now();
  auto [status, body] = client.read_response(stream, 10s);
  EXPECT_EQ(status, 0) << "the stream was answered: " << body;
  EXPECT_TRUE(body.empty());
  EXPECT_GE(seconds_since(start), 1.5);
  EXPECT_LT(seconds_since(start), 6.0);
}

// A client that reads nothing at all from its connection, with windows wide open: the connection is closed once
// a write has waited for the stall timeout.
TEST_F(Http2AttackTest, ClientThatReadsNothingIsDisconnected) {
  HttpConnection admin = kapi().connect_admin();
  admin.request("POST", "/api/v1/namespaces", {{"Content-Type", "application/json"}},
                R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h2-unread"}})");
  const std::string value(1 << 20, 'v');
  for (int i = 0; i < 12; ++i)
    ASSERT_EQ(admin
                  .request("POST", "/api/v1/namespaces/h2-unread/configmaps", {{"Content-Type", "application/json"}},
                           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-)" + std::to_string(i) +
                               R"("},"data":{"v":")" + value + R"("}})")
                  .status,
              201);
  h2::Client client = attacker({{h2::kInitialWindowSize, 0x7fffffff}});
  client.send(h2::window_update(0, 0x7fffffff - 65535));
  for (int i = 0; i < 4; ++i) client.get("/api/v1/namespaces/h2-unread/configmaps");  // 4 × 12 MiB, never read
  std::this_thread::sleep_for(5s);
  const auto start = std::chrono::steady_clock::now();
  std::size_t read = 0;
  try {
    for (;;) read += client.read(5s).payload.size();
  } catch (const test_support::ConnectionClosed&) {
  } catch (const test_support::ReadTimeout&) {
    ADD_FAILURE() << "the connection is still open after " << read << " bytes";
  } catch (const std::exception&) {  // reset
  }
  EXPECT_LT(read, 4u * 12 << 20);
  EXPECT_LT(seconds_since(start), 10.0);
}

// More streams than SETTINGS_MAX_CONCURRENT_STREAMS (1000) are refused.
TEST_F(Http2AttackTest, StreamsBeyondTheLimitAreRefused) {
  h2::Client client = attacker();
  std::string attack;
  std::uint32_t last = 0;
  for (int i = 0; i < 1100; ++i) {
    last = client.take_stream();  // a POST whose body never comes keeps its stream open
    attack += h2::frame(FrameType::Headers, h2::flags::kEndHeaders, last, h2::request_block("POST", std::string(kConfigMaps)));
  }
  while (client.read().type != FrameType::Settings) {
  }
  send_until_cut(client, attack);
  bool refused = false;
  try {
    for (;;) {
      h2::Frame frame = client.read(5s);
      if (frame.type == FrameType::GoAway || (frame.type == FrameType::RstStream && frame.stream > 2 * 1000)) {
        refused = true;
        break;
      }
    }
  } catch (const test_support::ConnectionClosed&) {
    refused = true;
  }
  EXPECT_TRUE(refused);
  EXPECT_EQ(fresh_h2_get("/version"), 200);
}

// A frame larger than the SETTINGS_MAX_FRAME_SIZE kapi announced (1 MiB) ends the connection: FRAME_SIZE_ERROR.
TEST_F(Http2AttackTest, OversizedFrameIsAConnectionError) {
  h2::Client client = attacker();
  while (client.read().type != FrameType::Settings) {
  }
  std::string huge = h2::frame(FrameType::Data, 0, 1, std::string(16, 'x'));
  huge[0] = 0x20;  // length 2 MiB, announced
  huge[1] = 0;
  huge[2] = 0;
  send_until_cut(client, huge);
  EXPECT_EQ(connection_end(client), static_cast<long>(h2::kFrameSizeError));
}

// With at most 10 streams, the handlers of reset streams count until they end, as in Go's server since
// CVE-2023-44487: 10 run, up to 40 more wait (reset, those never start), and more than that cuts the connection with
// ENHANCE_YOUR_CALM.
TEST(Http2HandlerLimitTest, HandlersOfResetStreamsAreLimitedToTheStreamLimit) {
  KapiProcess kapi(KapiOptions{.extra_flags = {"--http2-max-streams-per-connection=10", "-v=3"}});
  h2::Client client(kapi.port(), kapi.admin_tls());
  while (client.read().type != FrameType::Settings) {
  }
  // Ten requests in one TLS record: kapi reads them at once and their handlers start before it reads on.
  std::string requests;
  std::string attack;
  for (int i = 0; i < 10; ++i) {
    const std::uint32_t stream = client.take_stream();
    requests += h2::frame(FrameType::Headers, h2::flags::kEndStream | h2::flags::kEndHeaders, stream,
                          h2::request_block("GET", "/debug/kapi/sleep?duration=3s&held-handler"));
    attack += h2::rst_stream(stream);
  }
  client.send(requests);
  for (int i = 0; i < 50; ++i) {
    const std::uint32_t stream = client.take_stream();
    attack += h2::frame(FrameType::Headers, h2::flags::kEndStream | h2::flags::kEndHeaders, stream,
                        h2::request_block("GET", "/debug/kapi/sleep?duration=3s&never-started"));
    attack += h2::rst_stream(stream);
  }
  send_until_cut(client, attack);
  EXPECT_EQ(connection_end(client), static_cast<long>(h2::kEnhanceYourCalm));
  std::this_thread::sleep_for(4s);
  EXPECT_EQ(kapi.occurrences_in_output("held-handler\""), 10u) << "handlers ran";
  EXPECT_EQ(kapi.occurrences_in_output("never-started\""), 0u) << "handlers of streams reset before they started ran";
  EXPECT_EQ(kapi.connect_admin().request("GET", "/version").status, 200);
}

}  // namespace
}  // namespace kapi::integration::http2_attacks_test

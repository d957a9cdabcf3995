// kube-apiserver's request limits, enforced per connection: a 3 MiB body (413), 1 MiB of headers (431), a
// malformed request (400). Each answers with a Status, closes that connection, and leaves the others alone.
#include "tests/integration/kapi_suite.h"

namespace kapi::integration::limits_test {
namespace {

using namespace std::chrono_literals;
using test_support::chunked;

constexpr std::size_t kBodyLimit = 3 * 1024 * 1024;

class LimitsTest : public KapiSuite<LimitsTest> {
 protected:
  // A connection opened before the misbehaving one, checked afterwards.
  void expect_bystander_still_served(HttpConnection& bystander) {
    HttpResponse response = bystander.request("GET", "/healthz");
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "ok");
    HttpResponse fresh = kapi().connect_admin().request("GET", "/version");
    EXPECT_EQ(fresh.status, 200);
  }
};

TEST_F(LimitsTest, BodyAtTheLimitIsAccepted) {
  HttpConnection connection = kapi().connect_admin();
  std::string body(kBodyLimit, 'a');
  HttpResponse response = connection.request("POST", "/debug/kapi/echo", {}, body, 30s);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body.size(), kBodyLimit);
}

TEST_F(LimitsTest, ContentLengthOverTheLimitIs413AndCloses) {
  HttpConnection bystander = kapi().connect_admin();
  HttpConnection connection = kapi().connect_admin();
  std::string request = "POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nContent-Length: " +
                        std::to_string(kBodyLimit + 1) + "\r\n\r\n" + std::string(kBodyLimit + 1, 'a');
  connection.send_until_answered(request);
  HttpResponse response = connection.read_response("POST");
  EXPECT_TRUE(is_status(response, 413, "RequestEntityTooLarge"));
  EXPECT_EQ(status_message(response), "Request entity too large: limit is 3145728");
  EXPECT_EQ(response.header("Connection"), "close");
  EXPECT_TRUE(connection.wait_for_close(5s));
  expect_bystander_still_served(bystander);
}

TEST_F(LimitsTest, ChunkedBodyOverTheLimitIs413AndCloses) {
  HttpConnection bystander = kapi().connect_admin();
  HttpConnection connection = kapi().connect_admin();
  std::vector<std::string> pieces(kBodyLimit / (64 * 1024) + 2, std::string(64 * 1024, 'b'));
  connection.send_until_answered("POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                 chunked(pieces));
  HttpResponse response = connection.read_response("POST");
  EXPECT_TRUE(is_status(response, 413, "RequestEntityTooLarge"));
  EXPECT_EQ(status_message(response), "Request entity too large: limit is 3145728");
  EXPECT_TRUE(connection.wait_for_close(5s));
  expect_bystander_still_served(bystander);
}

TEST_F(LimitsTest, HeadersOverOneMebibyteAre431AndClose) {
  HttpConnection bystander = kapi().connect_admin();
  HttpConnection connection = kapi().connect_admin();
  std::string request = "GET /version HTTP/1.1\r\nHost: kapi\r\n";
  for (int i = 0; i < 17; ++i) request += "X-Filler-" + std::to_string(i) + ": " + std::string(64 * 1024, 'h') + "\r\n";
  request += "\r\n";
  connection.send_until_answered(request);
  HttpResponse response = connection.read_response();
  EXPECT_EQ(response.status, 431) << response.body;
  EXPECT_TRUE(connection.wait_for_close(5s));
  expect_bystander_still_served(bystander);
}

TEST_F(LimitsTest, HeadersJustUnderTheLimitAreServed) {
  HttpConnection connection = kapi().connect_admin();
  std::vector<std::pair<std::string, std::string>> headers;
  for (int i = 0; i < 15; ++i) headers.emplace_back("X-Filler-" + std::to_string(i), std::string(64 * 1024, 'h'));
  HttpResponse response = connection.request("GET", "/healthz", headers);
  EXPECT_EQ(response.status, 200);
}

TEST_F(LimitsTest, MalformedRequestLineIs400AndCloses) {
  HttpConnection bystander = kapi().connect_admin();
  HttpConnection connection = kapi().connect_admin();
  connection.send("THIS IS NOT HTTP\r\n\r\n");
  HttpResponse response = connection.read_response();
  EXPECT_TRUE(is_status(response, 400, "BadRequest"));
  EXPECT_TRUE(connection.wait_for_close(5s));
  expect_bystander_still_served(bystander);
}

TEST_F(LimitsTest, MalformedHeaderAfterAGoodRequestAnswersTheGoodOneFirst) {
  HttpConnection connection = kapi().connect_admin();
  connection.send("GET /healthz HTTP/1.1\r\nHost: kapi\r\n\r\nGET /version HTTP/1.1\r\nBad Header Line\r\n\r\n");
  HttpResponse good = connection.read_response();
  EXPECT_EQ(good.status, 200);
  EXPECT_EQ(good.body, "ok");
  HttpResponse bad = connection.read_response();
  EXPECT_TRUE(is_status(bad, 400, "BadRequest"));
  EXPECT_TRUE(connection.wait_for_close(5s));
}

}  // namespace
}  // namespace kapi::integration::limits_test

// HTTP/1.1 as kube-apiserver's clients use it, over TLS to the real binary: keep-alive, pipelining, chunked
// request bodies, Expect: 100-continue, Connection: close, HEAD and HTTP/1.0.
#include "tests/integration/kapi_suite.h"

#include <thread>

namespace kapi::integration::http_protocol_test {
namespace {

using namespace std::chrono_literals;
using test_support::chunked;

class HttpProtocolTest : public KapiSuite<HttpProtocolTest> {};

TEST_F(HttpProtocolTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  HttpConnection connection = kapi().connect_admin();
  for (const char* path : {"/healthz", "/version", "/livez", "/readyz", "/version"}) {
    HttpResponse response = connection.request("GET", path);
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    EXPECT_EQ(response.version, "HTTP/1.1");
    EXPECT_FALSE(response.closes_connection()) << path;
  }
  EXPECT_FALSE(connection.closed_by_peer());
}

TEST_F(HttpProtocolTest, PipelinedRequestsAreAnsweredInOrder) {
  HttpConnection connection = kapi().connect_admin();
  // The first is the slowest: its answer must still come first.
  connection.send(
      "GET /debug/kapi/sleep?duration=300ms HTTP/1.1\r\nHost: kapi\r\n\r\n"
      "GET /healthz HTTP/1.1\r\nHost: kapi\r\n\r\n"
      "POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nContent-Length: 5\r\n\r\nthird");
  HttpResponse first = connection.read_response();
  HttpResponse second = connection.read_response();
  HttpResponse third = connection.read_response("POST");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "slept\n");
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "ok");
  EXPECT_EQ(third.status, 200);
  EXPECT_EQ(third.body, "third");
  EXPECT_NE(first.header("Audit-ID"), second.header("Audit-ID"));
}

TEST_F(HttpProtocolTest, ChunkedRequestBodyIsAssembled) {
  HttpConnection connection = kapi().connect_admin();
  std::vector<std::string> pieces = {"hello, ", "chunked ", std::string(40'000, 'x'), " world"};
  connection.send("POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nTransfer-Encoding: chunked\r\n\r\n" +
                  chunked(pieces));
  HttpResponse response = connection.read_response("POST");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "hello, chunked " + std::string(40'000, 'x') + " world");
}

TEST_F(HttpProtocolTest, ChunkedRequestBodySentSlowlyPieceByPiece) {
  HttpConnection connection = kapi().connect_admin();
  connection.send("POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nTransfer-Encoding: chunked\r\n\r\n");
  std::string encoded = chunked({"one ", "two ", "three"});
  // Byte boundaries inside size lines and CRLFs on purpose.
  for (std::size_t at = 0; at < encoded.size(); at += 3) {
    connection.send(std::string_view(encoded).substr(at, 3));
    std::this_thread::sleep_for(5ms);
  }
  HttpResponse response = connection.read_response("POST");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "one two three");
}

TEST_F(HttpProtocolTest, ExpectContinueGets100BeforeTheBodyIsSent) {
  HttpConnection connection = kapi().connect_admin();
  connection.send(
      "POST /debug/kapi/echo HTTP/1.1\r\nHost: kapi\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
  HttpResponse interim = connection.read_response("POST", 5s);
  EXPECT_EQ(interim.version, "HTTP/1.1");
  EXPECT_EQ(interim.status, 100);
  EXPECT_EQ(interim.reason, "Continue");
  connection.send("hello there");
  HttpResponse response = connection.read_response("POST");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "hello there");
}

TEST_F(HttpProtocolTest, ConnectionCloseClosesAfterTheResponse) {
  HttpConnection connection = kapi().connect_admin();
  HttpResponse response = connection.request("GET", "/version", {{"Connection", "close"}});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.header("Connection"), "close");
  EXPECT_TRUE(connection.wait_for_close(5s)) << "the server kept the connection open";
}

TEST_F(HttpProtocolTest, HeadHasHeadersButNoBody) {
  HttpConnection connection = kapi().connect_admin();
  HttpResponse get = connection.request("GET", "/version");
  HttpResponse head = connection.request("HEAD", "/version");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(get.body.size()));
  EXPECT_EQ(head.header("Content-Type"), get.header("Content-Type"));
  EXPECT_TRUE(head.body.empty());
  // Had a body followed the HEAD answer, it would now be read as the next status line.
  HttpResponse next = connection.request("GET", "/healthz");
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ok");
}

TEST_F(HttpProtocolTest, Http10RequestIsAnsweredAndClosed) {
  HttpConnection connection = kapi().connect_admin();
  connection.send("GET /version HTTP/1.0\r\n\r\n");
  HttpResponse response = connection.read_response();
  EXPECT_EQ(response.version, "HTTP/1.0");
  EXPECT_EQ(response.status, 200);
  EXPECT_NE(response.body.find("\"minor\":\"32\""), std::string::npos) << response.body;
  EXPECT_TRUE(connection.wait_for_close(5s)) << "HTTP/1.0 without keep-alive must close";
}

TEST_F(HttpProtocolTest, Http10KeepAliveStaysOpen) {
  HttpConnection connection = kapi().connect_admin();
  connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  HttpResponse first = connection.read_response();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.header("Connection"), "keep-alive");
  connection.send("GET /livez HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  HttpResponse second = connection.read_response();
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "ok");
}

}  // namespace
}  // namespace kapi::integration::http_protocol_test

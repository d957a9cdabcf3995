#include "server/http/request_parser.h"

#include <gtest/gtest.h>

namespace kapi::http::request_parser_test {
namespace {

TEST(RequestParser, ParsesPipelinedRequestsInOrder) {
  RequestParser parser({});
  auto failure = parser.feed(
      "GET /api?x=1 HTTP/1.1\r\nHost: a\r\n\r\n"
      "POST /apis/apps/v1/namespaces/d/deployments HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"
      "GET /version HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  ASSERT_FALSE(failure);
  ASSERT_EQ(parser.ready().size(), 3u);
  EXPECT_EQ(parser.ready()[0].path, "/api");
  EXPECT_EQ(parser.ready()[0].query.get("x"), "1");
  EXPECT_TRUE(parser.ready()[0].keep_alive);
  EXPECT_EQ(parser.ready()[1].method, "POST");
  EXPECT_EQ(parser.ready()[1].body, "{}");
  EXPECT_FALSE(parser.ready()[2].keep_alive);
}

TEST(RequestParser, StopsAfterAnUpgradeRequestAndKeepsWhatFollowsForTheNewProtocol) {
  RequestParser parser({});
  ASSERT_FALSE(parser.feed("GET /api/v1/namespaces/d/pods/p/exec HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n"
                           "Upgrade: websocket\r\n\r\n\x82\x05hello"));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_FALSE(parser.ready()[0].keep_alive);
  EXPECT_TRUE(parser.stopped());
  EXPECT_EQ(parser.failure()->status, 0);
  EXPECT_EQ(parser.take_upgraded_bytes(), "\x82\x05hello");
  EXPECT_EQ(parser.take_upgraded_bytes(), "");
}

TEST(RequestParser, AssemblesRequestsSplitAcrossReads) {
  RequestParser parser({});
  std::string request = "PUT /x HTTP/1.1\r\nContent-Length: 5\r\nX-Long: abcdef\r\n\r\nhello";
  for (char c : request) ASSERT_FALSE(parser.feed(std::string_view(&c, 1)));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_EQ(parser.ready()[0].body, "hello");
  EXPECT_EQ(parser.ready()[0].headers.get("x-long"), "abcdef");
}

TEST(RequestParser, DecodesChunkedBodies) {
  RequestParser parser({});
  ASSERT_FALSE(parser.feed("POST /e HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_EQ(parser.ready()[0].body, "hello world");
}

TEST(RequestParser, DecodesThePathButKeepsTheRawQuery) {
  RequestParser parser({});
  ASSERT_FALSE(parser.feed("GET /api/v1/namespaces/a%20b/pods?labelSelector=app%3Dweb HTTP/1.1\r\n\r\n"));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_EQ(parser.ready()[0].path, "/api/v1/namespaces/a b/pods");
  EXPECT_EQ(parser.ready()[0].raw_query, "labelSelector=app%3Dweb");
  EXPECT_EQ(parser.ready()[0].query.get("labelSelector"), "app=web");
}

TEST(RequestParser, RefusesADeclaredBodyOverTheLimitBeforeReadingIt) {
  RequestParser parser({.max_header_bytes = 1 << 20, .max_body_bytes = 10});
  auto failure = parser.feed("POST /x HTTP/1.1\r\nContent-Length: 11\r\n\r\n");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->status, 413);
  EXPECT_EQ(failure->message, "limit is 10");
  EXPECT_TRUE(parser.stopped());
}

TEST(RequestParser, RefusesAChunkedBodyThatGrowsOverTheLimit) {
  RequestParser parser({.max_header_bytes = 1 << 20, .max_body_bytes = 10});
  auto failure = parser.feed("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->status, 413);
}

TEST(RequestParser, RefusesHeadersOverTheLimit) {
  RequestParser parser({.max_header_bytes = 100, .max_body_bytes = 10});
  auto failure = parser.feed("GET /x HTTP/1.1\r\nX-Big: " + std::string(4200, 'a') + "\r\n\r\n");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->status, 431);
}

// 431 or not depends only on the bytes, never on how TCP split them (the http_request fuzz target found two ways it
// did): Go reads the request line and headers up to MaxHeaderBytes plus 4096 bytes of slack, raw.
std::optional<int> status_whole_and_split(const std::string& request, const ParserLimits& limits) {
  RequestParser whole(limits);
  const auto failure = whole.feed(request);
  RequestParser split(limits);
  std::optional<ParseFailure> split_failure;
  for (char c : request)
    if ((split_failure = split.feed(std::string_view(&c, 1)))) break;
  const int whole_status = failure ? failure->status : 0;
  if (whole_status != (split_failure ? split_failure->status : 0)) return std::nullopt;
  return whole_status;
}

TEST(RequestParser, CountsTheHeaderSectionsRawBytesHoweverTheReadsSplitIt) {
  const ParserLimits limits{.max_header_bytes = 100, .max_body_bytes = 10};
  auto request_of = [](std::size_t section) {
    const std::string head = "GET /x HTTP/1.1\r\nX-Name: ", tail = "\r\n\r\n";
    return head + std::string(section - head.size() - tail.size(), 'v') + tail;
  };
  EXPECT_EQ(status_whole_and_split(request_of(100 + 4096), limits), 0);
  EXPECT_EQ(status_whole_and_split(request_of(100 + 4096 + 1), limits), 431);
  // Malformed past the limit is too large (Go stops reading first); malformed within it is malformed.
  EXPECT_EQ(status_whole_and_split("GET /" + std::string(5000, 'a') + "\x01 HTTP/1.1\r\n\r\n", limits), 431);
  EXPECT_EQ(status_whole_and_split("GET /" + std::string(50, 'a') + "\x01 HTTP/1.1\r\n\r\n", limits), 400);
  // Trailing whitespace of a value that a read cuts off counts as it is.
  EXPECT_EQ(status_whole_and_split("GET /x HTTP/1.1\r\nA: b" + std::string(4300, ' ') + "\r\n\r\n", limits), 431);
}

TEST(RequestParser, RefusesMalformedRequests) {
  for (std::string bad : {"GARBAGE\r\n\r\n", "GET /x HTTP/9.9\r\n\r\n", "GET /x HTTP/1.1\r\nBad Header\r\n\r\n",
                          "POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"}) {
    RequestParser parser({});
    auto failure = parser.feed(bad);
    ASSERT_TRUE(failure) << bad;
    EXPECT_EQ(failure->status, 400) << bad;
  }
}

TEST(RequestParser, ReportsExpectContinueOnceBeforeTheBody) {
  RequestParser parser({});
  ASSERT_FALSE(parser.feed("PUT /x HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_TRUE(parser.in_message());
  EXPECT_TRUE(parser.take_continue_request());
  EXPECT_FALSE(parser.take_continue_request());
  ASSERT_FALSE(parser.feed("abc"));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_FALSE(parser.in_message());
}

TEST(RequestParser, Http10DefaultsToClose) {
  RequestParser parser({});
  ASSERT_FALSE(parser.feed("GET /version HTTP/1.0\r\n\r\n"));
  ASSERT_EQ(parser.ready().size(), 1u);
  EXPECT_EQ(parser.ready()[0].version_minor, 0);
  EXPECT_FALSE(parser.ready()[0].keep_alive);
}

}  // namespace
}  // namespace kapi::http::request_parser_test

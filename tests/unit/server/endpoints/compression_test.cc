// Response compression: kube's Accept-Encoding rule and a gzip stream any client inflates.
#include "server/endpoints/handlers/compression.h"

#include "tests/support/gunzip.h"

#include <gtest/gtest.h>

namespace kapi::endpoints::handlers {
namespace {

http::Request accepting(const char* encodings) {
  http::Request request;
  request.method = "GET";
  if (encodings) request.headers.set("Accept-Encoding", encodings);
  return request;
}

using test_support::gunzip;

TEST(CompressionTest, GzipOnlyWhenATokenIsExactlyGzip) {
  EXPECT_TRUE(accepts_gzip(accepting("gzip")));
  EXPECT_TRUE(accepts_gzip(accepting("deflate, gzip")));
  EXPECT_TRUE(accepts_gzip(accepting(" gzip ,br")));
  EXPECT_FALSE(accepts_gzip(accepting(nullptr)));
  EXPECT_FALSE(accepts_gzip(accepting("")));
  EXPECT_FALSE(accepts_gzip(accepting("identity")));
  EXPECT_FALSE(accepts_gzip(accepting("*")));
  EXPECT_FALSE(accepts_gzip(accepting("gzip;q=1.0")));  // negotiateContentEncoding compares whole tokens
  EXPECT_FALSE(accepts_gzip(accepting("x-gzip")));
}

TEST(CompressionTest, GzipRoundTrips) {
  std::string body;
  for (int i = 0; i < 20000; ++i) body += "{\"name\":\"item-" + std::to_string(i) + "\"},";
  const std::string compressed = gzip_compress(body);
  ASSERT_GE(compressed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>(compressed[1]), 0x8b);
  EXPECT_LT(compressed.size(), body.size() / 4);
  EXPECT_EQ(gunzip(compressed), body);
  EXPECT_EQ(gunzip(gzip_compress("")), "");
}

}  // namespace
}  // namespace kapi::endpoints::handlers

namespace kapi::endpoints::handlers {
namespace {

// A streamed response's gzip member, written in pieces of any size, is one member that inflates to the pieces
// joined; nothing is lost in zlib's buffer at the end.
TEST(CompressionTest, AGzipStreamWrittenInPiecesIsOneMember) {
  std::string whole;
  std::string compressed;
  GzipStream stream;
  for (int piece = 0; piece < 200; ++piece) {
    std::string text;
    for (int line = 0; line < piece * 7 % 300; ++line) text += "item " + std::to_string(piece * 1000 + line) + ",";
    whole += text;
    compressed += stream.write(text);
  }
  compressed += stream.finish();
  EXPECT_LT(compressed.size(), whole.size() / 3);
  EXPECT_EQ(test_support::gunzip(compressed), whole);

  GzipStream empty;
  EXPECT_EQ(test_support::gunzip(empty.write("") + empty.finish()), "");
}

}  // namespace
}  // namespace kapi::endpoints::handlers

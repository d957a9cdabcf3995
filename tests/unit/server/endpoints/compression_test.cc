// Response compression: kube's Accept-Encoding rule and a gzip stream any client inflates.
#include "server/endpoints/handlers/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace kapi::endpoints::handlers {
namespace {

http::Request accepting(const char* encodings) {
  http::Request request;
  request.method = "GET";
  if (encodings) request.headers.set("Accept-Encoding", encodings);
  return request;
}

std::string gunzip(std::string_view compressed) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  EXPECT_EQ(result, Z_STREAM_END);
  inflateEnd(&stream);
  return out;
}

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

#pragma once
// Inflates a gzip stream for tests that check what kapi compressed; a stream that is not complete gzip fails
// the calling test.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>

namespace kapi::test_support {

inline std::string gunzip(std::string_view compressed) {
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
  EXPECT_EQ(result, Z_STREAM_END) << "not a complete gzip stream";
  inflateEnd(&stream);
  return out;
}

}  // namespace kapi::test_support

#include "base/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::base::base64_test {
namespace {

std::string all_bytes() {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  return bytes;
}

TEST(Base64Test, EncodesAsStdEncoding) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\x00\xff\xfe", 3)), "AP/+");
  // OpenSSL writes no line breaks however long the input, as Go does.
  EXPECT_EQ(base64_encode(std::string(300, 'x')).find('\n'), std::string::npos);
}

TEST(Base64Test, EncodesAsRawUrlEncoding) {
  EXPECT_EQ(base64_encode("", Base64::kRawUrl), "");
  EXPECT_EQ(base64_encode("f", Base64::kRawUrl), "Zg");
  EXPECT_EQ(base64_encode("fo", Base64::kRawUrl), "Zm8");
  EXPECT_EQ(base64_encode("\xfb\xff", Base64::kRawUrl), "-_8");
}

TEST(Base64Test, DecodesAsStdEncoding) {
  EXPECT_EQ(base64_decode("Zm9v"), "foo");
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8=\r\n"), "fo");
  EXPECT_EQ(base64_decode("Zm\n9v\r\nYmFy"), "foobar");  // CR and LF are skipped anywhere
  EXPECT_EQ(base64_decode("Zh=="), "f");                  // nonzero trailing bits: Go is not strict by default
  EXPECT_EQ(base64_decode(""), "");
  EXPECT_EQ(base64_decode(base64_encode(all_bytes())), all_bytes());
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "Zm-_", "Zm9v ", "=", "Zg=\n"})
    EXPECT_FALSE(base64_decode(bad)) << bad;
}

TEST(Base64Test, DecodesAsRawUrlEncoding) {
  EXPECT_EQ(base64_decode("-_8", Base64::kRawUrl), "\xfb\xff");
  EXPECT_EQ(base64_decode("Zm9vYg", Base64::kRawUrl), "foob");
  EXPECT_EQ(base64_decode("Zm9\nvYg", Base64::kRawUrl), "foob");
  EXPECT_EQ(base64_decode(base64_encode(all_bytes(), Base64::kRawUrl), Base64::kRawUrl), all_bytes());
  for (const char* bad : {"+/8=", "Zg==", "a", "Zm9vY"}) EXPECT_FALSE(base64_decode(bad, Base64::kRawUrl)) << bad;
}

// base64.CorruptInputError's offsets, as Go 1.22 reports them for the same input.
TEST(Base64Test, ReportsTheOffsetGoNames) {
  EXPECT_EQ(base64_decode_with_error("Zm9v").error(), "");
  EXPECT_EQ(base64_decode_with_error("Zm9v!A==").error(), "illegal base64 data at input byte 4");
  EXPECT_EQ(base64_decode_with_error("Zg").error(), "illegal base64 data at input byte 0");
  EXPECT_EQ(base64_decode_with_error("Zm9vZg=").error(), "illegal base64 data at input byte 7");
  EXPECT_EQ(base64_decode_with_error("Z===").error(), "illegal base64 data at input byte 1");
  EXPECT_EQ(base64_decode_with_error("Zg=x").error(), "illegal base64 data at input byte 2");
  EXPECT_EQ(base64_decode_with_error("Zg==Zg==").error(), "illegal base64 data at input byte 4");
  EXPECT_EQ(base64_decode_with_error("a", Base64::kRawUrl).error(), "illegal base64 data at input byte 0");
  EXPECT_EQ(base64_decode_with_error("Zm9vY", Base64::kRawUrl).error(), "illegal base64 data at input byte 4");
  EXPECT_EQ(base64_decode_with_error("Zm9v=", Base64::kRawUrl).error(), "illegal base64 data at input byte 4");
  EXPECT_EQ(base64_decode_with_error("ab\x01", Base64::kRawUrl).error(), "illegal base64 data at input byte 2");
}

}  // namespace
}  // namespace kapi::base::base64_test

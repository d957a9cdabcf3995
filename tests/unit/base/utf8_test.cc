#include "base/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::base::utf8_test {
namespace {

TEST(Utf8Test, DecodesRunesAsUtf8DecodeRuneInString) {
  const Rune ascii = decode_rune("a");
  EXPECT_EQ(ascii.value, U'a');
  EXPECT_EQ(ascii.width, 1u);
  EXPECT_TRUE(ascii.valid);
  const Rune euro = decode_rune("\xE2\x82\xAC!");
  EXPECT_EQ(euro.value, U'\u20AC');
  EXPECT_EQ(euro.width, 3u);
  const Rune emoji = decode_rune("\xF0\x9F\x98\x80");
  EXPECT_EQ(emoji.value, U'\U0001F600');
  EXPECT_EQ(emoji.width, 4u);
  // Each malformed form is RuneError one byte wide: overlong, surrogate, above U+10FFFF, truncated, stray.
  for (const std::string bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\x80",
                                "\xFF", "\xF5\x80\x80\x80"}) {
    const Rune rune = decode_rune(bad);
    EXPECT_EQ(rune.value, kRuneError) << bad;
    EXPECT_EQ(rune.width, 1u) << bad;
    EXPECT_FALSE(rune.valid) << bad;
  }
  // An encoded U+FFFD is a valid rune.
  EXPECT_TRUE(decode_rune("\xEF\xBF\xBD").valid);
}

TEST(Utf8Test, AppendsRunesAsUtf8AppendRune) {
  std::string out;
  for (char32_t rune : {U'a', U'\u00E9', U'\u20AC', U'\U0001F600'}) append_utf8(out, rune);
  EXPECT_EQ(out, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  std::string invalid;
  append_utf8(invalid, 0xD800);
  append_utf8(invalid, 0x110000);
  EXPECT_EQ(invalid, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8Test, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(valid_utf8("h\xC3\xA9llo \xF0\x9F\x98\x80"), "h\xC3\xA9llo \xF0\x9F\x98\x80");
  EXPECT_EQ(valid_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");               // overlong '/'
  EXPECT_EQ(valid_utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");               // truncated
  EXPECT_EQ(valid_utf8(""), "");
}

}  // namespace
}  // namespace kapi::base::utf8_test

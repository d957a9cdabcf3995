#include "base/go_quote.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::base::go_quote_test {
namespace {

// Each expectation is what Go 1.22's strconv.Quote / fmt.Sprintf("%q") prints for the same bytes.
TEST(GoQuoteTest, QuotesAsStrconvQuote) {
  EXPECT_EQ(go_quote(""), R"("")");
  EXPECT_EQ(go_quote("plain text"), R"("plain text")");
  EXPECT_EQ(go_quote(R"(say "hi" \o/)"), R"("say \"hi\" \\o/")");
  EXPECT_EQ(go_quote("\a\b\f\n\r\t\v"), R"("\a\b\f\n\r\t\v")");
  EXPECT_EQ(go_quote(std::string("\x00\x1b\x7f", 3)), R"("\x00\x1b\x7f")");
  EXPECT_EQ(go_quote("it's"), R"("it's")");
}

TEST(GoQuoteTest, KeepsPrintableRunesAndEscapesTheOthers) {
  EXPECT_EQ(go_quote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  EXPECT_EQ(go_quote("\xC2\x85"), R"("\u0085")");          // NEL, a C1 control
  EXPECT_EQ(go_quote("\xC2\xA0"), R"("\u00a0")");          // no-break space: only U+0020 prints among spaces
  EXPECT_EQ(go_quote("\xE2\x80\x8B"), R"("\u200b")");      // zero-width space, a format character
  EXPECT_EQ(go_quote("\xEF\xBB\xBF"), R"("\ufeff")");      // byte order mark
  EXPECT_EQ(go_quote("\xF3\xA0\x80\x81"), R"("\U000e0001")");  // language tag
  EXPECT_EQ(go_quote("\xEF\xBF\xBD"), "\"\xEF\xBF\xBD\"");  // an encoded U+FFFD prints as itself
}

TEST(GoQuoteTest, WritesMalformedUtf8ByteByByte) {
  EXPECT_EQ(go_quote("a\xFF" "b"), R"("a\xffb")");
  EXPECT_EQ(go_quote("\xE2\x82"), R"("\xe2\x82")");   // truncated
  EXPECT_EQ(go_quote("\xED\xA0\x80"), R"("\xed\xa0\x80")");  // a surrogate
  EXPECT_EQ(go_quote("\xC0\xAF"), R"("\xc0\xaf")");   // overlong
}

TEST(GoQuoteTest, QuotesListsAsPercentQOfAStringSlice) {
  EXPECT_EQ(go_quote_list({}), "[]");
  EXPECT_EQ(go_quote_list({"a"}), R"(["a"])");
  EXPECT_EQ(go_quote_list({"a", "b c", "\""}), R"(["a" "b c" "\""])");
}

TEST(GoQuoteTest, PrintsStringSlicesAsPercentSharpV) {
  EXPECT_EQ(go_string_slice({}), "[]string{}");
  EXPECT_EQ(go_string_slice({"/healthz", "a\"b"}), R"([]string{"/healthz", "a\"b"})");
}

TEST(GoQuoteTest, QuotesRunesAsStrconvQuoteRune) {
  EXPECT_EQ(go_quote_rune(U'x'), "'x'");
  EXPECT_EQ(go_quote_rune(U'\''), R"('\'')");
  EXPECT_EQ(go_quote_rune(U'"'), R"('"')");
  EXPECT_EQ(go_quote_rune(U'\\'), R"('\\')");
  EXPECT_EQ(go_quote_rune(U'\n'), R"('\n')");
  EXPECT_EQ(go_quote_rune(0x01), R"('\x01')");
  EXPECT_EQ(go_quote_rune(0x80), R"('\u0080')");
  EXPECT_EQ(go_quote_rune(0xE9), "'\xC3\xA9'");
  EXPECT_EQ(go_quote_rune(0xD800), "'\xEF\xBF\xBD'");  // not a scalar value: RuneError
}

}  // namespace
}  // namespace kapi::base::go_quote_test

// Literal values as cel-go reads them (strconv for numbers, parser/unescape.go for strings and bytes), and the
// errors it reports for literals it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cel/compile.h"
#include "cel/parser/debug.h"

namespace kapi::cel::literals_test {
namespace {

Constant literal(std::string_view text) {
  ParseResult result = parse(text);
  EXPECT_TRUE(result.ast) << text << ": " << result.issues.to_display_string(std::string(text), {});
  if (!result.ast) return NullLiteral{};
  const Constant* c = std::get_if<Constant>(&result.ast->root.kind);
  EXPECT_TRUE(c) << text;
  return c ? *c : Constant{NullLiteral{}};
}

std::string errors(std::string_view text) {
  ParseResult result = parse(text);
  EXPECT_FALSE(result.ast) << text;
  return result.issues.to_display_string(std::string(text), {});
}

TEST(CelLiteralTest, Integers) {
  EXPECT_EQ(literal("9223372036854775807"), Constant{std::int64_t{INT64_MAX}});
  EXPECT_EQ(literal("-9223372036854775808"), Constant{std::int64_t{INT64_MIN}});
  EXPECT_EQ(literal("0x7fffffffffffffff"), Constant{std::int64_t{INT64_MAX}});
  EXPECT_EQ(literal("-0x8000000000000000"), Constant{std::int64_t{INT64_MIN}});
  EXPECT_EQ(literal("-0x10"), Constant{std::int64_t{-16}});
  EXPECT_EQ(literal("18446744073709551615u"), Constant{std::uint64_t{UINT64_MAX}});
  EXPECT_EQ(literal("0xFFFFFFFFFFFFFFFFU"), Constant{std::uint64_t{UINT64_MAX}});
  EXPECT_EQ(errors("9223372036854775808"), "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^");
  EXPECT_EQ(errors("-9223372036854775809"), "ERROR: <input>:1:1: invalid int literal\n | -9223372036854775809\n | ^");
  EXPECT_EQ(errors("18446744073709551616u"),
            "ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u\n | ^");
}

TEST(CelLiteralTest, Doubles) {
  EXPECT_EQ(literal("1.5"), Constant{1.5});
  EXPECT_EQ(literal(".5"), Constant{0.5});
  EXPECT_EQ(literal("-2.5e3"), Constant{-2500.0});
  EXPECT_EQ(literal("1e308"), Constant{1e308});
  EXPECT_EQ(literal("1e-400"), Constant{0.0});  // Go rounds underflow to zero without an error
  EXPECT_EQ(errors("1e309"), "ERROR: <input>:1:1: invalid double literal\n | 1e309\n | ^");
  const double negative_zero = std::get<double>(literal("-0.0"));
  EXPECT_TRUE(std::signbit(negative_zero));
}

TEST(CelLiteralTest, NegationFoldsOnlyASingleSignIntoANumber) {
  EXPECT_EQ(debug_string(parse("-1").ast->root), "-1");
  EXPECT_EQ(debug_string(parse("--1").ast->root), "1");
  EXPECT_EQ(debug_string(parse("---1").ast->root), "-_(\n  1\n)");
  EXPECT_EQ(debug_string(parse("-(1)").ast->root), "-_(\n  1\n)");
  EXPECT_EQ(debug_string(parse("-1u").ast->root), "-_(\n  1u\n)");
  EXPECT_EQ(debug_string(parse("!!a").ast->root), "a");
  EXPECT_EQ(debug_string(parse("2-1").ast->root), "_-_(\n  2,\n  1\n)");
}

TEST(CelLiteralTest, StringEscapes) {
  EXPECT_EQ(literal(R"("\a\b\f\n\r\t\v\\\'\"\`\?")"), Constant{std::string("\a\b\f\n\r\t\v\\'\"`?")});
  EXPECT_EQ(literal(R"("\101\x41\X41\u0041\U00000041")"), Constant{std::string("AAAAA")});
  EXPECT_EQ(literal(R"("\377\xff\u00ff")"), Constant{std::string("\u00ff\u00ff\u00ff")});
  EXPECT_EQ(literal(R"("\U0001F600")"), Constant{std::string("\U0001F600")});
  EXPECT_EQ(literal(R"("\uD800")"), Constant{std::string("\uFFFD")});  // a surrogate encodes as U+FFFD, as Go does
  EXPECT_EQ(literal(R"(r"\n\x")"), Constant{std::string("\\n\\x")});
  EXPECT_EQ(literal("'''a\r\nb\rc'''"), Constant{std::string("a\nb\nc")});
  EXPECT_EQ(literal(R"("""say "hi" """)"), Constant{std::string("say \"hi\" ")});
  EXPECT_EQ(literal("'é'"), Constant{std::string("é")});
  EXPECT_EQ(errors(R"("\U00110000")"), "ERROR: <input>:1:1: unable to unescape string\n | \"\\U00110000\"\n | ^");
}

TEST(CelLiteralTest, BytesEscapesAreBytes) {
  EXPECT_EQ(literal(R"(b"\377\xff")"), Constant{BytesLiteral{std::string("\xff\xff")}});
  EXPECT_EQ(literal(R"(b"é")"), Constant{BytesLiteral{std::string("é")}});
  EXPECT_EQ(literal(R"(br"\xff")"), Constant{BytesLiteral{std::string("\\xff")}});
  EXPECT_EQ(errors(R"(b"\u0041")"), "ERROR: <input>:1:1: unable to unescape string\n | b\"\\u0041\"\n | ^");
}

TEST(CelLiteralTest, MalformedUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(literal("'\xff'"), Constant{std::string("\uFFFD")});
  EXPECT_EQ(literal("'\xff\\n'"), Constant{std::string("\uFFFD\n")});
}

TEST(CelDebugStringTest, Shapes) {
  EXPECT_EQ(debug_string(parse(R"(a.b(1, "x\ty") && has(c.d) ? [1, 2.5] : {?k: b"z"})").ast->root),
            "_?_:_(\n"
            "  _&&_(\n"
            "    a.b(\n"
            "      1,\n"
            "      \"x\\ty\"\n"
            "    ),\n"
            "    c.d~test-only~\n"
            "  ),\n"
            "  [\n"
            "    1,\n"
            "    2.5\n"
            "  ],\n"
            "  {\n"
            "    ?k:b\"z\"\n"
            "  }\n"
            ")");
  EXPECT_EQ(debug_string(parse("pkg.Msg{f: 1, ?g: null}").ast->root), "pkg.Msg{\n  f:1,\n  ?g:null\n}");
}

}  // namespace
}  // namespace kapi::cel::literals_test

// The lexer against cel-go's grammar (parser/gen/CEL.g4): token kinds, ANTLR's longest match with fallback to
// the longest prefix that was a token, and its recognition errors.
#include "cel/parser/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kapi::cel::parser::lexer_test {
namespace {

std::u32string utf32(std::string_view ascii) { return std::u32string(ascii.begin(), ascii.end()); }

// "KIND:text" per token, without the final EOF.
std::vector<std::string> lex(std::string_view text) {
  LexResult result = tokenize(utf32(text));
  std::vector<std::string> out;
  for (const Token& t : result.tokens) {
    if (t.kind != TokenKind::kEof) out.push_back(std::string(token_kind_name(t.kind)) + ":" + t.text);
  }
  for (const LexError& e : result.errors) out.push_back("error@" + std::to_string(e.offset) + ":" + e.message);
  return out;
}

using Tokens = std::vector<std::string>;

TEST(CelLexerTest, OperatorsAndPunctuation) {
  EXPECT_EQ(lex("== != < <= >= > && || [ ] { } ( ) . , - ! ? : + * / %"),
            (Tokens{"'==':==", "'!=':!=", "'<':<", "'<=':<=", "'>=':>=", "'>':>", "'&&':&&", "'||':||",
                    "'[':[",   "']':]",   "'{':{", "'}':}",   "'(':(",   "')':)", "'.':.",   "',':,",
                    "'-':-",   "'!':!",   "'?':?", "':'::",   "'+':+",   "'*':*", "'/':/",   "'%':%"}));
}

TEST(CelLexerTest, KeywordsAndIdentifiers) {
  EXPECT_EQ(lex("in true false null _x9 truex inx b r"),
            (Tokens{"'in':in", "'true':true", "'false':false", "'null':null", "IDENTIFIER:_x9", "IDENTIFIER:truex",
                    "IDENTIFIER:inx", "IDENTIFIER:b", "IDENTIFIER:r"}));
}

TEST(CelLexerTest, Numbers) {
  EXPECT_EQ(lex("0 42 0xF 0xFu 23u 23U 1.5 .5 1e3 1E+3 2.5e-3"),
            (Tokens{"NUM_INT:0", "NUM_INT:42", "NUM_INT:0xF", "NUM_UINT:0xFu", "NUM_UINT:23u", "NUM_UINT:23U",
                    "NUM_FLOAT:1.5", "NUM_FLOAT:.5", "NUM_FLOAT:1e3", "NUM_FLOAT:1E+3", "NUM_FLOAT:2.5e-3"}));
}

TEST(CelLexerTest, NumbersFallBackToTheLongestToken) {
  EXPECT_EQ(lex("0x"), (Tokens{"NUM_INT:0", "IDENTIFIER:x"}));
  EXPECT_EQ(lex("1e"), (Tokens{"NUM_INT:1", "IDENTIFIER:e"}));
  EXPECT_EQ(lex("1.5e+"), (Tokens{"NUM_FLOAT:1.5", "IDENTIFIER:e", "'+':+"}));
  EXPECT_EQ(lex("1."), (Tokens{"NUM_INT:1", "'.':."}));
  EXPECT_EQ(lex("1.5u"), (Tokens{"NUM_FLOAT:1.5", "IDENTIFIER:u"}));
  EXPECT_EQ(lex("0XF"), (Tokens{"NUM_INT:0", "IDENTIFIER:XF"}));
  EXPECT_EQ(lex("a.1"), (Tokens{"IDENTIFIER:a", "NUM_FLOAT:.1"}));
}

TEST(CelLexerTest, Strings) {
  EXPECT_EQ(lex(R"("a" 'b' """c
d""" '''e''' r"\n" R'\q' b"x" B'y' br"\z" bR'''w''')"),
            (Tokens{"STRING:\"a\"", "STRING:'b'", "STRING:\"\"\"c\nd\"\"\"", "STRING:'''e'''", "STRING:r\"\\n\"",
                    "STRING:R'\\q'", "BYTES:b\"x\"", "BYTES:B'y'", "BYTES:br\"\\z\"", "BYTES:bR'''w'''"}));
  EXPECT_EQ(lex(R"("\a\b\f\n\r\t\v\"\'\\\?\` \101 \x41 \X41 \u0041 \U00000041")").size(), 1u);
}

TEST(CelLexerTest, CommentsAndWhitespaceAreSkipped) {
  EXPECT_EQ(lex("a // comment\n\t+\f b // to the end"), (Tokens{"IDENTIFIER:a", "'+':+", "IDENTIFIER:b"}));
}

TEST(CelLexerTest, RecognitionErrorsSkipThroughTheFailingCharacter) {
  EXPECT_EQ(lex("a = b"), (Tokens{"IDENTIFIER:a", "IDENTIFIER:b", "error@2:token recognition error at: '= '"}));
  EXPECT_EQ(lex("a | b"), (Tokens{"IDENTIFIER:a", "IDENTIFIER:b", "error@2:token recognition error at: '| '"}));
  EXPECT_EQ(lex("@"), (Tokens{"error@0:token recognition error at: '@'"}));
  EXPECT_EQ(lex("&"), (Tokens{"error@0:token recognition error at: '&'"}));
  EXPECT_EQ(lex(R"("\xFh")"),
            (Tokens{"error@0:token recognition error at: '\"\\xFh'", "error@5:token recognition error at: '\"'"}));
  EXPECT_EQ(lex(R"('\400')"), (Tokens{"NUM_INT:00", "error@0:token recognition error at: ''\\4'",
                                      "error@5:token recognition error at: '''"}));
}

TEST(CelLexerTest, UnterminatedStrings) {
  EXPECT_EQ(lex("\"abc"), (Tokens{"error@0:token recognition error at: '\"abc'"}));
  // A newline ends a single-quoted string; ANTLR spells it \n in the message.
  EXPECT_EQ(lex("'abc\ndef'"), (Tokens{"IDENTIFIER:def", "error@0:token recognition error at: ''abc\\n'",
                                       "error@8:token recognition error at: '''"}));
  // `""` was a whole string before the third quote.
  EXPECT_EQ(lex("\"\"\"abc"), (Tokens{"STRING:\"\"", "error@2:token recognition error at: '\"abc'"}));
  // The prefix letter alone was an identifier.
  EXPECT_EQ(lex("r\"abc"), (Tokens{"IDENTIFIER:r", "error@1:token recognition error at: '\"abc'"}));
  EXPECT_EQ(lex("br'x"), (Tokens{"IDENTIFIER:br", "error@2:token recognition error at: ''x'"}));
}

TEST(CelLexerTest, NonAsciiIsNotAnIdentifier) {
  LexResult result = tokenize(U"é");
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].message, "token recognition error at: 'é'");
}

}  // namespace
}  // namespace kapi::cel::parser::lexer_test

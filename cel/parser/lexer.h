#pragma once
// CEL's tokens as cel-go's ANTLR lexer (parser/gen/CEL.g4) produces them, with ANTLR's error behaviour: the
// longest token wins, a failed token falls back to the longest prefix that was a token, and text that starts no
// token is reported ("token recognition error at: '...'") and skipped up to and including the character where
// matching failed.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::cel::parser {

// In the grammar's token-type order: ANTLR lists expected tokens sorted by it.
enum class TokenKind : std::uint8_t {
  kEquals,
  kNotEquals,
  kIn,
  kLess,
  kLessEquals,
  kGreaterEquals,
  kGreater,
  kLogicalAnd,
  kLogicalOr,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kLParen,
  kRParen,
  kDot,
  kComma,
  kMinus,
  kExclam,
  kQuestion,
  kColon,
  kPlus,
  kStar,
  kSlash,
  kPercent,
  kTrue,
  kFalse,
  kNull,
  kNumFloat,
  kNumInt,
  kNumUint,
  kString,
  kBytes,
  kIdentifier,
  kEof,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::int32_t start = 0;  // code-point offsets into the expression, [start, end)
  std::int32_t end = 0;
  std::string text;  // UTF-8
};

struct LexError {
  std::int32_t offset = 0;
  std::string message;  // without the "Syntax error: " prefix
};

struct LexResult {
  std::vector<Token> tokens;  // always ends with kEof
  std::vector<LexError> errors;
  // The text no token covers, [start, end) in code points: what errors skipped (ANTLR's token stream has no such
  // text, unlike whitespace and comments, which it keeps on a hidden channel).
  std::vector<std::pair<std::int32_t, std::int32_t>> skipped;
};

LexResult tokenize(std::u32string_view input);

// How ANTLR names a token kind in "expecting ..." lists: 'literal' or SYMBOLIC_NAME.
std::string_view token_kind_name(TokenKind kind);

// ANTLR's rendering of offending text in messages: \n, \r and \t spelled out, wrapped in single quotes.
std::string quote_token_text(std::string_view text);

std::string to_utf8(std::u32string_view text);

}  // namespace kapi::cel::parser

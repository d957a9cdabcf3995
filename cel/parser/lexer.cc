// The lexer of cel-go's grammar (parser/gen/CEL.g4) with the ANTLR lexer's matching and error recovery.
#include "cel/parser/lexer.h"

#include <optional>

#include "base/utf8.h"

namespace kapi::cel::parser {
namespace {

constexpr char32_t kEnd = 0xFFFFFFFF;  // past the input: matches nothing

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_hex(char32_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ident_start(char32_t c) { return is_letter(c) || c == '_'; }
bool is_ident_part(char32_t c) { return is_ident_start(c) || is_digit(c); }
bool is_quote(char32_t c) { return c == '"' || c == '\''; }
bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

// How far a string literal got: the end of the literal when it matched, or where matching failed, and the end of
// the longest prefix that was itself a whole string (`""` before a third quote).
struct StringScan {
  std::optional<std::size_t> end;
  std::size_t failed_at = 0;
  std::optional<std::size_t> shorter_end;
};

class Lexer {
 public:
  explicit Lexer(std::u32string_view input) : in_(input) {}

  LexResult run() {
    while (pos_ < in_.size()) next();
    out_.tokens.push_back(
        Token{TokenKind::kEof, static_cast<std::int32_t>(in_.size()), static_cast<std::int32_t>(in_.size()), "<EOF>"});
    return std::move(out_);
  }

 private:
  char32_t at(std::size_t i) const { return i < in_.size() ? in_[i] : kEnd; }

  void emit(TokenKind kind, std::size_t start, std::size_t end) {
    out_.tokens.push_back(Token{kind, static_cast<std::int32_t>(start), static_cast<std::int32_t>(end),
                                to_utf8(in_.substr(start, end - start))});
    pos_ = end;
  }

  // No token starts at `start`: ANTLR reports the text up to and including the character it failed on, then goes
  // on after that character.
  void fail(std::size_t start, std::size_t failed_at) {
    std::size_t last = failed_at < in_.size() ? failed_at : in_.size() - 1;
    std::string text = to_utf8(in_.substr(start, last - start + 1));
    out_.errors.push_back(
        LexError{static_cast<std::int32_t>(start), "token recognition error at: " + quote_token_text(text)});
    pos_ = failed_at < in_.size() ? failed_at + 1 : in_.size();
    out_.skipped.emplace_back(static_cast<std::int32_t>(start), static_cast<std::int32_t>(pos_));
  }

  void next() {
    const std::size_t p = pos_;
    const char32_t c = in_[p];
    if (is_space(c)) {
      while (pos_ < in_.size() && is_space(in_[pos_])) ++pos_;
      return;
    }
    switch (c) {
      case '/':
        if (at(p + 1) == '/') {
          while (pos_ < in_.size() && in_[pos_] != '\n') ++pos_;
          return;
        }
        return emit(TokenKind::kSlash, p, p + 1);
      case '=':
        if (at(p + 1) == '=') return emit(TokenKind::kEquals, p, p + 2);
        return fail(p, p + 1);
      case '!':
        if (at(p + 1) == '=') return emit(TokenKind::kNotEquals, p, p + 2);
        return emit(TokenKind::kExclam, p, p + 1);
      case '<':
        if (at(p + 1) == '=') return emit(TokenKind::kLessEquals, p, p + 2);
        return emit(TokenKind::kLess, p, p + 1);
      case '>':
        if (at(p + 1) == '=') return emit(TokenKind::kGreaterEquals, p, p + 2);
        return emit(TokenKind::kGreater, p, p + 1);
      case '&':
        if (at(p + 1) == '&') return emit(TokenKind::kLogicalAnd, p, p + 2);
        return fail(p, p + 1);
      case '|':
        if (at(p + 1) == '|') return emit(TokenKind::kLogicalOr, p, p + 2);
        return fail(p, p + 1);
      case '[': return emit(TokenKind::kLBracket, p, p + 1);
      case ']': return emit(TokenKind::kRBracket, p, p + 1);
      case '{': return emit(TokenKind::kLBrace, p, p + 1);
      case '}': return emit(TokenKind::kRBrace, p, p + 1);
      case '(': return emit(TokenKind::kLParen, p, p + 1);
      case ')': return emit(TokenKind::kRParen, p, p + 1);
      case ',': return emit(TokenKind::kComma, p, p + 1);
      case '-': return emit(TokenKind::kMinus, p, p + 1);
      case '?': return emit(TokenKind::kQuestion, p, p + 1);
      case ':': return emit(TokenKind::kColon, p, p + 1);
      case '+': return emit(TokenKind::kPlus, p, p + 1);
      case '*': return emit(TokenKind::kStar, p, p + 1);
      case '%': return emit(TokenKind::kPercent, p, p + 1);
      case '.':
        if (is_digit(at(p + 1))) {
          std::size_t i = p + 1;
          while (is_digit(at(i))) ++i;
          return emit(TokenKind::kNumFloat, p, exponent_end(i));
        }
        return emit(TokenKind::kDot, p, p + 1);
      default: break;
    }
    if (is_digit(c)) return number(p);
    if (is_quote(c)) return string_literal(p, p, 0, false);
    if ((c == 'r' || c == 'R') && is_quote(at(p + 1))) return string_literal(p, p + 1, 1, true);
    if ((c == 'b' || c == 'B') && is_quote(at(p + 1))) return string_literal(p, p + 1, 1, false);
    if ((c == 'b' || c == 'B') && (at(p + 1) == 'r' || at(p + 1) == 'R') && is_quote(at(p + 2))) {
      return string_literal(p, p + 2, 2, true);
    }
    if (is_ident_start(c)) return identifier(p);
    fail(p, p);
  }

  // The end of an optional exponent starting at i, or i when what follows is not a whole exponent.
  std::size_t exponent_end(std::size_t i) const {
    if (at(i) != 'e' && at(i) != 'E') return i;
    std::size_t j = i + 1;
    if (at(j) == '+' || at(j) == '-') ++j;
    if (!is_digit(at(j))) return i;
    while (is_digit(at(j))) ++j;
    return j;
  }

  void number(std::size_t p) {
    if (in_[p] == '0' && at(p + 1) == 'x' && is_hex(at(p + 2))) {
      std::size_t i = p + 2;
      while (is_hex(at(i))) ++i;
      if (at(i) == 'u' || at(i) == 'U') return emit(TokenKind::kNumUint, p, i + 1);
      return emit(TokenKind::kNumInt, p, i);
    }
    std::size_t i = p;
    while (is_digit(at(i))) ++i;
    if (at(i) == 'u' || at(i) == 'U') return emit(TokenKind::kNumUint, p, i + 1);
    if (at(i) == '.' && is_digit(at(i + 1))) {
      std::size_t j = i + 1;
      while (is_digit(at(j))) ++j;
      return emit(TokenKind::kNumFloat, p, exponent_end(j));
    }
    std::size_t e = exponent_end(i);
    if (e != i) return emit(TokenKind::kNumFloat, p, e);
    emit(TokenKind::kNumInt, p, i);
  }

  void identifier(std::size_t p) {
    std::size_t i = p;
    while (is_ident_part(at(i))) ++i;
    std::u32string_view word = in_.substr(p, i - p);
    TokenKind kind = TokenKind::kIdentifier;
    if (word == U"in") kind = TokenKind::kIn;
    else if (word == U"true") kind = TokenKind::kTrue;
    else if (word == U"false") kind = TokenKind::kFalse;
    else if (word == U"null") kind = TokenKind::kNull;
    emit(kind, p, i);
  }

  // Where a valid escape sequence starting with the backslash at i ends, or where it stops being one.
  struct Escape {
    bool ok;
    std::size_t index;  // the end when ok, the failing character otherwise
  };
  Escape escape(std::size_t i) const {
    const char32_t c = at(i + 1);
    switch (c) {
      case 'a':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
      case 'v':
      case '"':
      case '\'':
      case '\\':
      case '?':
      case '`': return {true, i + 2};
      case '0':
      case '1':
      case '2':
      case '3':
        for (std::size_t j = i + 2; j < i + 4; ++j) {
          if (at(j) < '0' || at(j) > '7') return {false, j};
        }
        return {true, i + 4};
      case 'x':
      case 'X': return hex_digits(i + 2, 2);
      case 'u': return hex_digits(i + 2, 4);
      case 'U': return hex_digits(i + 2, 8);
      default: return {false, i + 1};
    }
  }
  Escape hex_digits(std::size_t from, std::size_t count) const {
    for (std::size_t j = from; j < from + count; ++j) {
      if (!is_hex(at(j))) return {false, j};
    }
    return {true, from + count};
  }

  StringScan scan_string(std::size_t q, bool raw) const {
    const char32_t quote = in_[q];
    StringScan scan;
    if (at(q + 1) == quote && at(q + 2) == quote) {
      scan.shorter_end = q + 2;
      std::size_t i = q + 3;
      while (true) {
        if (at(i) == quote && at(i + 1) == quote && at(i + 2) == quote) {
          scan.end = i + 3;
          return scan;
        }
        if (i >= in_.size()) {
          scan.failed_at = i;
          return scan;
        }
        if (!raw && in_[i] == '\\') {
          Escape e = escape(i);
          if (!e.ok) {
            scan.failed_at = e.index;
            return scan;
          }
          i = e.index;
        } else {
          ++i;
        }
      }
    }
    std::size_t i = q + 1;
    while (true) {
      const char32_t c = at(i);
      if (c == quote) {
        scan.end = i + 1;
        return scan;
      }
      if (c == kEnd || c == '\n' || c == '\r') {
        scan.failed_at = i;
        return scan;
      }
      if (!raw && c == '\\') {
        Escape e = escape(i);
        if (!e.ok) {
          scan.failed_at = e.index;
          return scan;
        }
        i = e.index;
      } else {
        ++i;
      }
    }
  }

  // A string or bytes literal whose opening quote is at q after `prefix_length` prefix letters (r, b, br).
  void string_literal(std::size_t p, std::size_t q, std::size_t prefix_length, bool raw) {
    const bool bytes = prefix_length > 0 && (in_[p] == 'b' || in_[p] == 'B');
    const TokenKind kind = bytes ? TokenKind::kBytes : TokenKind::kString;
    StringScan scan = scan_string(q, raw);
    if (scan.end) return emit(kind, p, *scan.end);
    if (scan.shorter_end) return emit(kind, p, *scan.shorter_end);
    if (prefix_length > 0) return emit(TokenKind::kIdentifier, p, p + prefix_length);
    fail(p, scan.failed_at);
  }

  std::u32string_view in_;
  std::size_t pos_ = 0;
  LexResult out_;
};

}  // namespace

LexResult tokenize(std::u32string_view input) { return Lexer(input).run(); }

std::string_view token_kind_name(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEquals: return "'=='";
    case TokenKind::kNotEquals: return "'!='";
    case TokenKind::kIn: return "'in'";
    case TokenKind::kLess: return "'<'";
    case TokenKind::kLessEquals: return "'<='";
    case TokenKind::kGreaterEquals: return "'>='";
    case TokenKind::kGreater: return "'>'";
    case TokenKind::kLogicalAnd: return "'&&'";
    case TokenKind::kLogicalOr: return "'||'";
    case TokenKind::kLBracket: return "'['";
    case TokenKind::kRBracket: return "']'";
    case TokenKind::kLBrace: return "'{'";
    case TokenKind::kRBrace: return "'}'";
    case TokenKind::kLParen: return "'('";
    case TokenKind::kRParen: return "')'";
    case TokenKind::kDot: return "'.'";
    case TokenKind::kComma: return "','";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kExclam: return "'!'";
    case TokenKind::kQuestion: return "'?'";
    case TokenKind::kColon: return "':'";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kPercent: return "'%'";
    case TokenKind::kTrue: return "'true'";
    case TokenKind::kFalse: return "'false'";
    case TokenKind::kNull: return "'null'";
    case TokenKind::kNumFloat: return "NUM_FLOAT";
    case TokenKind::kNumInt: return "NUM_INT";
    case TokenKind::kNumUint: return "NUM_UINT";
    case TokenKind::kString: return "STRING";
    case TokenKind::kBytes: return "BYTES";
    case TokenKind::kIdentifier: return "IDENTIFIER";
    case TokenKind::kEof: return "<EOF>";
  }
  return "";
}

std::string quote_token_text(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + "'";
}

std::string to_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) base::append_utf8(out, c);
  return out;
}

}  // namespace kapi::cel::parser

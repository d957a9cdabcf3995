#pragma once
// The parser's internals shared by grammar.cc (error handling, entry points) and grammar_rules.cc (one function
// per rule of cel-go's parser/gen/CEL.g4).
#include <algorithm>
#include <array>
#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/operators.h"
#include "cel/parser/grammar.h"

namespace kapi::cel::parser::detail {

namespace op = kapi::cel::operators;




class TokenSet {
 public:
  TokenSet() = default;
  TokenSet(std::initializer_list<TokenKind> kinds) {
    for (TokenKind k : kinds) bits_.set(static_cast<std::size_t>(k));
  }
  bool contains(TokenKind k) const { return bits_.test(static_cast<std::size_t>(k)); }
  TokenSet operator|(const TokenSet& other) const {
    TokenSet out;
    out.bits_ = bits_ | other.bits_;
    return out;
  }
  // ANTLR's rendering: one name alone, several as {a, b} in token-type order.
  std::string to_string() const {
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i <= static_cast<std::size_t>(TokenKind::kEof); ++i) {
      if (bits_.test(i)) names.push_back(token_kind_name(static_cast<TokenKind>(i)));
    }
    if (names.size() == 1) return std::string(names[0]);
    std::string out = "{";
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i) out += ", ";
      out += names[i];
    }
    return out + "}";
  }

 private:
  std::bitset<static_cast<std::size_t>(TokenKind::kEof) + 1> bits_;
};

inline const TokenSet& operand_start() {
  static const TokenSet set{TokenKind::kLBracket, TokenKind::kLBrace,   TokenKind::kLParen,   TokenKind::kDot,
                            TokenKind::kMinus,    TokenKind::kExclam,   TokenKind::kTrue,     TokenKind::kFalse,
                            TokenKind::kNull,     TokenKind::kNumFloat, TokenKind::kNumInt,   TokenKind::kNumUint,
                            TokenKind::kString,   TokenKind::kBytes,    TokenKind::kIdentifier};
  return set;
}

// What may follow a complete operand before the enclosing construct's own tokens.
inline const TokenSet& operand_follow() {
  static const TokenSet set{TokenKind::kDot,     TokenKind::kLBracket,   TokenKind::kStar,         TokenKind::kSlash,
                            TokenKind::kPercent, TokenKind::kPlus,       TokenKind::kMinus,        TokenKind::kEquals,
                            TokenKind::kNotEquals, TokenKind::kLess,     TokenKind::kLessEquals,   TokenKind::kGreater,
                            TokenKind::kGreaterEquals, TokenKind::kIn,   TokenKind::kLogicalAnd,   TokenKind::kLogicalOr,
                            TokenKind::kQuestion};
  return set;
}

inline std::optional<std::string_view> relation_operator(TokenKind k) {
  switch (k) {
    case TokenKind::kLess: return op::kLess;
    case TokenKind::kLessEquals: return op::kLessEquals;
    case TokenKind::kGreaterEquals: return op::kGreaterEquals;
    case TokenKind::kGreater: return op::kGreater;
    case TokenKind::kEquals: return op::kEquals;
    case TokenKind::kNotEquals: return op::kNotEquals;
    case TokenKind::kIn: return op::kIn;
    default: return std::nullopt;
  }
}

inline bool is_reserved(std::string_view id) {
  static constexpr std::array<std::string_view, 21> kReserved = {
      "as",  "break",  "const",   "continue",  "else", "false",  "for", "function", "if",   "import", "in",
      "let", "loop",   "package", "namespace", "null", "return", "true", "var",      "void", "while"};
  return std::find(kReserved.begin(), kReserved.end(), id) != kReserved.end();
}

struct Node {
  Expr expr;
  int depth = 0;  // nesting of the nodes cel-go's visitor counts against its recursion limit
};

struct Abort {};

enum Rule : std::size_t {
  kExprRule,
  kConditionalOrRule,
  kConditionalAndRule,
  kRelationRule,
  kCalcRule,
  kUnaryRule,
  kMemberRule,
  kPrimaryRule,
  kExprListRule,
  kListInitRule,
  kFieldInitializerListRule,
  kMapInitializerListRule,
  kOptExprRule,
  kRuleCount,
};

class Grammar {
 public:
  Grammar(const std::vector<Token>& tokens, Builder& builder, const ParserOptions& options, ParseIssues& issues)
      : tokens_(tokens), b_(builder), options_(options), issues_(issues) {
    max_depth_ = options.max_recursion_depth > 0 ? std::min(options.max_recursion_depth, 1000) : 250;
  }

  Expr parse_start() {
    follow_.push_back(TokenSet{TokenKind::kEof});
    Node root = parse_expr();
    if (la().kind != TokenKind::kEof) {
      if (la(2).kind == TokenKind::kEof) {
        syntax_error(la(), "extraneous input " + display(la()) + " expecting <EOF>");
      } else {
        syntax_error(la(), "mismatched input " + display(la()) + " expecting <EOF>");
        throw Abort{};
      }
    }
    return std::move(root.expr);
  }

 private:
  // cel-go's recursionListener: ANTLR counts how deeply each grammar rule nests in itself.
  class RuleScope {
   public:
    RuleScope(Grammar& g, Rule rule) : g_(g), rule_(rule) {
      if (++g_.rule_depth_[rule_] > g_.max_depth_) g_.rule_nesting_exceeded();
    }
    ~RuleScope() { --g_.rule_depth_[rule_]; }
    RuleScope(const RuleScope&) = delete;
    RuleScope& operator=(const RuleScope&) = delete;

   private:
    Grammar& g_;
    Rule rule_;
  };

  // Pushes what may follow the expression being parsed inside a construct (for ANTLR's missing-token recovery).
  class FollowScope {
   public:
    FollowScope(Grammar& g, TokenSet set) : g_(g) { g_.follow_.push_back(set); }
    ~FollowScope() { g_.follow_.pop_back(); }
    FollowScope(const FollowScope&) = delete;
    FollowScope& operator=(const FollowScope&) = delete;

   private:
    Grammar& g_;
  };

  [[noreturn]] void rule_nesting_exceeded() {
    // The parse is abandoned before cel-go's visitor runs, so only ANTLR's own errors stay.
    std::erase_if(issues_.entries, [](const ParseIssues::Entry& e) { return !e.syntax; });
    issues_.entries.push_back(
        {Issue{0, -1, "expression recursion limit exceeded: " + std::to_string(max_depth_)}, false});
    throw Abort{};
  }

  // cel-go's visitor limit: selects, calls on a receiver, indexes, binary and conditional operators nested.
  int counted(int child_depth) {
    int depth = child_depth + 1;
    if (depth > max_depth_) {
      issues_.entries.push_back({Issue{0, -1, "max recursion depth exceeded"}, false});
      throw Abort{};
    }
    return depth;
  }

  const Token& la(std::size_t k = 1) const {
    std::size_t i = pos_ + k - 1;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool at(TokenKind kind) const { return la().kind == kind; }
  const Token& consume() {
    const Token& t = la();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }

  static std::string display(const Token& t) {
    return t.kind == TokenKind::kEof ? "'<EOF>'" : quote_token_text(t.text);
  }

  void syntax_error(const Token& at_token, std::string message) { syntax_error(at_token.start, std::move(message)); }
  void syntax_error(std::int32_t offset, std::string message) {
    if (!report_syntax_error(issues_, offset, std::move(message))) throw Abort{};
  }

  // ANTLR's NoViableAltException: the text from where the decision started to the token it failed on.
  [[noreturn]] void no_viable_alternative(std::size_t from, const Token& offending) {
    std::string text;
    for (std::size_t i = from; i < tokens_.size() && tokens_[i].kind != TokenKind::kEof; ++i) {
      text += tokens_[i].text;
      if (&tokens_[i] == &offending) break;
    }
    std::string message = "no viable alternative at input " + quote_token_text(text);
    // cel-go rewrites this for a reserved word after one character (a dot), to keep its older messages.
    std::string_view word = std::string_view(text).substr(text.empty() ? 0 : 1);
    if (text.size() > 1 && static_cast<unsigned char>(text[0]) < 0x80 &&
        (word == "true" || word == "false" || word == "null")) {
      message = "mismatched input '" + std::string(word) + "' expecting IDENTIFIER";
    }
    syntax_error(offending, std::move(message));
    throw Abort{};
  }

  // ANTLR's sync() before an optional or repeated block: one stray token is dropped, anything else is fatal.
  void sync(const TokenSet& expected) {
    if (expected.contains(la().kind)) return;
    if (expected.contains(la(2).kind)) {
      syntax_error(la(), "extraneous input " + display(la()) + " expecting " + expected.to_string());
      consume();
      return;
    }
    syntax_error(la(), "mismatched input " + display(la()) + " expecting " + expected.to_string());
    throw Abort{};
  }

  // ANTLR's match() with its inline recovery: drop one stray token, or pretend a missing one was there when what
  // follows fits, or give up. `next` is what may follow the expected token.
  void expect(TokenKind kind, const TokenSet& next) {
    if (at(kind)) {
      consume();
      return;
    }
    const std::string name(token_kind_name(kind));
    if (la(2).kind == kind) {
      syntax_error(la(), "extraneous input " + display(la()) + " expecting " + name);
      consume();
      consume();
      return;
    }
    if (next.contains(la().kind)) {
      syntax_error(la(), "missing " + name + " at " + display(la()));
      return;
    }
    syntax_error(la(), "mismatched input " + display(la()) + " expecting " + name);
    throw Abort{};
  }
  // Expects a closing token; after it comes whatever may follow an operand in the enclosing construct.
  void expect_closing(TokenKind kind) { expect(kind, operand_follow() | follow_.back()); }

  Expr report_error(std::int32_t offset, std::string message) {
    std::int64_t id = b_.new_id(offset);
    issues_.entries.push_back({Issue{id, offset, std::move(message)}, false});
    return Expr{id, std::monostate{}};
  }

  Expr call(std::int64_t id, std::string_view function, std::vector<Expr> args) {
    return Builder::call(id, std::string(function), std::move(args));
  }

  template <typename... Exprs>
  static std::vector<Expr> exprs(Exprs&&... e) {
    std::vector<Expr> out;
    out.reserve(sizeof...(e));
    (out.push_back(std::forward<Exprs>(e)), ...);
    return out;
  }

  Node parse_expr();
  Node parse_conditional_or();
  Node parse_conditional_and();
  Node parse_relation(int min_precedence);
  Node parse_calc(int min_precedence);
  Node parse_unary();
  Node parse_member();
  Node parse_primary();
  Node parse_ident_call_or_message();
  Node parse_message(std::size_t name_tokens);
  Node parse_list();
  Node parse_map();
  Node parse_literal();
  std::vector<Node> parse_call_arguments();
  Expr balanced(std::string_view function, std::vector<Expr>& terms, const std::vector<std::int64_t>& ops,
                std::size_t lo, std::size_t hi);
  Node call_or_macro(std::int64_t id, std::string function, std::optional<Node> target, std::vector<Node> args);

  const std::vector<Token>& tokens_;
  Builder& b_;
  const ParserOptions& options_;
  ParseIssues& issues_;
  std::size_t pos_ = 0;
  int max_depth_ = 250;
  std::array<int, kRuleCount> rule_depth_{};
  std::vector<TokenSet> follow_;

};


}  // namespace kapi::cel::parser::detail

#pragma once
// The parser's internals shared by grammar.cc (error handling, entry points) and grammar_rules.cc (one function
// per rule of cel-go's parser/gen/CEL.g4).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/operators.h"
#include "cel/parser/grammar.h"

namespace kapi::cel::parser::detail {

namespace op = kapi::cel::operators;

// A set of token kinds (ANTLR's IntervalSet, for the few dozen token types of cel-go's grammar).
class TokenSet {
 public:
  constexpr TokenSet() = default;
  constexpr TokenSet(std::initializer_list<TokenKind> kinds) {
    for (TokenKind k : kinds) bits_ |= bit(k);
  }
  constexpr bool contains(TokenKind k) const { return (bits_ & bit(k)) != 0; }
  constexpr TokenSet operator|(const TokenSet& other) const {
    TokenSet out;
    out.bits_ = bits_ | other.bits_;
    return out;
  }
  // ANTLR's rendering: one name alone, several as {a, b} in token-type order.
  std::string to_string() const {
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i <= static_cast<std::size_t>(TokenKind::kEof); ++i) {
      if (contains(static_cast<TokenKind>(i))) names.push_back(token_kind_name(static_cast<TokenKind>(i)));
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
  static constexpr std::uint64_t bit(TokenKind k) { return std::uint64_t{1} << static_cast<unsigned>(k); }
  std::uint64_t bits_ = 0;
};
static_assert(static_cast<unsigned>(TokenKind::kEof) < 64);

inline const TokenSet& operand_start() {
  static const TokenSet set{TokenKind::kLBracket, TokenKind::kLBrace,   TokenKind::kLParen,    TokenKind::kDot,
                            TokenKind::kMinus,    TokenKind::kExclam,   TokenKind::kTrue,      TokenKind::kFalse,
                            TokenKind::kNull,     TokenKind::kNumFloat, TokenKind::kNumInt,    TokenKind::kNumUint,
                            TokenKind::kString,   TokenKind::kBytes,    TokenKind::kIdentifier};
  return set;
}

// What may follow a complete operand before the enclosing construct's own tokens ('?' aside: see after_operand).
inline const TokenSet& operand_follow() {
  static const TokenSet set{
      TokenKind::kDot,           TokenKind::kLBracket, TokenKind::kStar,       TokenKind::kSlash,
      TokenKind::kPercent,       TokenKind::kPlus,     TokenKind::kMinus,      TokenKind::kEquals,
      TokenKind::kNotEquals,     TokenKind::kLess,     TokenKind::kLessEquals, TokenKind::kGreater,
      TokenKind::kGreaterEquals, TokenKind::kIn,       TokenKind::kLogicalAnd, TokenKind::kLogicalOr};
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
      "as",  "break", "const",   "continue",  "else", "false",  "for",  "function", "if",   "import", "in",
      "let", "loop",  "package", "namespace", "null", "return", "true", "var",      "void", "while"};
  return std::find(kReserved.begin(), kReserved.end(), id) != kReserved.end();
}

struct Node {
  Expr expr;
  int depth = 0;  // nesting of the nodes cel-go's visitor counts against its recursion limit
};

// Stops parsing altogether (cel-go's panics: recursion limits, too many errors, recovery limits).
struct Abort {};

// ANTLR's RecognitionException: thrown where the input stops fitting the grammar, caught by the rule it happened
// in, which reports it (unless already recovering) and skips to a token that may follow.
struct RecognitionError {
  std::int32_t offset;
  std::string message;
};

enum Rule : std::size_t {
  kStartRule,
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
  kOptFieldRule,
  kMapInitializerListRule,
  kOptExprRule,
  kLiteralRule,
  kRuleCount,
};

class Grammar {
 public:
  Grammar(std::u32string_view source, const LexResult& lexed, Builder& builder, const ParserOptions& options,
          const ErrorLimits& limits, ParseIssues& issues);

  // start: expr EOF
  Expr parse_start();

  void drop_errors_not_lexed_yet();

 private:
  // A rule invocation: counts nesting as cel-go's recursionListener does and records what may follow the
  // invocation in its caller, which is what ANTLR's recovery skips to.
  class RuleScope {
   public:
    RuleScope(Grammar& g, Rule rule, const TokenSet& follow);
    ~RuleScope();
    RuleScope(const RuleScope&) = delete;
    RuleScope& operator=(const RuleScope&) = delete;

   private:
    Grammar& g_;
    Rule rule_;
  };

  // Runs a rule's body; a RecognitionError inside it is reported and recovered from as ANTLR's generated rule
  // functions do, and the rule then yields an empty result.
  template <typename Body>
  auto rule(Rule rule, const TokenSet& follow, Body&& body) -> decltype(body()) {
    RuleScope scope(*this, rule, follow);
    try {
      return body();
    } catch (const RecognitionError& error) {
      report(error);
      recover(rule);
      return {};
    }
  }

  // What may follow an enclosing construct's inner expression, for ANTLR's missing-token check. A conditional's
  // middle operand is not a full expression, so no '?' may follow it.
  class FollowScope {
   public:
    FollowScope(Grammar& g, TokenSet set, bool conditional_may_follow = true) : g_(g) {
      g_.follow_.push_back(Follow{set, conditional_may_follow});
    }
    ~FollowScope() { g_.follow_.pop_back(); }
    FollowScope(const FollowScope&) = delete;
    FollowScope& operator=(const FollowScope&) = delete;

   private:
    Grammar& g_;
  };
  struct Follow {
    TokenSet set;
    bool conditional_may_follow;
  };

  // Tokens.
  const Token& la(std::size_t k = 1) const {
    std::size_t i = pos_ + k - 1;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool at(TokenKind kind) const { return la().kind == kind; }
  const Token& consume();  // a token the grammar matched: ends error recovery
  void skip();             // a token error recovery throws away
  static std::string display(const Token& t);

  // Errors, as ANTLR's DefaultErrorStrategy reports and recovers from them.
  [[noreturn]] void rule_nesting_exceeded();
  int counted(int child_depth);
  void syntax_error(std::int32_t offset, std::string message);
  void report(const RecognitionError& error);
  void report_unwanted(const TokenSet& expected);
  void recover(Rule rule);
  void count_recovery_attempt();
  TokenSet recovery_set() const;
  void skip_until(const TokenSet& set, bool counted);
  [[noreturn]] void no_viable_alternative(std::size_t from, const Token& offending);
  RecognitionError mismatch(const std::string& expected) const;
  void sync(const TokenSet& expected);
  void sync_loop_back(const TokenSet& expected);
  void expect(TokenKind kind, const TokenSet& next);
  // What may come after a complete operand here: its own operators, then the enclosing construct's tokens.
  TokenSet after_operand() const;
  void expect_closing(TokenKind kind) { expect(kind, after_operand()); }
  Expr report_error(std::int32_t offset, std::string message);

  // Rules. Each nesting level of an expression runs through all of them, so the common path keeps its frames
  // small and the rarer continuations (operators, suffixes, literals) live in functions of their own.
  Node parse_expr(const TokenSet& follow);
  Node parse_conditional_or(const TokenSet& follow);
  Node parse_conditional_and(const TokenSet& follow);
  Node parse_relation(int min_precedence, const TokenSet& follow);
  Node parse_calc(int min_precedence, const TokenSet& follow);
  Node parse_unary(const TokenSet& follow);
  Node parse_member(const TokenSet& follow);
  Node parse_primary(const TokenSet& follow);
  [[gnu::noinline]] Node parse_conditional(Node condition);
  [[gnu::noinline]] Node parse_logical_chain(Node first, TokenKind op);
  [[gnu::noinline]] Node parse_relation_chain(Node lhs);
  [[gnu::noinline]] Node parse_calc_chain(Node lhs, int min_precedence);
  [[gnu::noinline]] Node parse_unary_operators();
  [[gnu::noinline]] Node parse_member_suffixes(Node operand);
  [[gnu::noinline]] Node parse_nested();
  [[gnu::noinline]] Node parse_ident_call_or_message();
  [[gnu::noinline]] Node parse_message(std::size_t name_tokens);
  [[gnu::noinline]] Node parse_list();
  [[gnu::noinline]] Node parse_map();
  [[gnu::noinline]] Node parse_literal();
  std::vector<Node> parse_call_arguments();
  Expr balanced(std::string_view function, std::vector<Expr>& terms, const std::vector<std::int64_t>& ops,
                std::size_t lo, std::size_t hi);
  Node call_or_macro(std::int64_t id, std::string function, std::optional<Node> target, std::vector<Node> args);

  static Expr call(std::int64_t id, std::string_view function, std::vector<Expr> args) {
    return Builder::call(id, std::string(function), std::move(args));
  }
  template <typename... Exprs>
  static std::vector<Expr> exprs(Exprs&&... e) {
    std::vector<Expr> out;
    out.reserve(sizeof...(e));
    (out.push_back(std::forward<Exprs>(e)), ...);
    return out;
  }

  std::u32string_view source_;
  const std::vector<Token>& tokens_;
  const std::vector<std::pair<std::int32_t, std::int32_t>>& skipped_;
  Builder& b_;
  const ParserOptions& options_;
  const ErrorLimits& limits_;
  ParseIssues& issues_;
  std::size_t pos_ = 0;
  int max_depth_ = 250;
  std::array<int, kRuleCount> rule_depth_{};
  std::vector<Follow> follow_;         // innermost construct last
  std::vector<TokenSet> invocations_;  // each active rule's follow in its caller
  bool recovering_ = false;
  std::size_t last_error_index_ = SIZE_MAX;
  std::vector<Rule> last_error_rules_;
  int recovery_attempts_ = 0;
};

}  // namespace kapi::cel::parser::detail

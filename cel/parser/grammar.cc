// Entry points of the grammar and its error handling: ANTLR's DefaultErrorStrategy (single-token deletion and
// insertion, sync before blocks and loops, recovery by skipping to what may follow an active rule) as cel-go
// configures it (parser/parser.go: at most 100 syntax errors, 30 recovery attempts, 256 tokens skipped per
// recovery).
#include "cel/parser/grammar.h"

#include "cel/parser/grammar_impl.h"

namespace kapi::cel::parser {
namespace {

// The most nesting kapi parses whatever the options say (cel-go's -1 means no limit): each level costs the parser
// a few stack frames, and later stages walk the tree recursively.
constexpr int kMaxRecursionDepth = 500;

// cel-go's lookaheadConsumer: one recovery may skip only so many tokens.
struct LookaheadExceeded {};

}  // namespace

bool report_syntax_error(ParseIssues& issues, const ErrorLimits& limits, std::int32_t offset, std::string message) {
  if (issues.syntax_errors >= limits.reporting) {
    issues.entries.push_back(
        {Issue{0, offset, "Syntax error: More than " + std::to_string(limits.reporting) + " syntax errors"}, true});
    return false;
  }
  ++issues.syntax_errors;
  issues.entries.push_back({Issue{0, offset, "Syntax error: " + std::move(message)}, true});
  return true;
}

std::optional<Expr> parse_tokens(std::u32string_view source, const LexResult& lexed, Builder& builder,
                                 const ParserOptions& options, const ErrorLimits& limits, ParseIssues& issues) {
  detail::Grammar grammar(source, lexed, builder, options, limits, issues);
  try {
    return grammar.parse_start();
  } catch (const detail::Abort&) {
    return std::nullopt;
  } catch (const LookaheadExceeded&) {
    grammar.drop_errors_not_lexed_yet();
    issues.entries.push_back(
        {Issue{0, -1, "error recovery token lookahead limit exceeded: " + std::to_string(limits.recovery_lookahead)},
         false});
    return std::nullopt;
  }
}

namespace detail {

Grammar::Grammar(std::u32string_view source, const LexResult& lexed, Builder& builder, const ParserOptions& options,
                 const ErrorLimits& limits, ParseIssues& issues)
    : source_(source),
      tokens_(lexed.tokens),
      skipped_(lexed.skipped),
      b_(builder),
      options_(options),
      limits_(limits),
      issues_(issues) {
  // cel-go: 0 means its default of 250, -1 no limit; kapi keeps a bound so the parser's own recursion stays safe.
  max_depth_ = options.max_recursion_depth > 0    ? std::min(options.max_recursion_depth, kMaxRecursionDepth)
               : options.max_recursion_depth == 0 ? 250
                                                  : kMaxRecursionDepth;
}

Expr Grammar::parse_start() {
  static constexpr TokenSet kNothing;
  static constexpr TokenSet kEnd{TokenKind::kEof};
  follow_.push_back(Follow{kEnd, true});
  return rule(kStartRule, kNothing, [&] {
    Node root = parse_expr(kEnd);
    expect(TokenKind::kEof, TokenSet{});
    return std::move(root.expr);
  });
}

Grammar::RuleScope::RuleScope(Grammar& g, Rule rule, const TokenSet& follow) : g_(g), rule_(rule) {
  if (++g_.rule_depth_[rule_] > g_.max_depth_) g_.rule_nesting_exceeded();
  g_.invocations_.push_back(follow);
}

Grammar::RuleScope::~RuleScope() {
  --g_.rule_depth_[rule_];
  g_.invocations_.pop_back();
}

const Token& Grammar::consume() {
  const Token& t = la();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  recovering_ = false;
  return t;
}

void Grammar::skip() {
  if (pos_ + 1 < tokens_.size()) ++pos_;
}

std::string Grammar::display(const Token& t) {
  return t.kind == TokenKind::kEof ? "'<EOF>'" : quote_token_text(t.text);
}

// ANTLR's lexer runs only as far as the parser has asked for tokens: when the parse stops early, the lexer never
// got to report errors further on.
void Grammar::drop_errors_not_lexed_yet() {
  const std::int32_t reached = la().start;
  std::erase_if(issues_.entries, [&](const ParseIssues::Entry& e) { return e.syntax && e.issue.offset > reached; });
}

void Grammar::rule_nesting_exceeded() {
  // The parse is abandoned before cel-go's visitor runs, so only ANTLR's own errors stay.
  drop_errors_not_lexed_yet();
  std::erase_if(issues_.entries, [&](const ParseIssues::Entry& e) { return !e.syntax; });
  issues_.entries.push_back(
      {Issue{0, -1, "expression recursion limit exceeded: " + std::to_string(max_depth_)}, false});
  throw Abort{};
}

// cel-go's visitor limit: selects, calls on a receiver, indexes, binary and conditional operators nested.
int Grammar::counted(int child_depth) {
  int depth = child_depth + 1;
  if (depth > max_depth_) {
    issues_.entries.push_back({Issue{0, -1, "max recursion depth exceeded"}, false});
    throw Abort{};
  }
  return depth;
}

void Grammar::syntax_error(std::int32_t offset, std::string message) {
  if (!report_syntax_error(issues_, limits_, offset, std::move(message))) throw Abort{};
}

void Grammar::report(const RecognitionError& error) {
  if (recovering_) return;
  recovering_ = true;
  syntax_error(error.offset, error.message);
}

void Grammar::report_unwanted(const TokenSet& expected) {
  if (recovering_) return;
  recovering_ = true;
  syntax_error(la().start, "extraneous input " + display(la()) + " expecting " + expected.to_string());
}

void Grammar::count_recovery_attempt() {
  if (recovery_attempts_++ == limits_.recovery_attempts) {
    syntax_error(la().start, "error recovery attempt limit exceeded: " + std::to_string(limits_.recovery_attempts));
    throw Abort{};
  }
}

TokenSet Grammar::after_operand() const {
  TokenSet set = operand_follow() | follow_.back().set;
  return follow_.back().conditional_may_follow ? set | TokenSet{TokenKind::kQuestion} : set;
}

TokenSet Grammar::recovery_set() const {
  TokenSet set;
  for (const TokenSet& follow : invocations_) set = set | follow;
  return set;
}

void Grammar::skip_until(const TokenSet& set, bool counted) {
  int skipped = 0;
  while (!at(TokenKind::kEof) && !set.contains(la().kind)) {
    if (counted && skipped++ >= limits_.recovery_lookahead) throw LookaheadExceeded{};
    skip();
  }
}

void Grammar::recover(Rule rule) {
  count_recovery_attempt();
  // Skip at least one token when failing again where the last error was, so recovery always moves on.
  const bool again = last_error_index_ == pos_ &&
                     std::find(last_error_rules_.begin(), last_error_rules_.end(), rule) != last_error_rules_.end();
  if (again) skip();
  if (last_error_index_ != pos_) last_error_rules_.clear();
  last_error_index_ = pos_;
  last_error_rules_.push_back(rule);
  skip_until(recovery_set(), true);
}

void Grammar::no_viable_alternative(std::size_t from, const Token& offending) {
  // The text of every token from where the decision started to the one it failed on, whitespace and comments
  // included (ANTLR's token stream text), or <EOF> when it started at the end.
  const Token& start = tokens_[std::min(from, tokens_.size() - 1)];
  std::string text = "<EOF>";
  if (start.kind != TokenKind::kEof) {
    const std::size_t end =
        static_cast<std::size_t>(offending.kind == TokenKind::kEof ? offending.start : offending.end);
    // Skipped ranges are in order: walk them alongside the text.
    std::u32string kept;
    auto range = std::lower_bound(
        skipped_.begin(), skipped_.end(), start.start,
        [](const std::pair<std::int32_t, std::int32_t>& r, std::int32_t offset) { return r.second <= offset; });
    for (std::size_t i = static_cast<std::size_t>(start.start); i < end; ++i) {
      while (range != skipped_.end() && static_cast<std::size_t>(range->second) <= i) ++range;
      if (range != skipped_.end() && static_cast<std::size_t>(range->first) <= i) continue;
      kept += source_[i];
    }
    text = to_utf8(kept);
  }
  std::string message = "no viable alternative at input " + quote_token_text(text);
  // cel-go rewrites this for a reserved word after one character (a dot), to keep its older messages.
  std::string_view word = std::string_view(text).substr(text.empty() ? 0 : 1);
  if (text.size() > 1 && static_cast<unsigned char>(text[0]) < 0x80 &&
      (word == "true" || word == "false" || word == "null")) {
    message = "mismatched input '" + std::string(word) + "' expecting IDENTIFIER";
  }
  throw RecognitionError{offending.start, std::move(message)};
}

RecognitionError Grammar::mismatch(const std::string& expected) const {
  return RecognitionError{la().start, "mismatched input " + display(la()) + " expecting " + expected};
}

void Grammar::sync(const TokenSet& expected) {
  if (recovering_ || expected.contains(la().kind)) return;
  if (expected.contains(la(2).kind)) {
    report_unwanted(expected);
    skip();
    recovering_ = false;
    return;
  }
  throw mismatch(expected.to_string());
}

void Grammar::sync_loop_back(const TokenSet& expected) {
  if (recovering_ || expected.contains(la().kind)) return;
  report_unwanted(expected);
  skip_until(expected | recovery_set(), false);
}

void Grammar::expect(TokenKind kind, const TokenSet& next) {
  if (at(kind)) {
    consume();
    return;
  }
  count_recovery_attempt();
  const std::string name(token_kind_name(kind));
  if (la(2).kind == kind) {
    if (!recovering_) {
      recovering_ = true;
      syntax_error(la().start, "extraneous input " + display(la()) + " expecting " + name);
    }
    skip();
    consume();
    return;
  }
  if (next.contains(la().kind)) {
    if (!recovering_) {
      recovering_ = true;
      syntax_error(la().start, "missing " + name + " at " + display(la()));
    }
    return;
  }
  throw mismatch(name);
}

Expr Grammar::report_error(std::int32_t offset, std::string message) {
  std::int64_t id = b_.new_id(offset);
  issues_.entries.push_back({Issue{id, offset, std::move(message)}, false});
  return Expr{id, std::monostate{}};
}

}  // namespace detail
}  // namespace kapi::cel::parser

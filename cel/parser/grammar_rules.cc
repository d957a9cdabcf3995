// One function per rule of cel-go's grammar (parser/gen/CEL.g4), building nodes in the order cel-go's visitor
// (parser/parser.go) visits the parse tree, so ids and positions match cel-go's. Each rule passes on what may
// follow the rules it invokes, which is what ANTLR's error recovery skips to.
#include "cel/parser/grammar_impl.h"
#include "cel/parser/literals.h"

namespace kapi::cel::parser::detail {
namespace {

constexpr TokenSet kNothing;
constexpr TokenSet kQuestion{TokenKind::kQuestion};
constexpr TokenSet kColon{TokenKind::kColon};
constexpr TokenSet kOr{TokenKind::kLogicalOr};
constexpr TokenSet kAnd{TokenKind::kLogicalAnd};
constexpr TokenSet kRelationOps{TokenKind::kLess,    TokenKind::kLessEquals, TokenKind::kGreaterEquals,
                                TokenKind::kGreater, TokenKind::kEquals,     TokenKind::kNotEquals,
                                TokenKind::kIn};
constexpr TokenSet kCalcOps{TokenKind::kStar, TokenKind::kSlash, TokenKind::kPercent, TokenKind::kPlus,
                            TokenKind::kMinus};
constexpr TokenSet kMemberOps{TokenKind::kDot, TokenKind::kLBracket};
constexpr TokenSet kComma{TokenKind::kComma};
constexpr TokenSet kRParen{TokenKind::kRParen};
constexpr TokenSet kRBracket{TokenKind::kRBracket};
constexpr TokenSet kCommaRBracket{TokenKind::kComma, TokenKind::kRBracket};
constexpr TokenSet kCommaRBrace{TokenKind::kComma, TokenKind::kRBrace};

bool is_number(TokenKind k) { return k == TokenKind::kNumInt || k == TokenKind::kNumFloat; }

// Tokens a member can start with, other than a number's sign.
bool starts_member(TokenKind k) {
  return k != TokenKind::kMinus && k != TokenKind::kExclam && operand_start().contains(k);
}

}  // namespace

Node Grammar::parse_expr(const TokenSet& follow) {
  return rule(kExprRule, follow, [&]() -> Node {
    Node condition = parse_conditional_or(kQuestion);
    if (!at(TokenKind::kQuestion)) return condition;
    return parse_conditional(std::move(condition));
  });
}

// `condition ? if_true : if_false` after the condition.
Node Grammar::parse_conditional(Node condition) {
  const std::int64_t id = b_.new_id(consume().start);
  Node if_true = [&] {
    FollowScope inner(*this, kColon, false);
    return parse_conditional_or(kColon);
  }();
  expect(TokenKind::kColon, operand_start());
  Node if_false = parse_expr(kNothing);
  int depth = counted(std::max({condition.depth, if_true.depth, if_false.depth}));
  return {
      call(id, op::kConditional, exprs(std::move(condition.expr), std::move(if_true.expr), std::move(if_false.expr))),
      depth};
}

// cel-go balances chains of || and && into a tree of logarithmic depth.
Expr Grammar::balanced(std::string_view function, std::vector<Expr>& terms, const std::vector<std::int64_t>& ops,
                       std::size_t lo, std::size_t hi) {
  const std::size_t mid = (lo + hi + 1) / 2;
  Expr left = mid == lo ? std::move(terms[mid]) : balanced(function, terms, ops, lo, mid - 1);
  Expr right = mid == hi ? std::move(terms[mid + 1]) : balanced(function, terms, ops, mid + 1, hi);
  return call(ops[mid], function, exprs(std::move(left), std::move(right)));
}

Node Grammar::parse_conditional_or(const TokenSet& follow) {
  return rule(kConditionalOrRule, follow, [&]() -> Node {
    Node first = parse_conditional_and(kOr);
    if (!at(TokenKind::kLogicalOr)) return first;
    return parse_logical_chain(std::move(first), TokenKind::kLogicalOr);
  });
}

Node Grammar::parse_conditional_and(const TokenSet& follow) {
  return rule(kConditionalAndRule, follow, [&]() -> Node {
    Node first = parse_relation(0, kAnd);
    if (!at(TokenKind::kLogicalAnd)) return first;
    return parse_logical_chain(std::move(first), TokenKind::kLogicalAnd);
  });
}

// `first (op next)*` for || and &&: the operators are numbered after the term that follows them.
Node Grammar::parse_logical_chain(Node first, TokenKind op) {
  const bool is_or = op == TokenKind::kLogicalOr;
  std::vector<Expr> terms;
  std::vector<std::int64_t> ops;
  int depth = first.depth;
  terms.push_back(std::move(first.expr));
  while (at(op)) {
    const std::int32_t op_offset = consume().start;
    Node next = is_or ? parse_conditional_and(kOr) : parse_relation(0, kAnd);
    ops.push_back(b_.new_id(op_offset));
    depth = std::max(depth, next.depth);
    terms.push_back(std::move(next.expr));
  }
  return {balanced(is_or ? op::kLogicalOr : op::kLogicalAnd, terms, ops, 0, ops.size() - 1), depth};
}

// ANTLR's left-recursive `relation op relation`: a loop at precedence 1 whose right operand is a relation at
// precedence 2 (so relations associate to the left).
Node Grammar::parse_relation(int min_precedence, const TokenSet& follow) {
  return rule(kRelationRule, follow, [&]() -> Node {
    Node lhs = parse_calc(0, kRelationOps);
    if (min_precedence > 1 || !relation_operator(la().kind)) return lhs;
    return parse_relation_chain(std::move(lhs));
  });
}

Node Grammar::parse_relation_chain(Node lhs) {
  while (std::optional<std::string_view> function = relation_operator(la().kind)) {
    const std::int64_t id = b_.new_id(consume().start);
    Node rhs = parse_relation(2, kRelationOps);
    int depth = counted(std::max(lhs.depth, rhs.depth));
    lhs = {call(id, *function, exprs(std::move(lhs.expr), std::move(rhs.expr))), depth};
  }
  return lhs;
}

// `calc op=('*'|'/'|'%') calc | calc op=('+'|'-') calc`: multiplication at precedence 2, addition at 1.
Node Grammar::parse_calc(int min_precedence, const TokenSet& follow) {
  return rule(kCalcRule, follow, [&]() -> Node {
    Node lhs = parse_unary(kCalcOps);
    if (!kCalcOps.contains(la().kind)) return lhs;
    return parse_calc_chain(std::move(lhs), min_precedence);
  });
}

Node Grammar::parse_calc_chain(Node lhs, int min_precedence) {
  while (true) {
    std::string_view function;
    int rhs_precedence = 0;
    switch (la().kind) {
      case TokenKind::kStar:
        function = op::kMultiply;
        rhs_precedence = 3;
        break;
      case TokenKind::kSlash:
        function = op::kDivide;
        rhs_precedence = 3;
        break;
      case TokenKind::kPercent:
        function = op::kModulo;
        rhs_precedence = 3;
        break;
      case TokenKind::kPlus:
        function = op::kAdd;
        rhs_precedence = 2;
        break;
      case TokenKind::kMinus:
        function = op::kSubtract;
        rhs_precedence = 2;
        break;
      default: return lhs;
    }
    if (rhs_precedence - 1 < min_precedence) return lhs;
    const std::int64_t id = b_.new_id(consume().start);
    Node rhs = parse_calc(rhs_precedence, kCalcOps);
    int depth = counted(std::max(lhs.depth, rhs.depth));
    lhs = {call(id, function, exprs(std::move(lhs.expr), std::move(rhs.expr))), depth};
  }
}

// `member | '!'+ member | '-'+ member`. A single '-' before a number is the number's sign (ANTLR prefers the
// first alternative), so `-1` is a constant; an even run of operators cancels out without any node. The
// decisions between the alternatives look as far ahead as ANTLR's do, so errors name the same text.
Node Grammar::parse_unary(const TokenSet& follow) {
  return rule(kUnaryRule, follow, [&]() -> Node {
    sync(operand_start());
    const TokenKind kind = la().kind;
    if ((kind == TokenKind::kMinus && is_number(la(2).kind)) ||
        (kind != TokenKind::kExclam && kind != TokenKind::kMinus)) {
      return parse_member(kNothing);
    }
    return parse_unary_operators();
  });
}

// A run of '!' or '-' before a member.
Node Grammar::parse_unary_operators() {
  const TokenKind kind = la().kind;
  if (kind == TokenKind::kMinus && la(2).kind != TokenKind::kMinus && !starts_member(la(2).kind)) {
    no_viable_alternative(pos_, la(2));
  }
  const std::int32_t first_offset = la().start;
  std::size_t count = 0;
  while (true) {
    consume();
    ++count;
    if (kind == TokenKind::kExclam) {
      sync_loop_back(operand_start());
      if (at(TokenKind::kExclam)) continue;
      break;
    }
    if (!at(TokenKind::kMinus)) break;
    const TokenKind next = la(2).kind;
    if (next != TokenKind::kMinus && !is_number(next) && !starts_member(next)) no_viable_alternative(pos_, la(2));
  }
  if (count % 2 == 0) return parse_member(kNothing);
  const std::int64_t id = b_.new_id(first_offset);
  Node operand = parse_member(kNothing);
  return {call(id, kind == TokenKind::kExclam ? op::kLogicalNot : op::kNegate, exprs(std::move(operand.expr))),
          operand.depth};
}

Node Grammar::parse_member(const TokenSet& follow) {
  return rule(kMemberRule, follow, [&]() -> Node {
    Node operand = parse_primary(kMemberOps);
    if (!at(TokenKind::kDot) && !at(TokenKind::kLBracket)) return operand;
    return parse_member_suffixes(std::move(operand));
  });
}

// `.field`, `.?field`, `.function(args)`, `[index]`, `[?index]` after a primary.
Node Grammar::parse_member_suffixes(Node operand) {
  while (true) {
    if (at(TokenKind::kDot)) {
      const std::size_t dot_index = pos_;
      const Token& dot = la();
      const bool optional = la(2).kind == TokenKind::kQuestion;
      if (!optional && la(2).kind != TokenKind::kIdentifier) no_viable_alternative(dot_index, la(2));
      consume();
      if (optional) consume();
      const Token& name = la();
      expect(TokenKind::kIdentifier, after_operand());
      if (!optional && at(TokenKind::kLParen)) {
        const std::int64_t id = b_.new_id(consume().start);
        std::vector<Node> args = parse_call_arguments();
        operand = call_or_macro(id, name.text, std::move(operand), std::move(args));
        continue;
      }
      int depth = counted(operand.depth);
      if (optional) {
        if (!options_.enable_optional_syntax) {
          operand = {report_error(dot.start, "unsupported syntax '.?'"), depth};
          continue;
        }
        Expr field = Builder::constant(b_.new_id(name.start), name.text);
        const std::int64_t id = b_.new_id(dot.start);
        operand = {call(id, op::kOptSelect, exprs(std::move(operand.expr), std::move(field))), depth};
        continue;
      }
      operand = {Builder::select(b_.new_id(dot.start), std::move(operand.expr), name.text), depth};
      continue;
    }
    if (at(TokenKind::kLBracket)) {
      const Token& open = consume();
      sync(operand_start() | kQuestion);
      const bool optional = at(TokenKind::kQuestion);
      if (optional) consume();
      const std::int64_t id = b_.new_id(open.start);
      Node index = [&] {
        FollowScope inner(*this, kRBracket);
        return parse_expr(kRBracket);
      }();
      expect_closing(TokenKind::kRBracket);
      int depth = counted(std::max(operand.depth, index.depth));
      if (optional && !options_.enable_optional_syntax) {
        operand = {report_error(open.start, "unsupported syntax '[?'"), depth};
        continue;
      }
      operand = {call(id, optional ? op::kOptIndex : op::kIndex, exprs(std::move(operand.expr), std::move(index.expr))),
                 depth};
      continue;
    }
    return operand;
  }
}

Node Grammar::parse_primary(const TokenSet& follow) {
  return rule(kPrimaryRule, follow, [&]() -> Node {
    static const TokenSet kPrimaryStart = [] {
      TokenSet set;
      for (std::size_t i = 0; i <= static_cast<std::size_t>(TokenKind::kEof); ++i) {
        auto k = static_cast<TokenKind>(i);
        if (k != TokenKind::kExclam && operand_start().contains(k)) set = set | TokenSet{k};
      }
      return set;
    }();
    sync(kPrimaryStart);
    switch (la().kind) {
      case TokenKind::kDot:
      case TokenKind::kIdentifier: return parse_ident_call_or_message();
      case TokenKind::kLParen: return parse_nested();
      case TokenKind::kLBracket: return parse_list();
      case TokenKind::kLBrace: return parse_map();
      default: return rule(kLiteralRule, kNothing, [&] { return parse_literal(); });
    }
  });
}

// `'(' expr ')'`
Node Grammar::parse_nested() {
  consume();
  Node inner = [&] {
    FollowScope scope(*this, kRParen);
    return parse_expr(kRParen);
  }();
  expect_closing(TokenKind::kRParen);
  return inner;
}

Node Grammar::parse_ident_call_or_message() {
  const std::size_t start_index = pos_;
  const bool leading_dot = at(TokenKind::kDot);
  const std::size_t name_at = leading_dot ? 2 : 1;
  if (la(name_at).kind != TokenKind::kIdentifier) no_viable_alternative(start_index, la(name_at));
  // A dotted name followed by '{' is a message literal.
  std::size_t last = name_at;
  while (la(last + 1).kind == TokenKind::kDot && la(last + 2).kind == TokenKind::kIdentifier) last += 2;
  if (la(last + 1).kind == TokenKind::kLBrace) return parse_message(last);

  const Token& first = la();
  if (leading_dot) consume();
  const Token& id_token = consume();
  std::optional<Expr> error;
  if (is_reserved(id_token.text)) error = report_error(first.start, "reserved identifier: " + id_token.text);
  std::string name = (leading_dot ? "." : "") + id_token.text;
  if (!at(TokenKind::kLParen)) {
    if (error) return {std::move(*error), 0};
    return {Builder::ident(b_.new_id(id_token.start), std::move(name)), 0};
  }
  const Token& open = consume();
  const std::int64_t id = error ? 0 : b_.new_id(open.start);
  std::vector<Node> args = parse_call_arguments();
  if (error) return {std::move(*error), 0};
  return call_or_macro(id, std::move(name), std::nullopt, std::move(args));
}

// `'(' exprList? ')'` after the '(' was matched.
std::vector<Node> Grammar::parse_call_arguments() {
  sync(operand_start() | kRParen);
  std::vector<Node> args;
  if (!at(TokenKind::kRParen)) {
    FollowScope scope(*this, TokenSet{TokenKind::kComma, TokenKind::kRParen});
    args = rule(kExprListRule, kRParen, [&] {
      std::vector<Node> list;
      list.push_back(parse_expr(kComma));
      while (at(TokenKind::kComma)) {
        consume();
        list.push_back(parse_expr(kComma));
      }
      return list;
    });
  }
  expect_closing(TokenKind::kRParen);
  return args;
}

Node Grammar::call_or_macro(std::int64_t id, std::string function, std::optional<Node> target, std::vector<Node> args) {
  int depth = target ? target->depth : 0;
  std::vector<Expr> arg_exprs;
  arg_exprs.reserve(args.size());
  for (Node& arg : args) {
    depth = std::max(depth, arg.depth);
    arg_exprs.push_back(std::move(arg.expr));
  }
  if (target) depth = counted(depth);  // a call on a receiver counts, a global one does not
  std::optional<Expr> target_expr;
  if (target) target_expr = std::move(target->expr);
  std::optional<MacroResult> macro = expand_macro(b_, options_, id, function, target_expr, arg_exprs);
  if (macro && macro->error) {
    std::int32_t offset = b_.offset_of(macro->error->expr_id);
    if (offset < 0) offset = b_.offset_of(id);
    b_.delete_id(id);
    return {report_error(offset, std::move(macro->error->message)), depth};
  }
  if (macro && macro->expansion) {
    b_.delete_id(id);
    return {std::move(*macro->expansion), depth};
  }
  if (target_expr) {
    return {Builder::member_call(id, std::move(function), std::move(*target_expr), std::move(arg_exprs)), depth};
  }
  return {Builder::call(id, std::move(function), std::move(arg_exprs)), depth};
}

// `'.'? IDENTIFIER ('.' IDENTIFIER)* '{' fieldInitializerList? ','? '}'`
Node Grammar::parse_message(std::size_t name_tokens) {
  std::string name;
  for (std::size_t i = 0; i < name_tokens; ++i) name += consume().text;
  const std::int64_t id = b_.new_id(consume().start);
  StructExpr message{std::move(name), {}};
  int depth = 0;
  sync(TokenSet{TokenKind::kRBrace, TokenKind::kComma, TokenKind::kQuestion, TokenKind::kIdentifier});
  if (at(TokenKind::kQuestion) || at(TokenKind::kIdentifier)) {
    FollowScope scope(*this, kCommaRBrace);
    rule(kFieldInitializerListRule, kCommaRBrace, [&] {
      while (true) {
        const std::int32_t field_start = la().start;
        const bool optional = at(TokenKind::kQuestion);
        std::string field_name = rule(kOptFieldRule, kColon, [&] {
          if (optional) consume();
          std::string text = la().text;
          expect(TokenKind::kIdentifier, kColon);
          return text;
        });
        const std::int32_t colon = la().start;
        expect(TokenKind::kColon, operand_start());
        const std::int64_t field_id = b_.new_id(colon);
        std::optional<Expr> error;
        if (optional && !options_.enable_optional_syntax) error = report_error(field_start, "unsupported syntax '?'");
        Node value = parse_expr(kComma);
        depth = std::max(depth, value.depth);
        if (!error) {
          message.fields.push_back(
              StructField{field_id, std::move(field_name), std::make_unique<Expr>(std::move(value.expr)), optional});
        }
        if (at(TokenKind::kComma) && (la(2).kind == TokenKind::kQuestion || la(2).kind == TokenKind::kIdentifier)) {
          consume();
          continue;
        }
        return 0;
      }
    });
  }
  sync(kCommaRBrace);
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBrace);
  return {Expr{id, std::move(message)}, depth};
}

// `'[' listInit? ','? ']'`
Node Grammar::parse_list() {
  const std::int64_t id = b_.new_id(consume().start);
  ListExpr list;
  int depth = 0;
  const TokenSet element_start = operand_start() | kQuestion;
  sync(element_start | kCommaRBracket);
  if (element_start.contains(la().kind)) {
    FollowScope scope(*this, kCommaRBracket);
    rule(kListInitRule, kCommaRBracket, [&] {
      while (true) {
        rule(kOptExprRule, kComma, [&] {
          sync(element_start);
          const Token& start = la();
          const bool optional = at(TokenKind::kQuestion);
          if (optional) consume();
          Node element = parse_expr(kNothing);
          depth = std::max(depth, element.depth);
          if (optional) {
            if (!options_.enable_optional_syntax) {
              report_error(start.start, "unsupported syntax '?'");
            } else {
              list.optional_indices.push_back(static_cast<std::int32_t>(list.elements.size()));
            }
          }
          list.elements.push_back(std::move(element.expr));
          return 0;
        });
        if (at(TokenKind::kComma) && element_start.contains(la(2).kind)) {
          consume();
          continue;
        }
        return 0;
      }
    });
  }
  sync(kCommaRBracket);
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBracket);
  return {Expr{id, std::move(list)}, depth};
}

// `'{' mapInitializerList? ','? '}'`
Node Grammar::parse_map() {
  const std::int64_t id = b_.new_id(consume().start);
  MapExpr map;
  int depth = 0;
  const TokenSet entry_start = operand_start() | kQuestion;
  sync(entry_start | kCommaRBrace);
  if (entry_start.contains(la().kind)) {
    FollowScope scope(*this, kCommaRBrace);
    rule(kMapInitializerListRule, kCommaRBrace, [&] {
      while (true) {
        // cel-go numbers the entry (at its ':') before the key.
        const std::int64_t entry_id = b_.new_id(-1);
        const std::int32_t start = la().start;
        const bool optional = at(TokenKind::kQuestion);
        Node key = rule(kOptExprRule, kColon, [&] {
          sync(entry_start);
          if (optional) consume();
          FollowScope inner(*this, kColon);
          return parse_expr(kNothing);
        });
        b_.info().positions[entry_id] = la().start;
        expect(TokenKind::kColon, operand_start());
        std::optional<Expr> error;
        if (optional && !options_.enable_optional_syntax) error = report_error(start, "unsupported syntax '?'");
        Node value = parse_expr(kComma);
        depth = std::max({depth, key.depth, value.depth});
        if (!error) {
          map.entries.push_back(MapEntry{entry_id, std::make_unique<Expr>(std::move(key.expr)),
                                         std::make_unique<Expr>(std::move(value.expr)), optional});
        }
        if (at(TokenKind::kComma) && entry_start.contains(la(2).kind)) {
          consume();
          continue;
        }
        return 0;
      }
    });
  }
  sync(kCommaRBrace);
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBrace);
  return {Expr{id, std::move(map)}, depth};
}

Node Grammar::parse_literal() {
  const Token& first = la();
  std::string_view sign;
  if (first.kind == TokenKind::kMinus) {
    if (!is_number(la(2).kind)) no_viable_alternative(pos_, la(2));
    sign = "-";
    consume();
  }
  const Token& token = la();
  auto literal = [&](Constant value) { return Node{Builder::constant(b_.new_id(first.start), std::move(value)), 0}; };
  switch (token.kind) {
    case TokenKind::kNumInt: {
      consume();
      std::string_view digits = token.text;
      std::optional<std::int64_t> value = parse_int_literal(sign, digits);
      if (!value) return {report_error(first.start, "invalid int literal"), 0};
      return literal(*value);
    }
    case TokenKind::kNumUint: {
      consume();
      std::string_view digits = token.text;
      digits.remove_suffix(1);
      std::optional<std::uint64_t> value = parse_uint_literal(digits);
      if (!value) return {report_error(first.start, "invalid uint literal"), 0};
      return literal(*value);
    }
    case TokenKind::kNumFloat: {
      consume();
      std::optional<double> value = parse_double_literal(sign, token.text);
      if (!value) return {report_error(first.start, "invalid double literal"), 0};
      return literal(*value);
    }
    case TokenKind::kString: {
      consume();
      Unescaped text = unescape_literal(token.text, false);
      if (!text.value) {
        report_error(first.start, text.error);
        return literal(token.text);
      }
      return literal(std::move(*text.value));
    }
    case TokenKind::kBytes: {
      consume();
      Unescaped text = unescape_literal(std::string_view(token.text).substr(1), true);
      if (!text.value) {
        report_error(first.start, text.error);
        return literal(BytesLiteral{token.text.substr(1)});
      }
      return literal(BytesLiteral{std::move(*text.value)});
    }
    case TokenKind::kTrue: consume(); return literal(true);
    case TokenKind::kFalse: consume(); return literal(false);
    case TokenKind::kNull: consume(); return literal(NullLiteral{});
    default: no_viable_alternative(pos_, token);
  }
}

}  // namespace kapi::cel::parser::detail

// One function per rule of cel-go's grammar (parser/gen/CEL.g4), building nodes in the order cel-go's visitor
// (parser/parser.go) visits the parse tree, so ids and positions match cel-go's.
#include "cel/parser/grammar_impl.h"
#include "cel/parser/literals.h"

namespace kapi::cel::parser::detail {

namespace op = kapi::cel::operators;

Node Grammar::parse_expr() {
  RuleScope scope(*this, kExprRule);
  Node condition = parse_conditional_or();
  if (!at(TokenKind::kQuestion)) return condition;
  const std::int64_t id = b_.new_id(consume().start);
  Node if_true = [&] {
    FollowScope follow(*this, TokenSet{TokenKind::kColon});
    return parse_conditional_or();
  }();
  expect(TokenKind::kColon, operand_start());
  Node if_false = parse_expr();
  int depth = counted(std::max({condition.depth, if_true.depth, if_false.depth}));
  return {call(id, op::kConditional, exprs(std::move(condition.expr), std::move(if_true.expr),
                                            std::move(if_false.expr))),
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

Node Grammar::parse_conditional_or() {
  RuleScope scope(*this, kConditionalOrRule);
  Node first = parse_conditional_and();
  if (!at(TokenKind::kLogicalOr)) return first;
  std::vector<Expr> terms;
  std::vector<std::int64_t> ops;
  int depth = first.depth;
  terms.push_back(std::move(first.expr));
  while (at(TokenKind::kLogicalOr)) {
    const std::int32_t op_offset = consume().start;
    Node next = parse_conditional_and();
    ops.push_back(b_.new_id(op_offset));
    depth = std::max(depth, next.depth);
    terms.push_back(std::move(next.expr));
  }
  return {balanced(op::kLogicalOr, terms, ops, 0, ops.size() - 1), depth};
}

Node Grammar::parse_conditional_and() {
  RuleScope scope(*this, kConditionalAndRule);
  Node first = parse_relation(0);
  if (!at(TokenKind::kLogicalAnd)) return first;
  std::vector<Expr> terms;
  std::vector<std::int64_t> ops;
  int depth = first.depth;
  terms.push_back(std::move(first.expr));
  while (at(TokenKind::kLogicalAnd)) {
    const std::int32_t op_offset = consume().start;
    Node next = parse_relation(0);
    ops.push_back(b_.new_id(op_offset));
    depth = std::max(depth, next.depth);
    terms.push_back(std::move(next.expr));
  }
  return {balanced(op::kLogicalAnd, terms, ops, 0, ops.size() - 1), depth};
}

// ANTLR's left-recursive `relation op relation`: a loop at precedence 1 whose right operand is a relation at
// precedence 2 (so relations associate to the left).
Node Grammar::parse_relation(int min_precedence) {
  RuleScope scope(*this, kRelationRule);
  Node lhs = parse_calc(0);
  while (min_precedence <= 1) {
    std::optional<std::string_view> function = relation_operator(la().kind);
    if (!function) break;
    const std::int64_t id = b_.new_id(consume().start);
    Node rhs = parse_relation(2);
    int depth = counted(std::max(lhs.depth, rhs.depth));
    lhs = {call(id, *function, exprs(std::move(lhs.expr), std::move(rhs.expr))), depth};
  }
  return lhs;
}

// `calc op=('*'|'/'|'%') calc | calc op=('+'|'-') calc`: multiplication at precedence 2, addition at 1.
Node Grammar::parse_calc(int min_precedence) {
  RuleScope scope(*this, kCalcRule);
  Node lhs = parse_unary();
  while (true) {
    std::string_view function;
    int rhs_precedence = 0;
    switch (la().kind) {
      case TokenKind::kStar: function = op::kMultiply; rhs_precedence = 3; break;
      case TokenKind::kSlash: function = op::kDivide; rhs_precedence = 3; break;
      case TokenKind::kPercent: function = op::kModulo; rhs_precedence = 3; break;
      case TokenKind::kPlus: function = op::kAdd; rhs_precedence = 2; break;
      case TokenKind::kMinus: function = op::kSubtract; rhs_precedence = 2; break;
      default: return lhs;
    }
    if (rhs_precedence - 1 < min_precedence) return lhs;
    const std::int64_t id = b_.new_id(consume().start);
    Node rhs = parse_calc(rhs_precedence);
    int depth = counted(std::max(lhs.depth, rhs.depth));
    lhs = {call(id, function, exprs(std::move(lhs.expr), std::move(rhs.expr))), depth};
  }
}

// `member | '!'+ member | '-'+ member`. A single '-' before a number is the number's sign (ANTLR prefers the
// first alternative), so `-1` is a constant; an even run of operators cancels out without any node.
Node Grammar::parse_unary() {
  RuleScope scope(*this, kUnaryRule);
  sync(operand_start());
  const TokenKind kind = la().kind;
  if (kind == TokenKind::kMinus &&
      (la(2).kind == TokenKind::kNumInt || la(2).kind == TokenKind::kNumFloat)) {
    return parse_member();
  }
  if (kind != TokenKind::kExclam && kind != TokenKind::kMinus) return parse_member();
  const Token& first = la();
  std::size_t count = 0;
  std::size_t last = pos_;
  while (at(kind)) {
    last = pos_;
    consume();
    ++count;
  }
  // What follows must start a member: not another unary operator, and '-' only as a number's sign.
  const bool signed_number = at(TokenKind::kMinus) &&
                             (la(2).kind == TokenKind::kNumInt || la(2).kind == TokenKind::kNumFloat);
  if (!operand_start().contains(la().kind) || at(TokenKind::kExclam) || (at(TokenKind::kMinus) && !signed_number)) {
    no_viable_alternative(kind == TokenKind::kMinus ? last : pos_, la());
  }
  if (count % 2 == 0) return parse_member();
  const std::int64_t id = b_.new_id(first.start);
  Node operand = parse_member();
  return {call(id, kind == TokenKind::kExclam ? op::kLogicalNot : op::kNegate, exprs(std::move(operand.expr))),
          operand.depth};
}

Node Grammar::parse_member() {
  RuleScope scope(*this, kMemberRule);
  Node operand = parse_primary();
  while (true) {
    if (at(TokenKind::kDot)) {
      const std::size_t dot_index = pos_;
      const Token& dot = la();
      const bool optional = la(2).kind == TokenKind::kQuestion;
      const Token& name = la(optional ? 3 : 2);
      if (name.kind != TokenKind::kIdentifier) no_viable_alternative(dot_index, name);
      consume();
      if (optional) consume();
      consume();
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
      const bool optional = at(TokenKind::kQuestion);
      if (optional) consume();
      const std::int64_t id = b_.new_id(open.start);
      Node index = [&] {
        FollowScope follow(*this, TokenSet{TokenKind::kRBracket});
        return parse_expr();
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

Node Grammar::parse_primary() {
  RuleScope scope(*this, kPrimaryRule);
  switch (la().kind) {
    case TokenKind::kDot:
    case TokenKind::kIdentifier:
      return parse_ident_call_or_message();
    case TokenKind::kLParen: {
      consume();
      Node inner = [&] {
        FollowScope follow(*this, TokenSet{TokenKind::kRParen});
        return parse_expr();
      }();
      expect_closing(TokenKind::kRParen);
      return inner;
    }
    case TokenKind::kLBracket:
      return parse_list();
    case TokenKind::kLBrace:
      return parse_map();
    default:
      return parse_literal();
  }
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

std::vector<Node> Grammar::parse_call_arguments() {
  sync(operand_start() | TokenSet{TokenKind::kRParen});
  std::vector<Node> args;
  if (!at(TokenKind::kRParen)) {
    RuleScope scope(*this, kExprListRule);
    FollowScope follow(*this, TokenSet{TokenKind::kComma, TokenKind::kRParen});
    args.push_back(parse_expr());
    while (at(TokenKind::kComma)) {
      consume();
      args.push_back(parse_expr());
    }
  }
  expect_closing(TokenKind::kRParen);
  return args;
}

Node Grammar::call_or_macro(std::int64_t id, std::string function, std::optional<Node> target,
                            std::vector<Node> args) {
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
  if (target_expr) return {Builder::member_call(id, std::move(function), std::move(*target_expr), std::move(arg_exprs)), depth};
  return {Builder::call(id, std::move(function), std::move(arg_exprs)), depth};
}

Node Grammar::parse_message(std::size_t name_tokens) {
  std::string name;
  for (std::size_t i = 0; i < name_tokens; ++i) name += consume().text;
  const std::int64_t id = b_.new_id(consume().start);
  StructExpr message{std::move(name), {}};
  int depth = 0;
  sync(TokenSet{TokenKind::kRBrace, TokenKind::kComma, TokenKind::kQuestion, TokenKind::kIdentifier});
  if (at(TokenKind::kQuestion) || at(TokenKind::kIdentifier)) {
    RuleScope scope(*this, kFieldInitializerListRule);
    while (true) {
      const Token& start = la();
      const bool optional = at(TokenKind::kQuestion);
      if (optional) consume();
      if (!at(TokenKind::kIdentifier)) {
        syntax_error(la(), "mismatched input " + display(la()) + " expecting IDENTIFIER");
        throw Abort{};
      }
      const Token& field = consume();
      const std::int32_t colon = la().start;
      expect(TokenKind::kColon, operand_start());
      const std::int64_t field_id = b_.new_id(colon);
      std::optional<Expr> error;
      if (optional && !options_.enable_optional_syntax) error = report_error(start.start, "unsupported syntax '?'");
      Node value = [&] {
        FollowScope follow(*this, TokenSet{TokenKind::kComma, TokenKind::kRBrace});
        return parse_expr();
      }();
      depth = std::max(depth, value.depth);
      if (!error) {
        message.fields.push_back(
            StructField{field_id, field.text, std::make_unique<Expr>(std::move(value.expr)), optional});
      }
      if (at(TokenKind::kComma) &&
          (la(2).kind == TokenKind::kQuestion || la(2).kind == TokenKind::kIdentifier)) {
        consume();
        continue;
      }
      break;
    }
  }
  sync(TokenSet{TokenKind::kRBrace, TokenKind::kComma});
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBrace);
  return {Expr{id, std::move(message)}, depth};
}

Node Grammar::parse_list() {
  const std::int64_t id = b_.new_id(consume().start);
  ListExpr list;
  int depth = 0;
  const TokenSet element_start = operand_start() | TokenSet{TokenKind::kQuestion};
  sync(element_start | TokenSet{TokenKind::kRBracket, TokenKind::kComma});
  if (element_start.contains(la().kind)) {
    RuleScope scope(*this, kListInitRule);
    FollowScope follow(*this, TokenSet{TokenKind::kComma, TokenKind::kRBracket});
    while (true) {
      RuleScope element_scope(*this, kOptExprRule);
      const Token& start = la();
      const bool optional = at(TokenKind::kQuestion);
      if (optional) consume();
      Node element = parse_expr();
      depth = std::max(depth, element.depth);
      if (optional) {
        if (!options_.enable_optional_syntax) {
          report_error(start.start, "unsupported syntax '?'");
        } else {
          list.optional_indices.push_back(static_cast<std::int32_t>(list.elements.size()));
        }
      }
      list.elements.push_back(std::move(element.expr));
      if (at(TokenKind::kComma) && element_start.contains(la(2).kind)) {
        consume();
        continue;
      }
      break;
    }
  }
  sync(TokenSet{TokenKind::kRBracket, TokenKind::kComma});
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBracket);
  return {Expr{id, std::move(list)}, depth};
}

Node Grammar::parse_map() {
  const std::int64_t id = b_.new_id(consume().start);
  MapExpr map;
  int depth = 0;
  const TokenSet entry_start = operand_start() | TokenSet{TokenKind::kQuestion};
  sync(entry_start | TokenSet{TokenKind::kRBrace, TokenKind::kComma});
  if (entry_start.contains(la().kind)) {
    RuleScope scope(*this, kMapInitializerListRule);
    while (true) {
      // cel-go numbers the entry (at its ':') before the key.
      const std::int64_t entry_id = b_.new_id(-1);
      const Token& start = la();
      const bool optional = at(TokenKind::kQuestion);
      Node key = [&] {
        RuleScope key_scope(*this, kOptExprRule);
        if (optional) consume();
        FollowScope follow(*this, TokenSet{TokenKind::kColon});
        return parse_expr();
      }();
      b_.info().positions[entry_id] = la().start;
      expect(TokenKind::kColon, operand_start());
      std::optional<Expr> error;
      if (optional && !options_.enable_optional_syntax) error = report_error(start.start, "unsupported syntax '?'");
      Node value = [&] {
        FollowScope follow(*this, TokenSet{TokenKind::kComma, TokenKind::kRBrace});
        return parse_expr();
      }();
      depth = std::max({depth, key.depth, value.depth});
      if (!error) {
        map.entries.push_back(MapEntry{entry_id, std::make_unique<Expr>(std::move(key.expr)),
                                       std::make_unique<Expr>(std::move(value.expr)), optional});
      }
      if (at(TokenKind::kComma) && entry_start.contains(la(2).kind)) {
        consume();
        continue;
      }
      break;
    }
  }
  sync(TokenSet{TokenKind::kRBrace, TokenKind::kComma});
  if (at(TokenKind::kComma)) consume();
  expect_closing(TokenKind::kRBrace);
  return {Expr{id, std::move(map)}, depth};
}

Node Grammar::parse_literal() {
  const Token& first = la();
  std::string_view sign;
  if (first.kind == TokenKind::kMinus) {
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
    default:
      no_viable_alternative(pos_, token);
  }
}

}  // namespace kapi::cel::parser::detail

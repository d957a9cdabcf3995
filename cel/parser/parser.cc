// parse(): cel-go's Parser.Parse (parser/parser.go) — the code-point size limit, then lexing and parsing with
// cel-go's limits, producing the AST with macros expanded and the SourceInfo (positions, line offsets).
#include <string>

#include "base/utf8.h"
#include "cel/compile.h"
#include "cel/parser/builder.h"
#include "cel/parser/grammar.h"
#include "cel/parser/lexer.h"

namespace kapi::cel {

namespace {

// The expression as Go's runes.Buffer holds it: one code point per rune, each malformed byte as U+FFFD.
std::u32string decode(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  while (!text.empty()) {
    base::Rune rune = base::decode_rune(text);
    out.push_back(rune.value);
    text.remove_prefix(rune.width);
  }
  return out;
}

// cel-go's line offsets: where each line after the first starts, then one past the end.
std::vector<std::int32_t> line_offsets(std::u32string_view text) {
  std::vector<std::int32_t> offsets;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') offsets.push_back(static_cast<std::int32_t>(i + 1));
  }
  offsets.push_back(static_cast<std::int32_t>(text.size() + 1));
  return offsets;
}

}  // namespace

ParseResult parse(std::string_view text, const ParserOptions& options) {
  return parser::parse_with_limits(text, options, parser::ErrorLimits{});
}

ParseResult parser::parse_with_limits(std::string_view text, const ParserOptions& options,
                                      const parser::ErrorLimits& limits) {
  ParseResult result;
  const std::u32string code_points = decode(text);
  parser::Builder builder;
  builder.info().line_offsets = line_offsets(code_points);

  const std::int64_t limit = parser::expression_size_limit(options);
  if (limit > 0 && static_cast<std::int64_t>(code_points.size()) > limit) {
    result.issues.errors.push_back(Issue{0, -1,
                                         "expression code point size exceeds limit: size: " +
                                             std::to_string(code_points.size()) + ", limit " + std::to_string(limit)});
    return result;
  }

  parser::LexResult lexed = parser::tokenize(code_points);
  parser::ParseIssues issues;
  bool within_limit = true;
  for (parser::LexError& error : lexed.errors) {
    if (!(within_limit = parser::report_syntax_error(issues, limits, error.offset, std::move(error.message)))) break;
  }
  std::optional<Expr> root;
  if (within_limit) root = parser::parse_tokens(code_points, lexed, builder, options, limits, issues);

  for (parser::ParseIssues::Entry& entry : issues.entries) result.issues.errors.push_back(std::move(entry.issue));
  if (!root || !result.issues.empty()) return result;
  result.ast = ParsedAst{std::string(text), std::move(*root), std::move(builder.info())};
  return result;
}

}  // namespace kapi::cel

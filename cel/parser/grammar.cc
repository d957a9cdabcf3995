// Entry points of the grammar and cel-go's syntax error reporting (parser/parser.go SyntaxError: at most 100
// syntax errors, then "More than 100 syntax errors").
#include "cel/parser/grammar.h"

#include "cel/parser/grammar_impl.h"

namespace kapi::cel::parser {
namespace {
constexpr int kErrorReportingLimit = 100;
}  // namespace

bool report_syntax_error(ParseIssues& issues, std::int32_t offset, std::string message) {
  if (issues.syntax_errors >= kErrorReportingLimit) {
    issues.entries.push_back(
        {Issue{0, offset, "Syntax error: More than " + std::to_string(kErrorReportingLimit) + " syntax errors"}, true});
    return false;
  }
  ++issues.syntax_errors;
  issues.entries.push_back({Issue{0, offset, "Syntax error: " + std::move(message)}, true});
  return true;
}

std::optional<Expr> parse_tokens(const std::vector<Token>& tokens, Builder& builder, const ParserOptions& options,
                                 ParseIssues& issues) {
  detail::Grammar grammar(tokens, builder, options, issues);
  try {
    return grammar.parse_start();
  } catch (const detail::Abort&) {
    return std::nullopt;
  }
}

}  // namespace kapi::cel::parser

#pragma once
// The recursive-descent parser for cel-go's grammar (parser/gen/CEL.g4), building the AST the way cel-go's
// visitor (parser/parser.go) does: same node ids, same positions, same macro expansion, same errors.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cel/ast.h"
#include "cel/compile.h"
#include "cel/env.h"
#include "cel/parser/builder.h"
#include "cel/parser/lexer.h"

namespace kapi::cel::parser {

// The issues found so far; syntax errors (ANTLR's) are told apart from the visitor's because cel-go never gets to
// its visitor when the parse itself gives up.
struct ParseIssues {
  struct Entry {
    Issue issue;
    bool syntax = false;
  };
  std::vector<Entry> entries;
  int syntax_errors = 0;
};

// cel-go's parser options for syntax errors (parser.ErrorReportingLimit, ErrorRecoveryLimit,
// ErrorRecoveryLookaheadTokenLimit) at cel-go's defaults, which kube keeps.
struct ErrorLimits {
  int reporting = 100;
  int recovery_attempts = 30;
  int recovery_lookahead = 256;
};

// Parses the tokens into an expression; nullopt when parsing gave up (issues then say why).
std::optional<Expr> parse_tokens(std::u32string_view source, const LexResult& lexed, Builder& builder,
                                 const ParserOptions& options, const ErrorLimits& limits, ParseIssues& issues);

// Reports a syntax error the way cel-go's ANTLR error listener does, refusing more than the reporting limit;
// returns false when the limit was hit (parsing then stops).
bool report_syntax_error(ParseIssues& issues, const ErrorLimits& limits, std::int32_t offset, std::string message);

// parse() with other error limits than cel-go's defaults (cel-go's own tests use small ones).
ParseResult parse_with_limits(std::string_view text, const ParserOptions& options, const ErrorLimits& limits);

}  // namespace kapi::cel::parser

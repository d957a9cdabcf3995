// Placeholder until the parser lands (cel/parser is the parser's home: lexer, parser, macros).
#include "cel/ast.h"
#include "cel/compile.h"

namespace kapi::cel {

ParseResult parse(std::string_view, const ParserOptions&) {
  ParseResult result;
  result.issues.errors.push_back(Issue{.message = "CEL parser not built yet"});
  return result;
}

std::string Issues::to_display_string(const std::string&, const SourceInfo&) const {
  std::string out;
  for (const Issue& issue : errors) out += (out.empty() ? "ERROR: " : "\nERROR: ") + issue.message;
  return out;
}

std::string debug_string(const Expr&) { return {}; }

}  // namespace kapi::cel

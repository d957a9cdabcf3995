#pragma once
// Parsing and checking an expression (cel-go's env.Parse, env.Check, env.Compile), with cel-go's error messages.
//
// Contract:
// - parse() never throws on bad input and is bounded: it refuses expressions beyond the options' size and
//   recursion limits with cel-go's messages, and never recurses deeper than max_recursion_depth.
// - check() types every node against the environment and resolves identifiers and overloads; on failure it
//   returns the issues and no ast. As cel-go's checker, it rewrites the tree it returns: a select chain naming a
//   declared variable (`a.b.c`) becomes one identifier "a.b.c", a namespaced call written as a member call
//   (`optional.of(x)`) becomes a global call of "optional.of" without target, and names lose a leading dot.
// - Issues::to_display_string() gives cel-go's Errors.ToDisplayString: "ERROR: <input>:1:6: <message>\n | <line>\n
//   | .....^" per issue, joined by newlines; kube puts that text into its field errors.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/ast.h"
#include "cel/env.h"

namespace kapi::cel {

struct Issue {
  std::int64_t expr_id = 0;    // 0 when the issue has no node
  std::int32_t offset = -1;    // code-point offset, -1 when unknown (then taken from expr_id's position)
  std::string message;
};

struct Issues {
  std::vector<Issue> errors;
  bool empty() const { return errors.empty(); }
  std::string to_display_string(const std::string& source, const SourceInfo& info) const;
};

struct ParseResult {
  std::optional<ParsedAst> ast;
  Issues issues;
};

struct CheckResult {
  std::optional<CheckedAst> ast;
  Issues issues;
  // The display form of issues, filled on failure (what kube reports after "compilation failed: ").
  std::string message;
};

ParseResult parse(std::string_view text, const ParserOptions& options = {});
CheckResult check(const Env& env, ParsedAst ast);
CheckResult compile(const Env& env, std::string_view text);  // parse, then check

}  // namespace kapi::cel

// The parser against cel-go v0.22.0's own expectations (parser/parser_test.go): the AST with ids and node kinds,
// the locations, and the error display, with cel-go's test parser settings (recursion limit 32, optional syntax
// only where a case turns it on).
#include <gtest/gtest.h>

#include <string>

#include "cel/compile.h"
#include "cel/parser/debug.h"
#include "cel/parser/grammar.h"

namespace kapi::cel::parser_test {
namespace {

struct PortedCase {
  const char* input;
  const char* parsed;    // adorned with ^#id:kind#
  const char* error;     // display form
  const char* location;  // adorned with ^#id[line,column]#
  bool optional_syntax;
  parser::ErrorLimits limits;
};

const PortedCase kPortedCases[] = {
#include "ported_cases.inc"
};

std::string strip_whitespace(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; });
  return s;
}

std::string kind_name(const Expr& e) {
  struct Namer {
    std::string operator()(const std::monostate&) const { return ""; }
    std::string operator()(const Constant& c) const {
      static const char* const kNames[] = {"*expr.Constant_NullValue",   "*expr.Constant_BoolValue",
                                           "*expr.Constant_Int64Value",  "*expr.Constant_Uint64Value",
                                           "*expr.Constant_DoubleValue", "*expr.Constant_StringValue",
                                           "*expr.Constant_BytesValue"};
      return kNames[c.index()];
    }
    std::string operator()(const IdentExpr&) const { return "*expr.Expr_IdentExpr"; }
    std::string operator()(const SelectExpr&) const { return "*expr.Expr_SelectExpr"; }
    std::string operator()(const CallExpr&) const { return "*expr.Expr_CallExpr"; }
    std::string operator()(const ListExpr&) const { return "*expr.Expr_ListExpr"; }
    std::string operator()(const MapExpr&) const { return "*expr.Expr_StructExpr"; }
    std::string operator()(const StructExpr&) const { return "*expr.Expr_StructExpr"; }
    std::string operator()(const ComprehensionExpr&) const { return "*expr.Expr_ComprehensionExpr"; }
  };
  return std::visit(Namer{}, e.kind);
}

std::string kind_adorned(const Expr& e) {
  parser::DebugAdorner adorner{
      [](const Expr& node) { return "^#" + std::to_string(node.id) + ":" + kind_name(node) + "#"; },
      [](std::int64_t id) { return "^#" + std::to_string(id) + ":*expr.Expr_CreateStruct_Entry#"; }};
  return parser::adorned_debug_string(e, adorner);
}

std::string location_adorned(const ParsedAst& ast) {
  auto location = [&](std::int64_t id) {
    auto loc = ast.source_info.location_of(id);
    return "^#" + std::to_string(id) + "[" + std::to_string(loc ? loc->line : -1) + "," +
           std::to_string(loc ? loc->column : -1) + "]#";
  };
  parser::DebugAdorner adorner{[&](const Expr& node) { return location(node.id); }, location};
  return parser::adorned_debug_string(ast.root, adorner);
}

class CelParserPortedTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CelParserPortedTest, MatchesCelGo) {
  const PortedCase& c = kPortedCases[GetParam()];
  ParserOptions options;
  options.max_recursion_depth = 32;
  options.enable_optional_syntax = c.optional_syntax;
  ParseResult result = parser::parse_with_limits(c.input, options, c.limits);
  SCOPED_TRACE(c.input);
  if (*c.error) {
    ASSERT_FALSE(result.issues.empty()) << kind_adorned(result.ast->root);
    EXPECT_EQ(strip_whitespace(result.issues.to_display_string(c.input, SourceInfo{})), c.error)
        << result.issues.to_display_string(c.input, SourceInfo{});
    return;
  }
  ASSERT_TRUE(result.ast) << result.issues.to_display_string(c.input, SourceInfo{});
  EXPECT_EQ(strip_whitespace(kind_adorned(result.ast->root)), c.parsed) << kind_adorned(result.ast->root);
  if (*c.location) {
    EXPECT_EQ(strip_whitespace(location_adorned(*result.ast)), c.location);
  }
}

INSTANTIATE_TEST_SUITE_P(CelGo, CelParserPortedTest,
                         ::testing::Range<std::size_t>(0, sizeof(kPortedCases) / sizeof(kPortedCases[0])));

}  // namespace
}  // namespace kapi::cel::parser_test

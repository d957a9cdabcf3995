// The parser's bounds on hostile input, with cel-go's messages: the code-point size limit, ANTLR's rule nesting
// limit ("expression recursion limit exceeded"), the visitor's ("max recursion depth exceeded"), the syntax error
// and recovery limits; and input that is not text at all. Each must come back with issues, never crash.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <utility>
#include <vector>

#include "cel/compile.h"

namespace kapi::cel {
namespace {

std::string first_error(const ParseResult& result) {
  return result.issues.errors.empty() ? std::string("<none>") : result.issues.errors.front().message;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(CelParserLimitsTest, CodePointSizeLimit) {
  ParserOptions options;
  options.expression_size_code_point_limit = 2;
  ParseResult result = parse("foo", options);
  ASSERT_EQ(result.issues.errors.size(), 1u);
  EXPECT_EQ(first_error(result), "expression code point size exceeds limit: size: 3, limit 2");
  EXPECT_EQ(result.issues.to_display_string("foo", {}),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 3, limit 2");
  // Code points, not bytes.
  options.expression_size_code_point_limit = 3;
  EXPECT_TRUE(parse("'é'", options).ast);
}

TEST(CelParserLimitsTest, AHundredThousandCharacterLiteralFits) {
  std::string text = "'" + std::string(99'998, 'x') + "'";
  ParseResult result = parse(text);
  ASSERT_TRUE(result.ast) << first_error(result);
  EXPECT_EQ(std::get<std::string>(std::get<Constant>(result.ast->root.kind)).size(), 99'998u);
  ParseResult too_long = parse(text + " ");
  EXPECT_EQ(first_error(too_long), "expression code point size exceeds limit: size: 100001, limit 100000");
}

TEST(CelParserLimitsTest, DeepParentheses) {
  EXPECT_TRUE(parse(repeat("(", 200) + "a" + repeat(")", 200)).ast);
  ParseResult result = parse(repeat("(", 40'000) + "a" + repeat(")", 40'000));
  EXPECT_EQ(result.issues.to_display_string("", {}), "ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
  ParseResult unbalanced = parse(repeat("(", 99'999));
  EXPECT_EQ(first_error(unbalanced), "expression recursion limit exceeded: 250");
}

TEST(CelParserLimitsTest, DeepListsMapsAndCalls) {
  for (std::string text :
       {repeat("[", 30'000) + repeat("]", 30'000), repeat("{1:", 30'000), repeat("f(", 30'000) + repeat(")", 30'000),
        repeat("a?b:", 20'000) + "c", repeat("-(", 30'000) + "1" + repeat(")", 30'000)}) {
    ParseResult result = parse(text);
    EXPECT_FALSE(result.ast);
    EXPECT_EQ(first_error(result), "expression recursion limit exceeded: 250") << text.substr(0, 10);
  }
}

TEST(CelParserLimitsTest, LongChainsHitTheVisitorLimit) {
  for (std::string text : {"a" + repeat(".b", 40'000), "a" + repeat("[0]", 30'000), "1" + repeat("+1", 40'000),
                           "a" + repeat("<a", 40'000), "a" + repeat(".f()", 20'000)}) {
    ParseResult result = parse(text);
    EXPECT_FALSE(result.ast);
    EXPECT_EQ(first_error(result), "max recursion depth exceeded") << text.substr(0, 10);
  }
  EXPECT_TRUE(parse("a" + repeat(".b", 250)).ast);
  EXPECT_FALSE(parse("a" + repeat(".b", 251)).ast);
}

TEST(CelParserLimitsTest, LongLogicalChainsBalance) {
  ParseResult result = parse("a" + repeat("&&a", 30'000));
  ASSERT_TRUE(result.ast) << first_error(result);
  int depth = 0;
  for (const Expr* e = &result.ast->root; auto* call = std::get_if<CallExpr>(&e->kind); e = &call->args[0]) ++depth;
  EXPECT_LE(depth, 16);
}

TEST(CelParserLimitsTest, LongUnaryRuns) {
  EXPECT_EQ(debug_string(parse(repeat("!", 50'000) + "a").ast->root), "a");
  EXPECT_EQ(debug_string(parse(repeat("-", 50'001) + "a").ast->root), "-_(\n  a\n)");
}

// Found by fuzzing (tests/fuzz/cel_fuzz.cc): optMap and optFlatMap copy their target, as cel-go v0.22 expands them,
// so each link of a chain doubled the tree; 18 links took minutes and gigabytes to check. A parse now copies at most
// as many nodes as the expression may have code points.
TEST(CelParserLimitsTest, ChainedOptMapsStopAtTheCopyBudget) {
  ParserOptions options;
  options.extra_macros = {"optMap", "optFlatMap"};
  EXPECT_TRUE(parse("optional.of(1)" + repeat(".optMap(x, x + 1)", 10), options).ast);
  ParseResult chain = parse("optional.of(1)" + repeat(".optMap(x, x + 1)", 40), options);
  EXPECT_FALSE(chain.ast);
  EXPECT_EQ(first_error(chain),
            "expression size exceeds limit after expanding optMap(): more than 100000 nodes copied");
  ParseResult flat = parse("optional.of(1)" + repeat(".optFlatMap(x, optional.of(x))", 40), options);
  EXPECT_EQ(first_error(flat),
            "expression size exceeds limit after expanding optFlatMap(): more than 100000 nodes copied");
  // The budget is per parse: separate chains share it.
  options.expression_size_code_point_limit = 1'000;
  const std::string six_links = "optional.of(1)" + repeat(".optMap(x, x)", 6);
  EXPECT_TRUE(parse(six_links, options).ast);
  EXPECT_FALSE(parse("[" + six_links + ", " + six_links + "]", options).ast);
}

TEST(CelParserLimitsTest, SyntaxErrorLimit) {
  std::string text = repeat("# ", 30'000);
  ParseResult result = parse(text);
  ASSERT_EQ(result.issues.errors.size(), 101u);
  EXPECT_EQ(result.issues.errors.back().message, "Syntax error: More than 100 syntax errors");
  std::string shown = result.issues.to_display_string(text, {});
  EXPECT_TRUE(shown.ends_with("\n1 more errors were truncated"));
}

TEST(CelParserLimitsTest, RecoveryLimits) {
  ParseResult result = parse("a" + repeat(" < )", 1000));
  EXPECT_FALSE(result.ast);
  EXPECT_EQ(result.issues.errors.size(), 32u);  // 31 recoveries are allowed, as in cel-go
  EXPECT_EQ(result.issues.errors.back().message, "Syntax error: error recovery attempt limit exceeded: 30");
  ParseResult skipping = parse("a b " + repeat("c ", 40'000));
  EXPECT_FALSE(skipping.ast);
  EXPECT_EQ(first_error(skipping), "Syntax error: mismatched input 'b' expecting <EOF>");
  EXPECT_EQ(skipping.issues.errors.back().message, "error recovery token lookahead limit exceeded: 256");
}

TEST(CelParserLimitsTest, NotText) {
  const std::string inputs[] = {
      std::string("a\0b", 3),        std::string("\0", 1),   "\xff\xfe", "'\xc3'", "\"\xed\xa0\x80\"", "a.\xf0\x9f",
      "\x80" + repeat("\xbf", 1000), std::string(1000, '\0')};
  for (const std::string& text : inputs) {
    ParseResult result = parse(text);
    EXPECT_FALSE(result.issues.to_display_string(text, {}).empty() && !result.ast);
  }
  ParseResult nul = parse(std::string("a\0b", 3));
  ASSERT_FALSE(nul.ast);
  EXPECT_EQ(first_error(nul), "Syntax error: token recognition error at: '" + std::string(1, '\0') + "'");
  EXPECT_EQ(std::get<std::string>(std::get<Constant>(parse("'\xc3'").ast->root.kind)), "\uFFFD");
}

TEST(CelParserLimitsTest, UnterminatedString) {
  ParseResult result = parse("a + 'b");
  EXPECT_EQ(result.issues.to_display_string("a + 'b", {}),
            "ERROR: <input>:1:5: Syntax error: token recognition error at: ''b'\n | a + 'b\n | ....^\n"
            "ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
            "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a + 'b\n"
            " | ......^");
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

// The deepest nesting the default limit admits parses within a modest thread stack (the parser's frames per
// nesting level are kept small); sanitizer builds need several times more.
TEST(CelParserLimitsTest, DeepestNestingFitsInATwoMegabyteStack) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr std::size_t kStack = std::size_t{16} << 20;
#else
  constexpr std::size_t kStack = std::size_t{2} << 20;
#endif
  struct Job {
    std::string text;
    bool parsed = false;
  };
  std::vector<Job> jobs;
  for (auto [open, close] : {std::pair{"(", ")"}, {"[", "]"}, {"f(", ")"}, {"{1: ", "}"}, {"a.b(", ")"}}) {
    jobs.push_back(Job{repeat(open, 249) + "1" + repeat(close, 249)});
  }
  for (Job& job : jobs) {
    pthread_attr_t attr;
    ASSERT_EQ(pthread_attr_init(&attr), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attr, kStack), 0);
    pthread_t thread;
    auto run = [](void* arg) -> void* {
      auto* j = static_cast<Job*>(arg);
      j->parsed = parse(j->text).ast.has_value();
      return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attr, run, &job), 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    pthread_attr_destroy(&attr);
    EXPECT_TRUE(job.parsed) << job.text.substr(0, 8);
  }
}

}  // namespace
}  // namespace kapi::cel

// Issues::to_display_string as cel-go's Errors.ToDisplayString prints issues: sorted by position, the source
// line under each, dots and a caret (full-width under wide characters), tabs shown as spaces, at most 100.
#include <gtest/gtest.h>

#include <string>

#include "cel/compile.h"

namespace kapi::cel::display_test {
namespace {

TEST(CelIssuesDisplayTest, SortsByPositionAndPointsAtTheColumn) {
  Issues issues;
  issues.errors.push_back(Issue{0, 6, "second"});
  issues.errors.push_back(Issue{0, 0, "first"});
  EXPECT_EQ(issues.to_display_string("a + b\nc + d", {}),
            "ERROR: <input>:1:1: first\n | a + b\n | ^\n"
            "ERROR: <input>:2:1: second\n | c + d\n | ^");
}

TEST(CelIssuesDisplayTest, TabsAndWideCharacters) {
  Issues issues;
  issues.errors.push_back(Issue{0, 3, "after a tab"});
  EXPECT_EQ(issues.to_display_string("\ta é", {}), "ERROR: <input>:1:4: after a tab\n |  a é\n | ...＾");
  Issues past_wide;
  past_wide.errors.push_back(Issue{0, 3, "past"});
  EXPECT_EQ(past_wide.to_display_string("é+ x", {}), "ERROR: <input>:1:4: past\n | é+ x\n | ．..^");
}

TEST(CelIssuesDisplayTest, NoLocationHasNoSnippet) {
  Issues issues;
  issues.errors.push_back(Issue{0, -1, "expression recursion limit exceeded: 250"});
  issues.errors.push_back(Issue{0, 0, "at start"});
  EXPECT_EQ(issues.to_display_string("x", {}),
            "ERROR: <input>:-1:0: expression recursion limit exceeded: 250\nERROR: <input>:1:1: at start\n | x\n | ^");
}

TEST(CelIssuesDisplayTest, PositionFromTheNodeId) {
  SourceInfo info;
  info.positions[7] = 4;
  Issues issues;
  issues.errors.push_back(Issue{7, -1, "undeclared reference to 'y' (in container '')"});
  EXPECT_EQ(issues.to_display_string("x + y", info),
            "ERROR: <input>:1:5: undeclared reference to 'y' (in container '')\n | x + y\n | ....^");
}

TEST(CelIssuesDisplayTest, AnErrorAtTheEndOfALaterLine) {
  ParseResult result = parse("a +\n");
  EXPECT_EQ(result.issues.to_display_string("a +\n", {}),
            "ERROR: <input>:2:1: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
            "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |\x20\n | ^");
}

TEST(CelIssuesDisplayTest, KeepsTheFirstHundredReported) {
  Issues issues;
  for (int i = 0; i < 105; ++i) issues.errors.push_back(Issue{0, 104 - i, "e" + std::to_string(i)});
  std::string text = issues.to_display_string(std::string(105, 'x'), {});
  EXPECT_EQ(text.substr(0, text.find('\n')), "ERROR: <input>:1:6: e99");
  EXPECT_TRUE(text.ends_with("\n5 more errors were truncated")) << text.substr(text.size() - 80);
}

TEST(CelIssuesDisplayTest, LongLinesHaveNoSnippet) {
  std::string text = std::string(20000, ' ') + "$";
  ParseResult result = parse(text);
  std::string shown = result.issues.to_display_string(text, {});
  EXPECT_EQ(shown.substr(0, shown.find('\n')), "ERROR: <input>:1:20001: Syntax error: token recognition error at: '$'");
}

}  // namespace
}  // namespace kapi::cel::display_test

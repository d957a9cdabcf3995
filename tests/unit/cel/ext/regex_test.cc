// kube's regex library (library/cel_test.go TestRegex): Go's regexp semantics over RE2.
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::regex_test {
namespace {

using testing::call;
using testing::error_of;
using testing::strings;

Value find(std::string s, std::string re) { return call(regex_library(), "string_find_string", {s, re}); }
Value find_all(std::string s, std::string re) { return call(regex_library(), "string_find_all_string", {s, re}); }
Value find_n(std::string s, std::string re, std::int64_t n) {
  return call(regex_library(), "string_find_all_string_int", {s, re, Value(n)});
}

TEST(CelRegex, Find) {
  EXPECT_TRUE(equals(find("abc 123", "[0-9]+"), Value("123")));
  EXPECT_TRUE(equals(find("abc 123", "xyz"), Value("")));
  EXPECT_TRUE(equals(find("abc 123", "[0-9]*"), Value("")));  // leftmost: the empty match at 0
  EXPECT_TRUE(equals(find("abc", "b|bc"), Value("b")));       // leftmost-first, as Go's regexp
}

TEST(CelRegex, FindAllSkipsEmptyMatchesAfterAMatch) {
  EXPECT_TRUE(equals(find_all("123 abc 456", "[0-9]+"), strings({"123", "456"})));
  EXPECT_TRUE(equals(find_n("123 abc 456", "[0-9]+", 1), strings({"123"})));
  EXPECT_TRUE(equals(find_n("123 abc 456", "[0-9]+", 0), strings({})));
  EXPECT_TRUE(equals(find_all("123 abc 456", "xyz"), strings({})));
  EXPECT_TRUE(equals(find_all("123 abc 456", "[0-9]*"), strings({"123", "", "", "", "", "456"})));
  EXPECT_TRUE(equals(find_all("abc", ""), strings({"", "", "", ""})));
  EXPECT_TRUE(equals(find_all("a©b", "."), strings({"a", "©", "b"})));
}

TEST(CelRegex, CompileErrorsReadAsGos) {
  EXPECT_EQ(error_of(find("abc", "[a")), "Illegal regex: error parsing regexp: missing closing ]: `[a`");
  EXPECT_EQ(error_of(find_all("abc", "(a")), "Illegal regex: error parsing regexp: missing closing ): `(a`");
  EXPECT_EQ(error_of(find("abc", "a**")), "Illegal regex: error parsing regexp: invalid nested repetition operator: `**`");
}

}  // namespace
}  // namespace kapi::cel::ext::regex_test

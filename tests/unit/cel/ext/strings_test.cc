// cel-go's ext/strings_test.go cases (v0.22, string extension version 2), called overload by overload.
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::strings_test {
namespace {

using testing::call;
using testing::error_of;
using testing::strings;

class CelStrings : public ::testing::Test {
 protected:
  Value run(std::string_view id, std::vector<Value> args) { return call(lib_, id, std::move(args)); }
  std::string str(std::string_view id, std::vector<Value> args) {
    Value v = run(id, std::move(args));
    return v.is<std::string>() ? v.get<std::string>() : "<" + debug_string(v) + ">";
  }
  std::int64_t integer(std::string_view id, std::vector<Value> args) {
    Value v = run(id, std::move(args));
    return v.is<std::int64_t>() ? v.get<std::int64_t>() : -999;
  }
  Library lib_ = strings_library();
};

Value I(std::int64_t i) { return Value(i); }

TEST_F(CelStrings, CharAtCountsCodePoints) {
  EXPECT_EQ(str("string_char_at_int", {"tacocat", I(3)}), "o");
  EXPECT_EQ(str("string_char_at_int", {"tacocat", I(7)}), "");
  EXPECT_EQ(str("string_char_at_int", {"©αT", I(1)}), "α");
  EXPECT_EQ(error_of(run("string_char_at_int", {"tacocat", I(30)})), "index out of range: 30");
  EXPECT_EQ(error_of(run("string_char_at_int", {"tacocat", I(-1)})), "index out of range: -1");
}

TEST_F(CelStrings, IndexOf) {
  EXPECT_EQ(integer("string_index_of_string", {"tacocat", ""}), 0);
  EXPECT_EQ(integer("string_index_of_string", {"tacocat", "ac"}), 1);
  EXPECT_EQ(integer("string_index_of_string", {"tacocat", "none"}), -1);
  EXPECT_EQ(integer("string_index_of_string_int", {"tacocat", "", I(3)}), 3);
  EXPECT_EQ(integer("string_index_of_string_int", {"tacocat", "a", I(3)}), 5);
  EXPECT_EQ(integer("string_index_of_string_int", {"tacocat", "at", I(3)}), 5);
  EXPECT_EQ(integer("string_index_of_string", {"ta©o©αT", "©"}), 2);
  EXPECT_EQ(integer("string_index_of_string_int", {"ta©o©αT", "©", I(3)}), 4);
  EXPECT_EQ(integer("string_index_of_string_int", {"ta©o©αT", "©αT", I(3)}), 4);
  EXPECT_EQ(integer("string_index_of_string_int", {"ta©o©αT", "©α", I(5)}), -1);
  EXPECT_EQ(integer("string_index_of_string", {"ijk", "k"}), 2);
  EXPECT_EQ(integer("string_index_of_string", {"hello wello", "hello wello"}), 0);
  EXPECT_EQ(integer("string_index_of_string_int", {"hello wello", "ello", I(6)}), 7);
  EXPECT_EQ(integer("string_index_of_string", {"hello wello", "elbo room!!"}), -1);
  EXPECT_EQ(integer("string_index_of_string", {"hello wello", "elbo room!!!"}), -1);
  EXPECT_EQ(integer("string_index_of_string_int", {"tacocat", "a", I(30)}), -1);
  EXPECT_EQ(error_of(run("string_index_of_string_int", {"tacocat", "a", I(-1)})), "index out of range: -1");
}

TEST_F(CelStrings, LastIndexOf) {
  EXPECT_EQ(integer("string_last_index_of_string", {"tacocat", ""}), 7);
  EXPECT_EQ(integer("string_last_index_of_string", {"tacocat", "at"}), 5);
  EXPECT_EQ(integer("string_last_index_of_string", {"tacocat", "none"}), -1);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"tacocat", "", I(3)}), 3);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"tacocat", "a", I(3)}), 1);
  EXPECT_EQ(integer("string_last_index_of_string", {"ta©o©αT", "©"}), 4);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"ta©o©αT", "©", I(3)}), 2);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"ta©o©αT", "©α", I(4)}), 4);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"hello wello", "ello", I(6)}), 1);
  EXPECT_EQ(integer("string_last_index_of_string", {"hello wello", "low"}), -1);
  EXPECT_EQ(integer("string_last_index_of_string", {"hello wello", "elbo room!!"}), -1);
  EXPECT_EQ(integer("string_last_index_of_string", {"hello wello", "elbo room!!!"}), -1);
  EXPECT_EQ(integer("string_last_index_of_string", {"hello wello", "hello wello"}), 0);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"bananananana", "nana", I(7)}), 6);
  EXPECT_EQ(integer("string_last_index_of_string_int", {"tacocat", "a", I(30)}), -1);
  EXPECT_EQ(error_of(run("string_last_index_of_string_int", {"tacocat", "a", I(-1)})), "index out of range: -1");
}

TEST_F(CelStrings, AsciiCaseLeavesOtherLettersAlone) {
  EXPECT_EQ(str("string_lower_ascii", {"TacoCat"}), "tacocat");
  EXPECT_EQ(str("string_lower_ascii", {"TacoCÆt Xii"}), "tacocÆt xii");
  EXPECT_EQ(str("string_upper_ascii", {"tacoCat"}), "TACOCAT");
  EXPECT_EQ(str("string_upper_ascii", {"tacoCαt"}), "TACOCαT");
}

TEST_F(CelStrings, ReplaceFollowsGo) {
  EXPECT_EQ(str("string_replace_string_string", {"12 days 12 hours", "{0}", "2"}), "12 days 12 hours");
  EXPECT_EQ(str("string_replace_string_string", {"{0} days {0} hours", "{0}", "2"}), "2 days 2 hours");
  EXPECT_EQ(str("string_replace_string_string_int", {"{0} days {0} hours", "{0}", "2", I(1)}), "2 days {0} hours");
  EXPECT_EQ(str("string_replace_string_string", {"1 ©αT taco", "αT", "o©α"}), "1 ©o©α taco");
  EXPECT_EQ(str("string_replace_string_string", {"hello hello", "", "_"}), "_h_e_l_l_o_ _h_e_l_l_o_");
  EXPECT_EQ(str("string_replace_string_string", {"hello hello", "h", ""}), "ello ello");
  EXPECT_EQ(str("string_replace_string_string_int", {"hello hello", "he", "we", I(-1)}), "wello wello");
  EXPECT_EQ(str("string_replace_string_string_int", {"hello hello", "he", "we", I(0)}), "hello hello");
}

TEST_F(CelStrings, SplitFollowsGo) {
  EXPECT_TRUE(equals(run("string_split_string", {"hello world", " "}), strings({"hello", "world"})));
  EXPECT_TRUE(equals(run("string_split_string_int", {"hello world events!", " ", I(0)}), strings({})));
  EXPECT_TRUE(equals(run("string_split_string_int", {"hello world events!", " ", I(1)}),
                     strings({"hello world events!"})));
  EXPECT_TRUE(equals(run("string_split_string_int", {"hello hello hello", " ", I(2)}),
                     strings({"hello", "hello hello"})));
  EXPECT_TRUE(equals(run("string_split_string_int", {"o©o©o©o", "©", I(-1)}), strings({"o", "o", "o", "o"})));
  EXPECT_TRUE(equals(run("string_split_string", {"a©b", ""}), strings({"a", "©", "b"})));
  EXPECT_TRUE(equals(run("string_split_string", {"", ","}), strings({""})));
  EXPECT_TRUE(equals(run("string_split_string", {"a,b", ","}), strings({"a", "b"})));
}

TEST_F(CelStrings, Substring) {
  EXPECT_EQ(str("string_substring_int", {"tacocat", I(4)}), "cat");
  EXPECT_EQ(str("string_substring_int", {"tacocat", I(7)}), "");
  EXPECT_EQ(str("string_substring_int_int", {"tacocat", I(0), I(4)}), "taco");
  EXPECT_EQ(str("string_substring_int_int", {"tacocat", I(4), I(4)}), "");
  EXPECT_EQ(str("string_substring_int_int", {"ta©o©αT", I(2), I(6)}), "©o©α");
  EXPECT_EQ(str("string_substring_int_int", {"ta©o©αT", I(7), I(7)}), "");
  EXPECT_EQ(error_of(run("string_substring_int", {"tacocat", I(40)})), "index out of range: 40");
  EXPECT_EQ(error_of(run("string_substring_int", {"tacocat", I(-1)})), "index out of range: -1");
  EXPECT_EQ(error_of(run("string_substring_int_int", {"tacocat", I(1), I(50)})), "index out of range: 50");
  EXPECT_EQ(error_of(run("string_substring_int_int", {"tacocat", I(49), I(50)})), "index out of range: 49");
  EXPECT_EQ(error_of(run("string_substring_int_int", {"tacocat", I(4), I(3)})),
            "invalid substring range. start: 4, end: 3");
}

TEST_F(CelStrings, TrimTakesUnicodeWhitespace) {
  EXPECT_EQ(str("string_trim", {" \f\n\r\t\vtext  "}), "text");
  EXPECT_EQ(str("string_trim", {"\u0085\u00a0\u1680text"}), "text");
  EXPECT_EQ(str("string_trim", {"text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009"}), "text");
  EXPECT_EQ(str("string_trim", {"\u200atext\u2028\u2029\u202F\u205F\u3000"}), "text");
  EXPECT_EQ(str("string_trim", {"\u200btext"}), "\u200btext");  // zero-width space is not white space
}

TEST_F(CelStrings, Join) {
  EXPECT_EQ(str("list_join", {strings({"x", "y"})}), "xy");
  EXPECT_EQ(str("list_join_string", {strings({"x", "y"}), "-"}), "x-y");
  EXPECT_EQ(str("list_join", {strings({})}), "");
  EXPECT_EQ(str("list_join_string", {strings({}), "-"}), "");
  EXPECT_EQ(error_of(run("list_join", {Value::list({Value("a"), I(1)})})), "join: invalid input: 1");
}

TEST_F(CelStrings, Quote) {
  EXPECT_EQ(str("strings_quote", {"first\nsecond"}), "\"first\\nsecond\"");
  EXPECT_EQ(str("strings_quote", {"bell\a"}), "\"bell\\a\"");
  EXPECT_EQ(str("strings_quote", {"\bbackspace"}), "\"\\bbackspace\"");
  EXPECT_EQ(str("strings_quote", {"\fform feed"}), "\"\\fform feed\"");
  EXPECT_EQ(str("strings_quote", {"carriage \r return"}), "\"carriage \\r return\"");
  EXPECT_EQ(str("strings_quote", {"vertical \v tab"}), "\"vertical \\v tab\"");
  EXPECT_EQ(str("strings_quote", {"double \\\\ slash"}), "\"double \\\\\\\\ slash\"");
  EXPECT_EQ(str("strings_quote", {"mid string \" quote"}), "\"mid string \\\" quote\"");
  EXPECT_EQ(str("strings_quote", {"printable unicode😀"}), "\"printable unicode😀\"");
  EXPECT_EQ(str("strings_quote", {""}), "\"\"");
  EXPECT_EQ(str("strings_quote", {std::string("bad \xff byte")}), "\"bad \uFFFD byte\"");
}

TEST_F(CelStrings, VersionTwoHasNoReverse) {
  EXPECT_EQ(testing::find_overload(lib_, "string_reverse"), nullptr);
  EXPECT_NE(testing::find_overload(lib_, "list_join"), nullptr);
  EXPECT_NE(testing::find_overload(lib_, "string_format"), nullptr);
}

}  // namespace
}  // namespace kapi::cel::ext::strings_test

#include "request/list_options_probe.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::request::list_options_probe_test {
namespace {

// The probe decodes a query with the one label and field selector parser (server/selectors); these are the query
// parameters as a client would send them.
ListOptionsProbe probe_selector(std::string_view parameter, std::string_view selector) {
  return probe_list_options(
      http::QueryParams::parse(std::string(parameter) + "=" + http::percent_encode_query_component(selector)));
}
bool label_selector_is_valid(std::string_view selector) { return probe_selector("labelSelector", selector).decoded; }
bool field_selector_is_valid(std::string_view selector) { return probe_selector("fieldSelector", selector).decoded; }
std::optional<std::string> field_selector_name(std::string_view selector) {
  return probe_selector("fieldSelector", selector).field_selector_name;
}

// labels.Parse: the good and bad strings of apimachinery's TestSelectorParse, then corners of its lexer and grammar.
TEST(ProbeListOptions, LabelSelectorsDecodeAsLabelsParseAccepts) {
  for (const std::string selector :
       {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5", "x==a",
        "  x  ==  a  ", "x in (a)", "x in (a,b),y notin (c)", "x in ()", "x in (,)", "x in (a,)", "x in (,a)",
        "x in (a,,b)", "x notin (in,notin)", "in in (in)", "notin", "x=in", "x,y,!z", "x>007",
        "example.com/app=web", "a.b-c_d=E.f-G_h", "x\tin\n(a)", "x=a\r", "x!=a,!y",
        "k=0123456789012345678901234567890123456789012345678901234567890ab"}) {
    EXPECT_TRUE(label_selector_is_valid(selector)) << '"' << selector << '"';
  }
}

TEST(ProbeListOptions, LabelSelectorsFailAsLabelsParseRejects) {
  for (const std::string selector :
       {"x=a||y=b", "x==a==b", "!x=a", "x<a", "x=a,", ",", "x,,y", "=a", "x in a", "x in (a", "x in (a,b",
        "x=(a,b)", "x in in", "x (a)", "x=a b", "x>1.5", "x>", "x<99999999999999999999", "x gt 1", "x>-5", "x<+5", "!", "!!x",
        "!x in (a)", "-x=a", "x-=a", "x=-a", "x=a-", "/x=a", "a/b/c=d", "Example.com/app=web", "x=a%b", "x ~= a",
        "x=a)", "(x)", "x in (a)(b)", "x=\"a\"", "k=0123456789012345678901234567890123456789012345678901234567890abc",
        "0123456789012345678901234567890123456789012345678901234567890abc"}) {
    EXPECT_FALSE(label_selector_is_valid(selector)) << '"' << selector << '"';
  }
}

TEST(ProbeListOptions, LabelSelectorNulBytesBehaveAsInGosLexer) {
  // Go's lexer reads 0 both at the end of input and for a NUL byte, with position-dependent effects.
  using namespace std::string_literals;
  EXPECT_TRUE(label_selector_is_valid("\0x=("s));              // at a token start: end of input
  EXPECT_TRUE(label_selector_is_valid("x=a \0garbage(("s));    // after blanks: end of input
  EXPECT_FALSE(label_selector_is_valid("x=a\0garbage"s));      // inside an identifier: a separator
  EXPECT_TRUE(label_selector_is_valid("x=a,\0y"s));            // after an operator: swallowed
}

TEST(ProbeListOptions, FieldSelectorsDecodeAsFieldsParseSelectorAccepts) {
  for (const std::string selector : {"", "a=b", "a==b", "a!=b", "a=b,c=d", ",a=b,,", "a=", "=b", "!x=a",
                                     "x=a\\,b", "x=a\\\\b", "x=a\\=b", "a b = c d", "a<b=c", "x!y=z"}) {
    EXPECT_TRUE(field_selector_is_valid(selector)) << selector;
  }
  for (const std::string selector : {"a", "a=b,c", "x=a||y=b", "x==a==b", "x<a", "x=a=b", "x=a\\", "x=a\\b",
                                     "x=a\\/b", "a=b,c=d\\", "a!==b"}) {
    EXPECT_FALSE(field_selector_is_valid(selector)) << selector;
  }
}

TEST(ProbeListOptions, FieldSelectorNameIsTheFirstEqualsTermInSortedOrder) {
  EXPECT_EQ(field_selector_name("metadata.name!=x,metadata.name=b,metadata.name=a"), "a");
  EXPECT_EQ(field_selector_name("metadata.name==a\\=b,spec.nodeName!=n1"), "a=b");
  EXPECT_EQ(field_selector_name("metadata.namespace=a"), std::nullopt);
  EXPECT_EQ(field_selector_name("metadata.name!=x"), std::nullopt);
  // The slow path of fields.UnescapeValue re-encodes malformed UTF-8 as U+FFFD; without escapes the value is kept.
  EXPECT_EQ(field_selector_name("metadata.name=\xFF\\,"), "\xEF\xBF\xBD,");
  EXPECT_EQ(field_selector_name("metadata.name=\xFF"), "\xFF");
  EXPECT_EQ(field_selector_name("metadata.name=\xE2\x82\xAC\\="), "\xE2\x82\xAC=");
}

TEST(ParsesAsInt64, MatchesStrconvParseIntBase10) {
  for (const std::string text : {"0", "-0", "+0", "42", "-42", "+42", "007", "9223372036854775807",
                                 "-9223372036854775808"}) {
    EXPECT_TRUE(parses_as_int64(text)) << text;
  }
  for (const std::string text : {"", "+", "-", " 1", "1 ", "1_000", "0x10", "1e3", "1.0", "9223372036854775808",
                                 "-9223372036854775809", "99999999999999999999", "--1"}) {
    EXPECT_FALSE(parses_as_int64(text)) << text;
  }
}

TEST(QueryValueIsTrue, OnlyZeroAndFalseAreFalse) {
  EXPECT_FALSE(query_value_is_true("0"));
  EXPECT_FALSE(query_value_is_true("false"));
  EXPECT_FALSE(query_value_is_true("FaLsE"));
  EXPECT_FALSE(query_value_is_true("fal\xC5\xBF" "e"));
  EXPECT_TRUE(query_value_is_true(""));
  EXPECT_TRUE(query_value_is_true("00"));
  EXPECT_TRUE(query_value_is_true("no"));
  EXPECT_TRUE(query_value_is_true(" false"));
}

TEST(ProbeListOptions, DecodesLikeTheParameterCodec) {
  const auto probe = [](std::string_view raw) { return probe_list_options(http::QueryParams::parse(raw)); };
  EXPECT_TRUE(probe("").decoded);
  EXPECT_FALSE(probe("").watch);
  EXPECT_TRUE(probe("watch=1&allowWatchBookmarks=maybe&resourceVersion=x&sendInitialEvents=zz").decoded);
  EXPECT_FALSE(probe("limit=").decoded);
  EXPECT_FALSE(probe("timeoutSeconds=1s").decoded);
  EXPECT_TRUE(probe("limit=500&limit=x").decoded);  // only the first value is converted
  EXPECT_FALSE(probe("labelSelector=a%20b").decoded);
  EXPECT_FALSE(probe("fieldSelector=a").decoded);

  EXPECT_EQ(probe("fieldSelector=metadata.name%3Dn").field_selector_name, "n");
  EXPECT_EQ(probe("fieldSelector=metadata.name%3D").field_selector_name, "");
  EXPECT_EQ(probe("fieldSelector=metadata.name%3D.").field_selector_name, std::nullopt);
  EXPECT_EQ(probe("fieldSelector=metadata.name%3Da%2Fb").field_selector_name, std::nullopt);
  EXPECT_EQ(probe("fieldSelector=metadata.name%3D...").field_selector_name, "...");
  EXPECT_EQ(probe("fieldSelector=metadata.name%3Dn&limit=1.5").field_selector_name, std::nullopt);
}

}  // namespace
}  // namespace kapi::request::list_options_probe_test

#include "server/http/query.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kapi::http::query_test {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs pairs_of(const QueryParams& params) { return Pairs(params.begin(), params.end()); }

TEST(PercentDecode, DecodesEscapesAndOptionallyPlus) {
  EXPECT_EQ(percent_decode("a%20b%2Fc", false), "a b/c");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("%e2%82%AC", true), "\xE2\x82\xAC");
  EXPECT_EQ(percent_decode("", true), "");
  EXPECT_EQ(percent_decode("%00", true), std::string(1, '\0'));
}

TEST(PercentDecode, RejectsInvalidEscapes) {
  EXPECT_EQ(percent_decode("%", true), std::nullopt);
  EXPECT_EQ(percent_decode("%4", true), std::nullopt);
  EXPECT_EQ(percent_decode("abc%", true), std::nullopt);
  EXPECT_EQ(percent_decode("%zz", true), std::nullopt);
  EXPECT_EQ(percent_decode("%4g", true), std::nullopt);
  EXPECT_EQ(percent_decode("ok%2", false), std::nullopt);
}

TEST(PercentEncode, QueryComponentMatchesGoQueryEscape) {
  EXPECT_EQ(percent_encode_query_component("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(percent_encode_query_component("a b"), "a+b");
  EXPECT_EQ(percent_encode_query_component("$&+,/:;=?@"), "%24%26%2B%2C%2F%3A%3B%3D%3F%40");
  EXPECT_EQ(percent_encode_query_component("metadata.name=foo,x!=y"), "metadata.name%3Dfoo%2Cx%21%3Dy");
  EXPECT_EQ(percent_encode_query_component("\xE2\x82\xAC%"), "%E2%82%AC%25");
}

TEST(PercentEncode, PathKeepsSlashAndSubDelimiters) {
  EXPECT_EQ(percent_encode_path("/api/v1/namespaces/a b"), "/api/v1/namespaces/a%20b");
  EXPECT_EQ(percent_encode_path("/x$&+,:;=@"), "/x$&+,:;=@");
  EXPECT_EQ(percent_encode_path("/a?b#c%"), "/a%3Fb%23c%25");
}

TEST(PercentEncode, RoundTripsThroughDecode) {
  const std::string every_byte = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) s.push_back(static_cast<char>(c));
    return s;
  }();
  EXPECT_EQ(percent_decode(percent_encode_query_component(every_byte), true), every_byte);
  EXPECT_EQ(percent_decode(percent_encode_path(every_byte), false), every_byte);
}

struct ParseCase {
  std::string raw;
  Pairs expected;
};

class QueryParamsParse : public testing::TestWithParam<ParseCase> {};

TEST_P(QueryParamsParse, MatchesGoParseQuery) {
  const auto params = QueryParams::parse(GetParam().raw);
  EXPECT_EQ(pairs_of(params), GetParam().expected) << "raw: " << GetParam().raw;
  EXPECT_EQ(params.raw(), GetParam().raw);
}

// Cases follow Go's net/url TestParseQuery, plus the ways ParseQuery drops pairs and keeps going.
INSTANTIATE_TEST_SUITE_P(
    GoSemantics, QueryParamsParse,
    testing::Values(
        ParseCase{"", {}},
        ParseCase{"a=1", {{"a", "1"}}},
        ParseCase{"a=1&b=2", {{"a", "1"}, {"b", "2"}}},
        ParseCase{"a=1&a=2&a=banana", {{"a", "1"}, {"a", "2"}, {"a", "banana"}}},
        ParseCase{"ascii=%3Ckey%3A+0x90%3E", {{"ascii", "<key: 0x90>"}}},
        ParseCase{"a=1;b=2", {}},                          // Go >= 1.17: ';' is no separator, the pair is dropped
        ParseCase{"a;b=1&c=2", {{"c", "2"}}},              // ... and only that pair
        ParseCase{"a=%3B", {{"a", ";"}}},                  // an escaped ';' is fine
        ParseCase{"a%3Bb=1", {{"a;b", "1"}}},
        ParseCase{"a=1&&b=2&", {{"a", "1"}, {"b", "2"}}},  // empty pairs are skipped
        ParseCase{"&&&", {}},
        ParseCase{"k", {{"k", ""}}},                       // no '=' means an empty value
        ParseCase{"k=", {{"k", ""}}},
        ParseCase{"=v", {{"", "v"}}},                      // an empty key is still a key
        ParseCase{"=", {{"", ""}}},
        ParseCase{"a=b=c", {{"a", "b=c"}}},                // split at the first '='
        ParseCase{"fieldSelector=metadata.name=n1,foo", {{"fieldSelector", "metadata.name=n1,foo"}}},
        ParseCase{"a+b=c+d", {{"a b", "c d"}}},
        ParseCase{"a%2Bb=c%2bd", {{"a+b", "c+d"}}},
        ParseCase{"bad=%zz&good=1", {{"good", "1"}}},      // a bad escape drops its pair only
        ParseCase{"%=1&x=%&y=2", {{"y", "2"}}},
        ParseCase{"x=%4&y=%41", {{"y", "A"}}},
        ParseCase{"a=%00", {{"a", std::string(1, '\0')}}},
        ParseCase{"?a=1", {{"?a", "1"}}},                  // the caller strips the '?'
        ParseCase{"a=1#frag", {{"a", "1#frag"}}}));

TEST(QueryParams, GetReturnsFirstValueAndDistinguishesAbsentFromEmpty) {
  const auto params = QueryParams::parse("watch=&limit=5&limit=7&x");
  ASSERT_TRUE(params.get("watch").has_value());
  EXPECT_EQ(*params.get("watch"), "");
  EXPECT_EQ(params.get("limit"), "5");
  EXPECT_EQ(params.get("x"), "");
  EXPECT_EQ(params.get("missing"), std::nullopt);
  EXPECT_TRUE(params.has("watch"));
  EXPECT_TRUE(params.has("x"));
  EXPECT_FALSE(params.has("Watch"));  // keys are case-sensitive, as in Go
  EXPECT_FALSE(params.has("missing"));
}

TEST(QueryParams, AllKeepsOrderOfRepeatedKeys) {
  const auto params = QueryParams::parse("dryRun=All&x=1&dryRun=Other&dryRun=");
  EXPECT_EQ(params.all("dryRun"), (std::vector<std::string_view>{"All", "Other", ""}));
  EXPECT_EQ(params.all("x"), (std::vector<std::string_view>{"1"}));
  EXPECT_TRUE(params.all("nope").empty());
  EXPECT_EQ(params.size(), 4u);
  EXPECT_FALSE(params.empty());
  EXPECT_TRUE(QueryParams{}.empty());
}

TEST(QueryParams, ValuesOutliveTheRawInput) {
  QueryParams params;
  {
    std::string raw = "labelSelector=app%3Dweb";
    params = QueryParams::parse(raw);
    raw.assign(raw.size(), 'X');
  }
  EXPECT_EQ(params.get("labelSelector"), "app=web");
  EXPECT_EQ(params.raw(), "labelSelector=app%3Dweb");
}

TEST(QueryParams, EncodeThenParseRoundTrips) {
  const std::vector<std::pair<std::string, std::string>> original{
      {"fieldSelector", "metadata.name=a b,spec.nodeName!=x"}, {"labelSelector", "env in (a,b)"}, {"k&=", "v;%+"}};
  std::string raw;
  for (const auto& [k, v] : original) {
    if (!raw.empty()) raw += '&';
    raw += percent_encode_query_component(k) + "=" + percent_encode_query_component(v);
  }
  EXPECT_EQ(pairs_of(QueryParams::parse(raw)), original);
}

}  // namespace
}  // namespace kapi::http::query_test

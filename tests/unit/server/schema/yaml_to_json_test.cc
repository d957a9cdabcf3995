// YAML bodies as kube reads them: go-yaml v2's typing, sigs.k8s.io/yaml's key conversion, go-yaml's guards.
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::schema::yaml_to_json_test {
namespace {

namespace json = boost::json;

std::string converted(std::string_view yaml) { return json::serialize(yaml_to_json(yaml).value); }

std::string error_of(std::string_view yaml, const YamlLimits& limits = {}) {
  try {
    yaml_to_json(yaml, limits);
  } catch (const YamlError& error) {
    return error.what();
  }
  return "no error";
}

TEST(YamlToJsonTest, PlainScalarsAreTypedAsGoYamlV2TypesThem) {
  EXPECT_EQ(converted("a: null\nb: ~\nc:\nd: Null"), R"({"a":null,"b":null,"c":null,"d":null})");
  // YAML 1.1 booleans, as go-yaml v2 reads them
  EXPECT_EQ(converted("a: true\nb: False\nc: yes\nd: off\ne: y\nf: N\ng: On"),
            R"({"a":true,"b":false,"c":true,"d":false,"e":true,"f":false,"g":true})");
  EXPECT_EQ(converted("a: 42\nb: -7\nc: 0x1F\nd: 0o17\ne: 010\nf: 0b101\ng: 1_000\nh: +5"),
            R"({"a":42,"b":-7,"c":31,"d":15,"e":8,"f":5,"g":1000,"h":5})");
  EXPECT_EQ(converted("big: 18446744073709551615\nmin: -9223372036854775808"),
            R"({"big":18446744073709551615,"min":-9223372036854775808})");
  // floats; an integral one is written as Go's encoding/json writes it, without a fraction
  EXPECT_EQ(yaml_to_json("a: 1.5\nb: 3.0\nc: .5\nd: 1e3\ne: -2.5e-3").value,
            json::parse(R"({"a":1.5,"b":3,"c":0.5,"d":1000,"e":-0.0025})"));
  // what is none of those stays a string: versions, dates, words
  EXPECT_EQ(converted("a: 1.2.3\nb: 2001-12-14\nc: hello world\nd: 12abc\ne: .x\nf: <<"),
            R"({"a":"1.2.3","b":"2001-12-14","c":"hello world","d":"12abc","e":".x","f":"<<"})");
}

TEST(YamlToJsonTest, QuotedScalarsAndStrTagsAreStrings) {
  EXPECT_EQ(converted("a: \"true\"\nb: '42'\nc: \"null\"\nd: !!str 1.5\ne: ''"),
            R"({"a":"true","b":"42","c":"null","d":"1.5","e":""})");
  EXPECT_EQ(converted("a: !!int \"7\"\nb: !!float 2\nc: !!binary aGVsbG8=\nd: !custom 3"),
            R"({"a":7,"b":2,"c":"hello","d":"3"})");
  EXPECT_EQ(error_of("a: !!int abc"), "yaml: cannot decode !!str `abc` as a !!int");
  EXPECT_EQ(converted("text: |\n  line one\n  line two\n"), R"({"text":"line one\nline two\n"})");
}

TEST(YamlToJsonTest, KeysAreStringsAndObjectsComeOutSortedAsGoWritesAMap) {
  EXPECT_EQ(converted("b: 1\na: 2\n1: x\ntrue: t\n1.5: z"), R"({"1":"x","1.5":"z","a":2,"b":1,"true":"t"})");
  EXPECT_EQ(converted("list:\n- b: 1\n  a: 2\n- [1, two, {z: 0, x: 1}]"),
            R"({"list":[{"a":2,"b":1},[1,"two",{"x":1,"z":0}]]})");
  // go-yaml v2 reads a plain y / n / on / off key as a bool, which sigs.k8s.io/yaml writes as "true" / "false"
  EXPECT_EQ(converted("y: 1\nno: 2\n\"n\": 3"), R"({"false":2,"n":3,"true":1})");
  EXPECT_NE(error_of("? [a, b]\n: c").find("yaml: invalid map key"), std::string::npos);
  EXPECT_EQ(error_of("~: x"), "Unsupported map key of type: %!s(<nil>), key: <nil>");
}

TEST(YamlToJsonTest, NonMappingDocumentsAndOnlyTheFirstDocument) {
  EXPECT_EQ(converted("- a\n- 1"), R"(["a",1])");
  EXPECT_EQ(converted("just text"), R"("just text")");
  EXPECT_EQ(converted(""), "null");
  EXPECT_EQ(converted("# only a comment\n"), "null");
  // go-yaml's Unmarshal reads one document; what follows the first is never looked at
  EXPECT_EQ(converted("a: 1\n---\nb: 2\n"), R"({"a":1})");
  EXPECT_EQ(converted("---\na: 1\n...\n"), R"({"a":1})");
}

TEST(YamlToJsonTest, AnchorsAliasesAndMergeKeys) {
  EXPECT_EQ(converted("base: &b {x: 1, z: 2}\ncopy: *b\nlist: [&v 5, *v]"),
            R"({"base":{"x":1,"z":2},"copy":{"x":1,"z":2},"list":[5,5]})");
  EXPECT_EQ(converted("base: &b {x: 1, z: 2}\nderived:\n  <<: *b\n  z: 3"),
            R"({"base":{"x":1,"z":2},"derived":{"x":1,"z":3}})");
  EXPECT_EQ(converted("a: &a {k: a}\nb: &b {k: b, only: b}\nm:\n  <<: [*a, *b]"),
            R"({"a":{"k":"a"},"b":{"k":"b","only":"b"},"m":{"k":"a","only":"b"}})");
  EXPECT_EQ(converted("m: {\"<<\": 1}"), R"({"m":{"<<":1}})");  // a quoted << is an ordinary key
  EXPECT_EQ(error_of("a: *nowhere"), "yaml: unknown anchor 'nowhere' referenced");
  EXPECT_EQ(error_of("a: &self [1, *self]"), "yaml: anchor 'self' value contains itself");
  EXPECT_EQ(error_of("m:\n  <<: 3"), "yaml: map merge requires map or sequence of maps as the value");
}

std::string billion_laughs(int levels, int fan_out) {
  std::string yaml = "a: &a [\"lol\"]\n";
  for (int level = 1; level < levels; ++level) {
    const std::string name(1, static_cast<char>('a' + level)), previous(1, static_cast<char>('a' + level - 1));
    yaml += name + ": &" + name + " [";
    for (int i = 0; i < fan_out; ++i) yaml += (i ? ", *" : "*") + previous;
    yaml += "]\n";
  }
  return yaml;
}

TEST(YamlToJsonTest, AliasBombsAreRefusedAsGoYamlRefusesThem) {
  // 9 levels of 9 aliases: 9^8 (43 million) nodes from a few hundred bytes.
  const std::string bomb = billion_laughs(9, 9);
  ASSERT_LT(bomb.size(), 1000u);
  EXPECT_EQ(error_of(bomb), "yaml: document contains excessive aliasing");
  // A big string repeated by aliases is bounded too, although it is few nodes.
  std::string strings = "s: &s \"" + std::string(100000, 'x') + "\"\nl: [";
  for (int i = 0; i < 200; ++i) strings += (i ? ", *s" : "*s");
  EXPECT_EQ(error_of(strings + "]"), "yaml: document contains excessive aliasing");
  // Ordinary reuse is fine.
  EXPECT_EQ(json::serialize(yaml_to_json(billion_laughs(3, 3)).value.as_object()["c"]),
            R"([[["lol"],["lol"],["lol"]],[["lol"],["lol"],["lol"]],[["lol"],["lol"],["lol"]]])");
}

TEST(YamlToJsonTest, NestingIsBounded) {
  std::string deep_flow(50, '[');
  EXPECT_EQ(error_of(deep_flow + std::string(50, ']'), {.max_depth = 20}), "yaml: line 1: exceeded max depth of 20");
  std::string deep_block;
  for (int i = 0; i < 30; ++i) deep_block += std::string(2 * i, ' ') + "k:\n";
  EXPECT_EQ(error_of(deep_block, {.max_depth = 20}), "yaml: line 21: exceeded max depth of 20");
  // far past yaml-cpp's own recursion limit: still an error, not a crash
  EXPECT_NE(error_of(std::string(100000, '[')).find("exceeded max depth"), std::string::npos);
  // an alias does not smuggle depth past the bound
  std::string nested = "a: &a " + std::string(15, '[') + std::string(15, ']') + "\nb: " + std::string(10, '[') + "*a" +
                       std::string(10, ']');
  EXPECT_EQ(error_of(nested, {.max_depth = 20}), "yaml: line 2: exceeded max depth of 20");
}

TEST(YamlToJsonTest, SyntaxErrorsInGoYamlsWords) {
  EXPECT_EQ(error_of("a: b: c"), "yaml: line 1: mapping values are not allowed in this context");
  // a parser error names the 0-based line, as go-yaml's does
  EXPECT_EQ(error_of("a: 1\nb: [1, 2\n"), "yaml: line 2: did not find expected ',' or ']'");
  EXPECT_EQ(error_of("a: .inf"), "json: unsupported value: +Inf");
}

TEST(YamlToJsonTest, DuplicateKeysKeepTheLaterValueAndAreReportedAsGoYamlStrictDoes) {
  YamlDocument document = yaml_to_json("metadata:\n  name: first\n  name: second\nspec:\n  paused: true\n  paused: false\n");
  EXPECT_EQ(json::serialize(document.value), R"({"metadata":{"name":"second"},"spec":{"paused":false}})");
  EXPECT_EQ(document.duplicate_keys, (std::vector<std::string>{"line 3: key \"name\" already set in map",
                                                                "line 6: key \"paused\" already set in map"}));
  EXPECT_EQ(yaml_unmarshal_errors(document.duplicate_keys),
            "yaml: unmarshal errors:\n  line 3: key \"name\" already set in map\n  line 6: key \"paused\" already set in map");
  EXPECT_EQ(yaml_to_json("1: a\n1: b").duplicate_keys, (std::vector<std::string>{"line 2: key 1 already set in map"}));
  EXPECT_TRUE(yaml_to_json("a: 1\nb: 1").duplicate_keys.empty());
}

}  // namespace
}  // namespace kapi::schema::yaml_to_json_test

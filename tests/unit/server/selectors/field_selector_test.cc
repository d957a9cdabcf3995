#include "server/selectors/field_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

// Cases and messages follow k8s.io/apimachinery/pkg/fields/selector_test.go.
namespace kapi::selectors::field_selector_test {
namespace {

using Op = FieldRequirement::Operator;

std::string parse_error(std::string_view text) {
  try {
    FieldSelector::parse(text);
  } catch (const SelectorParseError& error) {
    return error.what();
  }
  return "<parsed>";
}

bool matches(std::string_view selector, const FieldMap& fields) { return FieldSelector::parse(selector).matches(fields); }

TEST(FieldSelectorParse, GoodStringsPrintBackUnchanged) {
  for (std::string_view text : {"x=a,y=b,z=c", "", "x!=a,y=b", R"(x=a||y\=b)", R"(x=a\=\=b)", R"(x=a\,b\\)"}) {
    EXPECT_EQ(FieldSelector::parse(text).to_string(), text) << text;
  }
}

TEST(FieldSelectorParse, Terms) {
  using R = FieldRequirement;
  EXPECT_EQ(FieldSelector::parse("metadata.name=foo").requirements(),
            (std::vector<R>{{"metadata.name", Op::Equals, "foo"}}));
  EXPECT_EQ(FieldSelector::parse("a==b").requirements(), (std::vector<R>{{"a", Op::Equals, "b"}}));
  EXPECT_EQ(FieldSelector::parse("a!=b").requirements(), (std::vector<R>{{"a", Op::NotEquals, "b"}}));
  EXPECT_EQ(FieldSelector::parse("a=").requirements(), (std::vector<R>{{"a", Op::Equals, ""}}));
  EXPECT_EQ(FieldSelector::parse("=b").requirements(), (std::vector<R>{{"", Op::Equals, "b"}}));
  // Nothing is trimmed: spaces belong to the field and the value.
  EXPECT_EQ(FieldSelector::parse("a = b").requirements(), (std::vector<R>{{"a ", Op::Equals, " b"}}));
  // The first operator splits; `!=` and `==` are tried before `=` at each place.
  EXPECT_EQ(FieldSelector::parse("a!b=c").requirements(), (std::vector<R>{{"a!b", Op::Equals, "c"}}));
  EXPECT_EQ(FieldSelector::parse("a=!b").requirements(), (std::vector<R>{{"a", Op::Equals, "!b"}}));
  EXPECT_EQ(FieldSelector::parse("==b").requirements(), (std::vector<R>{{"", Op::Equals, "b"}}));
}

TEST(FieldSelectorParse, TermsAreSortedAsWrittenAndEmptyOnesSkipped) {
  EXPECT_EQ(FieldSelector::parse("spec.nodeName=n,metadata.name=a").to_string(), "metadata.name=a,spec.nodeName=n");
  EXPECT_EQ(FieldSelector::parse("b=1,,a=2,").to_string(), "a=2,b=1");
  EXPECT_EQ(FieldSelector::parse("a==b").to_string(), "a=b");
  EXPECT_TRUE(FieldSelector::parse(",").empty());
  // A term without field and value stands for nothing, as kube's Transform drops it.
  EXPECT_TRUE(FieldSelector::parse("=").empty());
  EXPECT_TRUE(FieldSelector::parse("!=").empty());
  EXPECT_EQ(FieldSelector::parse("=,a=b").to_string(), "a=b");
}

TEST(FieldSelectorParse, EscapedValues) {
  EXPECT_EQ(FieldSelector::parse(R"(a=x\,y,b=z)").requirements(),
            (std::vector<FieldRequirement>{{"a", Op::Equals, "x,y"}, {"b", Op::Equals, "z"}}));
  EXPECT_EQ(FieldSelector::parse(R"(a=\=value\\\,\\)").requirements().front().value, R"(=value\,\)");
  // Only the value unescapes; a backslash in the field is kept.
  EXPECT_EQ(FieldSelector::parse(R"(a\b=c)").requirements().front().field, R"(a\b)");
  // Without anything to unescape the value is kept byte for byte; otherwise Go's rune walk rewrites bad UTF-8.
  EXPECT_EQ(FieldSelector::parse("a=\xff").requirements().front().value, "\xff");
  EXPECT_EQ(FieldSelector::parse("a=\xff\\,").requirements().front().value, "\xef\xbf\xbd,");
  EXPECT_EQ(FieldSelector::parse("a=\xc3\xa9\\=").requirements().front().value, "\xc3\xa9=");
}

TEST(FieldSelectorParse, EverythingIsEmpty) {
  EXPECT_TRUE(FieldSelector::parse("").empty());
  EXPECT_EQ(FieldSelector::parse(""), FieldSelector::everything());
  EXPECT_FALSE(FieldSelector::parse("a=b").empty());
  EXPECT_EQ(FieldSelector::everything().to_string(), "");
}

TEST(FieldSelectorErrors, MessagesAreKubes) {
  EXPECT_EQ(parse_error("x"), "invalid selector: 'x'; can't understand 'x'");
  EXPECT_EQ(parse_error("x=a,b"), "invalid selector: 'x=a,b'; can't understand 'b'");
  EXPECT_EQ(parse_error("x in (a)"), "invalid selector: 'x in (a)'; can't understand 'x in (a)'");
  EXPECT_EQ(parse_error("x in (a,b,c)"), "invalid selector: 'x in (a,b,c)'; can't understand 'b'");
  // Go prints the offending rune with %v: its code point.
  EXPECT_EQ(parse_error("x=a||y=b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(parse_error("x==a==b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(parse_error(R"(a=\)"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(parse_error(R"(a=\\\)"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(parse_error(R"(a=\b)"), R"(invalid field selector: invalid escape sequence: \b)");
  EXPECT_EQ(parse_error("a=\\\xc3\xa9"), "invalid field selector: invalid escape sequence: \\\xc3\xa9");
  EXPECT_EQ(parse_error("a=\\\xff"), "invalid field selector: invalid escape sequence: \\\xef\xbf\xbd");
  // Terms are checked in sorted order: "a=x=y" comes before "b".
  EXPECT_EQ(parse_error("b,a=x=y"), "invalid field selector: unescaped character in value: 61");
  EXPECT_THROW(FieldSelector::parse("nope"), std::invalid_argument);
}

TEST(FieldSelectorMatch, GoSelectorMatches) {
  EXPECT_TRUE(matches("", {{"x", "y"}}));
  EXPECT_TRUE(matches("x=y", {{"x", "y"}}));
  EXPECT_TRUE(matches("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(matches("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(matches("notin=in", {{"notin", "in"}}));
  EXPECT_FALSE(matches("x=y", {{"x", "z"}}));
  EXPECT_FALSE(matches("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(matches("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));

  const FieldMap fields{{"foo", "bar"}, {"baz", "blah"}, {"complex", R"(=value\,\)"}};
  EXPECT_TRUE(matches("foo=bar", fields));
  EXPECT_TRUE(matches("baz=blah", fields));
  EXPECT_TRUE(matches("foo=bar,baz=blah", fields));
  EXPECT_TRUE(matches(R"(foo=bar,baz=blah,complex=\=value\\\,\\)", fields));
  EXPECT_FALSE(matches("foo=blah", fields));
  EXPECT_FALSE(matches("baz=bar", fields));
  EXPECT_FALSE(matches("foo=bar,foobar=bar,baz=blah", fields));
}

TEST(FieldSelectorMatch, MissingFieldComparesAsEmpty) {
  EXPECT_TRUE(matches("spec.nodeName=", {}));
  EXPECT_FALSE(matches("spec.nodeName!=", {}));
  EXPECT_TRUE(matches("spec.nodeName!=n1", {}));
  EXPECT_FALSE(matches("spec.nodeName=n1", {}));
  EXPECT_TRUE(matches("spec.nodeName!=", {{"spec.nodeName", "n1"}}));
}

TEST(FieldSelectorMatch, AnyLookup) {
  const auto selector = FieldSelector::parse("metadata.namespace=default,status.phase!=Succeeded");
  const auto pod = [](std::string_view field) -> std::optional<std::string_view> {
    if (field == "metadata.namespace") return "default";
    if (field == "status.phase") return "Running";
    return std::nullopt;
  };
  EXPECT_TRUE(selector.matches(pod));
  EXPECT_FALSE(FieldSelector::parse("status.phase=Succeeded").matches(pod));
}

TEST(FieldSelectorExactValue, FirstEqualsTermOnTheField) {
  const auto selector = FieldSelector::parse("metadata.name=foo,status.phase!=Running");
  EXPECT_EQ(selector.exact_value("metadata.name"), "foo");
  EXPECT_EQ(selector.exact_value("status.phase"), std::nullopt);
  EXPECT_EQ(selector.exact_value("spec.nodeName"), std::nullopt);
  // A != term on the field does not hide a later = term.
  EXPECT_EQ(FieldSelector::parse("a!=x,a=y").exact_value("a"), "y");
  EXPECT_EQ(FieldSelector::parse("a=").exact_value("a"), "");
  EXPECT_EQ(FieldSelector::everything().exact_value("a"), std::nullopt);
}

TEST(FieldSelectorFields, DistinctNamesInTermOrder) {
  EXPECT_EQ(FieldSelector::parse("spec.nodeName=n,metadata.name=a,metadata.name!=b").fields(),
            (std::vector<std::string>{"metadata.name", "spec.nodeName"}));
  EXPECT_TRUE(FieldSelector::everything().fields().empty());
}

TEST(FieldSelectorEscape, EscapesBackslashCommaAndEquals) {
  EXPECT_EQ(escape_field_value(R"(a\b,c=d)"), R"(a\\b\,c\=d)");
  EXPECT_EQ(escape_field_value("plain"), "plain");
  EXPECT_EQ(escape_field_value(""), "");
  const std::string awkward = R"(=,\x\,=)";
  const auto selector = FieldSelector::parse("f=" + escape_field_value(awkward));
  EXPECT_EQ(selector.exact_value("f"), awkward);
  EXPECT_EQ(FieldSelector::parse(selector.to_string()), selector);
}

}  // namespace
}  // namespace kapi::selectors::field_selector_test

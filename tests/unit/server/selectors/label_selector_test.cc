#include "base/name_validation.h"
#include "server/selectors/label_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

// Cases and messages follow k8s.io/apimachinery/pkg/labels/selector_test.go and errors kube-apiserver 1.32 returns.
namespace kapi::selectors::label_selector_test {
namespace {

using Op = LabelRequirement::Operator;

std::string parse_error(std::string_view text) {
  try {
    LabelSelector::parse(text);
  } catch (const SelectorParseError& error) {
    return error.what();
  }
  return "<parsed>";
}

bool matches(std::string_view selector, const LabelMap& labels) { return LabelSelector::parse(selector).matches(labels); }

const std::string kNameRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRule =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

TEST(LabelSelectorParse, GoodStringsPrintBackWithoutTheirSpaces) {
  for (std::string text : {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"}) {
    std::string without_spaces = text;
    std::erase(without_spaces, ' ');
    EXPECT_EQ(LabelSelector::parse(text).to_string(), without_spaces) << text;
  }
}

TEST(LabelSelectorParse, SortsRequirementsByKey) {
  EXPECT_EQ(LabelSelector::parse("x=a,a=x").to_string(), "a=x,x=a");
  EXPECT_EQ(LabelSelector::parse("x=a,a=x"), LabelSelector::parse("a=x,x=a"));
  // Same-key requirements keep the order they were written in.
  EXPECT_EQ(LabelSelector::parse("z!=a,y,z").to_string(), "y,z!=a,z");
}

TEST(LabelSelectorParse, EveryOperator) {
  const auto only = [](std::string_view text) {
    const auto selector = LabelSelector::parse(text);
    EXPECT_EQ(selector.requirements().size(), 1u) << text;
    return selector.requirements().front();
  };
  EXPECT_EQ(only("x=a"), (LabelRequirement{"x", Op::Equals, {"a"}}));
  EXPECT_EQ(only("x==a"), (LabelRequirement{"x", Op::DoubleEquals, {"a"}}));
  EXPECT_EQ(only("x!=a"), (LabelRequirement{"x", Op::NotEquals, {"a"}}));
  EXPECT_EQ(only("x in (b,a)"), (LabelRequirement{"x", Op::In, {"a", "b"}}));
  EXPECT_EQ(only("x notin (a)"), (LabelRequirement{"x", Op::NotIn, {"a"}}));
  EXPECT_EQ(only("x"), (LabelRequirement{"x", Op::Exists, {}}));
  EXPECT_EQ(only("!x"), (LabelRequirement{"x", Op::DoesNotExist, {}}));
  EXPECT_EQ(only("x>1"), (LabelRequirement{"x", Op::GreaterThan, {"1"}}));
  EXPECT_EQ(only("x<7"), (LabelRequirement{"x", Op::LessThan, {"7"}}));
  EXPECT_EQ(only("x="), (LabelRequirement{"x", Op::Equals, {""}}));
}

TEST(LabelSelectorParse, SetSyntaxAndWhitespace) {
  const auto requirements = [](std::string_view text) { return LabelSelector::parse(text).requirements(); };
  using R = LabelRequirement;
  EXPECT_EQ(requirements("\rx"), (std::vector<R>{{"x", Op::Exists, {}}}));
  EXPECT_EQ(requirements("a "), (std::vector<R>{{"a", Op::Exists, {}}}));
  EXPECT_EQ(requirements("this-is-a-dns.domain.com/key-with-dash"),
            (std::vector<R>{{"this-is-a-dns.domain.com/key-with-dash", Op::Exists, {}}}));
  EXPECT_EQ(requirements("this-is-another-dns.domain.com/key-with-dash in (so,what)"),
            (std::vector<R>{{"this-is-another-dns.domain.com/key-with-dash", Op::In, {"so", "what"}}}));
  EXPECT_EQ(requirements("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)"),
            (std::vector<R>{{"0.1.2.domain/99", Op::NotIn, {"10.10.100.1", "tick.tack.clock"}}}));
  EXPECT_EQ(requirements("foo  in\t (abc)"), (std::vector<R>{{"foo", Op::In, {"abc"}}}));
  EXPECT_EQ(requirements("x notin\n (abc)"), (std::vector<R>{{"x", Op::NotIn, {"abc"}}}));
  EXPECT_EQ(requirements("x  notin\t\t\t(abc,def)"), (std::vector<R>{{"x", Op::NotIn, {"abc", "def"}}}));
  EXPECT_EQ(requirements("x in (abc,)"), (std::vector<R>{{"x", Op::In, {"", "abc"}}}));
  EXPECT_EQ(requirements("x in ()"), (std::vector<R>{{"x", Op::In, {""}}}));
  EXPECT_EQ(requirements("x notin ( )"), (std::vector<R>{{"x", Op::NotIn, {""}}}));
  EXPECT_EQ(requirements("x notin (, a)"), (std::vector<R>{{"x", Op::NotIn, {"", "a"}}}));
  EXPECT_EQ(requirements("x in (b,a,b)"), (std::vector<R>{{"x", Op::In, {"a", "b"}}}));
  EXPECT_EQ(requirements("x notin (abc,,def),bar,z in (),w"),
            (std::vector<R>{{"bar", Op::Exists, {}},
                            {"w", Op::Exists, {}},
                            {"x", Op::NotIn, {"", "abc", "def"}},
                            {"z", Op::In, {""}}}));
  EXPECT_EQ(requirements("x,y in (a)"), (std::vector<R>{{"x", Op::Exists, {}}, {"y", Op::In, {"a"}}}));
  // `in` and `notin` are keywords only where an operator may stand.
  EXPECT_EQ(requirements("a in (x,y,notin, z,in)"), (std::vector<R>{{"a", Op::In, {"in", "notin", "x", "y", "z"}}}));
  EXPECT_EQ(requirements("notin=in"), (std::vector<R>{{"notin", Op::Equals, {"in"}}}));
}

TEST(LabelSelectorParse, EmptyTextIsEverything) {
  const auto selector = LabelSelector::parse("");
  EXPECT_TRUE(selector.empty());
  EXPECT_EQ(selector, LabelSelector::everything());
  EXPECT_TRUE(LabelSelector::parse("  \t").empty());
  EXPECT_FALSE(LabelSelector::parse("x").empty());
}

TEST(LabelSelectorParse, NulEndsTheInputAsGoReadsIt) {
  EXPECT_EQ(LabelSelector::parse(std::string("a=b\0", 4)).to_string(), "a=b");
  EXPECT_EQ(LabelSelector::parse(std::string("a \0 b", 5)).to_string(), "a");
  // Inside a word the NUL ends the word but not the scan.
  EXPECT_EQ(parse_error(std::string("a\0b", 3)),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
}

TEST(LabelSelectorErrors, SyntaxMessagesAreKubes) {
  EXPECT_EQ(parse_error("x==a==b"), "found '==', expected: ',' or 'end of string'");
  EXPECT_EQ(parse_error("!x=a"), "found '=', expected: ',' or 'end of string'");
  EXPECT_EQ(parse_error("x,,y"), "found ',', expected: identifier after ','");
  EXPECT_EQ(parse_error("app=myapp,"), "found '', expected: identifier after ','");
  EXPECT_EQ(parse_error("a in (xyz),"), "found '', expected: identifier after ','");
  EXPECT_EQ(parse_error(",x,y"), "found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(parse_error("("), "found '(', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(parse_error("a in (xyz)b notin ()"), "found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(parse_error("x nott in (y)"),
            "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(parse_error("a b"), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(parse_error("a ("), "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(parse_error("a in (xyz abc)"), "unable to parse requirement: found 'abc', expected: ',' or ')'");
  EXPECT_EQ(parse_error("x in (a"), "unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(parse_error("a notin("), "unable to parse requirement: found '', expected: ',', ')' or identifier");
  EXPECT_EQ(parse_error("x in (=)"), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  EXPECT_EQ(parse_error("x in (a,=)"), "unable to parse requirement: found '=', expected: ',', or identifier");
  EXPECT_EQ(parse_error("x in"), "unable to parse requirement: found '' expected: '('");
  EXPECT_EQ(parse_error("x in a"), "unable to parse requirement: found 'a' expected: '('");
  EXPECT_EQ(parse_error("x=)"), "unable to parse requirement: found ')', expected: identifier");
  EXPECT_EQ(parse_error("!"), "unable to parse requirement: found '', expected: identifier");
  EXPECT_EQ(parse_error("!!x"), "unable to parse requirement: found '!', expected: identifier");
  // The lexer takes the longest operator: `!==` is `!=` then `=`.
  EXPECT_EQ(parse_error("x!==a"), "unable to parse requirement: found '=', expected: identifier");
  EXPECT_EQ(parse_error("x=!a"), "unable to parse requirement: found '!', expected: identifier");
}

TEST(LabelSelectorErrors, InvalidKeysAreReportedWithANilPath) {
  EXPECT_EQ(parse_error("app:monolith"),
            "unable to parse requirement: <nil>: Invalid value: \"app:monolith\": name part " + kNameRule);
  EXPECT_EQ(parse_error("*bar"), "unable to parse requirement: <nil>: Invalid value: \"*bar\": name part " + kNameRule);
  EXPECT_EQ(parse_error("a/b/c ?=? def"),
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " + kNameRule +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(parse_error("app.kubernetes_io/name=vault"),
            "unable to parse requirement: <nil>: Invalid value: \"app.kubernetes_io/name\": prefix part " +
                kSubdomainRule);
  EXPECT_EQ(parse_error("/x"), "unable to parse requirement: <nil>: Invalid value: \"/x\": prefix part must be non-empty");
  EXPECT_EQ(parse_error("x/ in (a)"),
            "unable to parse requirement: <nil>: Invalid value: \"x/\": name part must be non-empty; name part " +
                kNameRule);
  const std::string long_name(64, 'a');
  EXPECT_EQ(parse_error(long_name),
            "unable to parse requirement: <nil>: Invalid value: \"" + long_name +
                "\": name part must be no more than 63 characters");
  // The key is quoted as Go's %q quotes it.
  EXPECT_EQ(parse_error("a\"b"), "unable to parse requirement: <nil>: Invalid value: \"a\\\"b\": name part " + kNameRule);
  EXPECT_EQ(parse_error("a\x01"), "unable to parse requirement: <nil>: Invalid value: \"a\\x01\": name part " + kNameRule);
  EXPECT_EQ(parse_error("\xc3\xa9t\xc3\xa9"),
            "unable to parse requirement: <nil>: Invalid value: \"\xc3\xa9t\xc3\xa9\": name part " + kNameRule);
  EXPECT_EQ(parse_error("a\xff"), "unable to parse requirement: <nil>: Invalid value: \"a\\xff\": name part " + kNameRule);
}

TEST(LabelSelectorErrors, InvalidValuesAreReportedPerValue) {
  const std::string long_value(64, 'z');
  EXPECT_EQ(parse_error("good-key=" + long_value),
            "unable to parse requirement: values[0][good-key]: Invalid value: \"" + long_value +
                "\": must be no more than 63 characters");
  EXPECT_EQ(parse_error("x=a||y=b"), "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " + kValueRule);
  // Values are checked sorted: "-b" sorts before "a".
  EXPECT_EQ(parse_error("x in (a,-b)"), "unable to parse requirement: values[0][x]: Invalid value: \"-b\": " + kValueRule);
  EXPECT_EQ(parse_error("x.io/k notin (a,b_)"),
            "unable to parse requirement: values[1][x.io/k]: Invalid value: \"b_\": " + kValueRule);
  EXPECT_EQ(parse_error("x in (-a,-b)"),
            "unable to parse requirement: [values[0][x]: Invalid value: \"-a\": " + kValueRule +
                ", values[1][x]: Invalid value: \"-b\": " + kValueRule + "]");
}

TEST(LabelSelectorErrors, GreaterAndLessTakeIntegers) {
  EXPECT_EQ(parse_error("x<a"),
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be "
            "an integer");
  EXPECT_EQ(parse_error("x>"),
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be "
            "an integer");
  EXPECT_EQ(parse_error("x>99999999999999999999"),
            "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' "
            "operators, the value must be an integer");
  // A negative bound is an integer but not a label value.
  EXPECT_EQ(parse_error("x>-1"), "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " + kValueRule);
  EXPECT_EQ(parse_error("x>-a"),
            "unable to parse requirement: [values[0]: Invalid value: \"-a\": for 'Gt', 'Lt' operators, the value must "
            "be an integer, values[0][x]: Invalid value: \"-a\": " + kValueRule + "]");
  EXPECT_NO_THROW(LabelSelector::parse("x>9223372036854775807"));
  EXPECT_NO_THROW(LabelSelector::parse("x<007"));
}

TEST(LabelSelectorErrors, ErrorIsAnInvalidArgument) {
  EXPECT_THROW(LabelSelector::parse("x=a=b"), std::invalid_argument);
}

TEST(LabelSelectorValidation, Keys) {
  EXPECT_TRUE(validation::is_qualified_name("app").empty());
  EXPECT_TRUE(validation::is_qualified_name("app.kubernetes.io/name").empty());
  EXPECT_TRUE(validation::is_qualified_name("A_b-c.D").empty());
  EXPECT_TRUE(validation::is_qualified_name(std::string(253, 'a') + "/" + std::string(63, 'b')).empty());
  EXPECT_EQ(validation::is_qualified_name(std::string(254, 'a') + "/b"),
            std::vector<std::string>{"prefix part must be no more than 253 characters"});
  EXPECT_EQ(validation::is_qualified_name("Example.com/b"), std::vector<std::string>{"prefix part " + kSubdomainRule});
  EXPECT_EQ(validation::is_qualified_name("a..b/c"), std::vector<std::string>{"prefix part " + kSubdomainRule});
  EXPECT_EQ(validation::is_qualified_name("-a"), std::vector<std::string>{"name part " + kNameRule});
  EXPECT_EQ(validation::is_qualified_name("a-"), std::vector<std::string>{"name part " + kNameRule});
  EXPECT_EQ(validation::is_qualified_name(""), (std::vector<std::string>{"name part must be non-empty", "name part " + kNameRule}));
  EXPECT_EQ(validation::is_qualified_name(std::string(64, 'a') + "_"),
            (std::vector<std::string>{"name part must be no more than 63 characters", "name part " + kNameRule}));
}

TEST(LabelSelectorValidation, Values) {
  EXPECT_TRUE(validation::is_valid_label_value("").empty());
  EXPECT_TRUE(validation::is_valid_label_value("a").empty());
  EXPECT_TRUE(validation::is_valid_label_value("1.2_3-x").empty());
  EXPECT_TRUE(validation::is_valid_label_value(std::string(63, 'v')).empty());
  EXPECT_EQ(validation::is_valid_label_value(std::string(64, 'v')),
            std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_EQ(validation::is_valid_label_value("a/b"), std::vector<std::string>{kValueRule});
  EXPECT_EQ(validation::is_valid_label_value("_a"), std::vector<std::string>{kValueRule});
}

TEST(LabelSelectorMatch, GoSelectorMatches) {
  EXPECT_TRUE(matches("", {{"x", "y"}}));
  EXPECT_TRUE(matches("x=y", {{"x", "y"}}));
  EXPECT_TRUE(matches("x==y", {{"x", "y"}}));
  EXPECT_TRUE(matches("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(matches("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(matches("notin=in", {{"notin", "in"}}));
  EXPECT_TRUE(matches("x", {{"x", "z"}}));
  EXPECT_TRUE(matches("!x", {{"y", "z"}}));
  EXPECT_TRUE(matches("x>1", {{"x", "2"}}));
  EXPECT_TRUE(matches("x<1", {{"x", "0"}}));
  EXPECT_FALSE(matches("x=z", {}));
  EXPECT_FALSE(matches("x=y", {{"x", "z"}}));
  EXPECT_FALSE(matches("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(matches("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  EXPECT_FALSE(matches("x", {{"y", "z"}}));
  EXPECT_FALSE(matches("!x", {{"x", "z"}}));
  EXPECT_FALSE(matches("x>1", {{"x", "0"}}));
  EXPECT_FALSE(matches("x<1", {{"x", "2"}}));

  const LabelMap labels{{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(matches("foo=bar", labels));
  EXPECT_TRUE(matches("baz=blah", labels));
  EXPECT_TRUE(matches("foo=bar,baz=blah", labels));
  EXPECT_FALSE(matches("foo=blah", labels));
  EXPECT_FALSE(matches("baz=bar", labels));
  EXPECT_FALSE(matches("foo=bar,foobar=bar,baz=blah", labels));
}

TEST(LabelSelectorMatch, AbsentKeys) {
  // != and notin hold for an object without the key; =, in, exists, > and < do not.
  EXPECT_TRUE(matches("x!=a", {}));
  EXPECT_TRUE(matches("x notin (a)", {{"y", "a"}}));
  EXPECT_TRUE(matches("x notin ()", {{"y", ""}}));
  EXPECT_TRUE(matches("!x", {}));
  EXPECT_FALSE(matches("x in (a)", {}));
  EXPECT_FALSE(matches("x in ()", {{"y", "baz"}}));
  EXPECT_FALSE(matches("x=", {}));
  EXPECT_FALSE(matches("x", {}));
  EXPECT_FALSE(matches("x>1", {}));
  EXPECT_FALSE(matches("x<1", {}));
  // An empty value is a present key.
  EXPECT_TRUE(matches("x=", {{"x", ""}}));
  EXPECT_TRUE(matches("x in ()", {{"x", ""}}));
  EXPECT_TRUE(matches("x", {{"x", ""}}));
  EXPECT_FALSE(matches("x notin ()", {{"x", ""}}));
  EXPECT_FALSE(matches("!x", {{"x", ""}}));
}

TEST(LabelSelectorMatch, SetsAndNumbers) {
  EXPECT_TRUE(matches("x in (a,b)", {{"x", "b"}}));
  EXPECT_FALSE(matches("x in (a,b)", {{"x", "c"}}));
  EXPECT_FALSE(matches("x notin (a,b)", {{"x", "a"}}));
  EXPECT_TRUE(matches("x notin (a,b)", {{"x", "c"}}));
  EXPECT_FALSE(matches("z>1", {{"z", "v2"}}));
  EXPECT_FALSE(matches("z>1", {{"z", "1"}}));
  EXPECT_TRUE(matches("z<10", {{"z", "9"}}));      // numbers, not strings
  EXPECT_TRUE(matches("z<1", {{"z", "-5"}}));      // as strconv.ParseInt reads the object's value
  EXPECT_TRUE(matches("z<1", {{"z", "+0"}}));
  EXPECT_FALSE(matches("z<1", {{"z", "0x0"}}));
  EXPECT_FALSE(matches("z<1", {{"z", "1_0"}}));
  EXPECT_FALSE(matches("z<1", {{"z", "99999999999999999999"}}));
  EXPECT_TRUE(matches("z>9223372036854775806", {{"z", "9223372036854775807"}}));
}

TEST(LabelSelectorMatch, AnyLookup) {
  const auto selector = LabelSelector::parse("app=web,tier!=db,!legacy");
  int lookups = 0;
  const auto lookup = [&](std::string_view key) -> std::optional<std::string_view> {
    ++lookups;
    if (key == "app") return "web";
    if (key == "tier") return "frontend";
    return std::nullopt;
  };
  EXPECT_TRUE(selector.matches(lookup));
  EXPECT_EQ(lookups, 3);
  // The first requirement that fails ends the evaluation.
  lookups = 0;
  EXPECT_FALSE(selector.matches([&](std::string_view) -> std::optional<std::string_view> {
    ++lookups;
    return "x";
  }));
  EXPECT_EQ(lookups, 1);
}

TEST(LabelSelectorMatch, RequirementAlone) {
  const LabelRequirement requirement{"x", Op::In, {"a", "b"}};
  EXPECT_TRUE(requirement.matches("a"));
  EXPECT_FALSE(requirement.matches("c"));
  EXPECT_FALSE(requirement.matches(std::nullopt));
  // A hand-made > with more than one value matches nothing, as in Go.
  EXPECT_FALSE((LabelRequirement{"x", Op::GreaterThan, {"1", "2"}}.matches("5")));
}

TEST(LabelSelectorString, CanonicalForms) {
  EXPECT_EQ(LabelSelector::parse("x in (abc,def),y notin (jkl),z").to_string(), "x in (abc,def),y notin (jkl),z");
  EXPECT_EQ(LabelSelector::parse("x notin (abc,def),y!=jkl,!z").to_string(), "x notin (abc,def),y!=jkl,!z");
  EXPECT_EQ(LabelSelector::parse("x notin (abc),y in (jkl,mno),z notin ()").to_string(),
            "x notin (abc),y in (jkl,mno),z notin ()");
  EXPECT_EQ(LabelSelector::parse("x=abc,y==jkl,z!=a,z").to_string(), "x=abc,y==jkl,z!=a,z");
  EXPECT_EQ(LabelSelector::parse("x>2,y<8,z").to_string(), "x>2,y<8,z");
  EXPECT_EQ(LabelSelector::parse(" b  in ( y , x , y ) , ! a ").to_string(), "!a,b in (x,y)");
  EXPECT_EQ(LabelSelector::parse("x in (a,)").to_string(), "x in (,a)");
  EXPECT_EQ(LabelSelector::everything().to_string(), "");
  // A requirement built by hand prints its values sorted.
  EXPECT_EQ((LabelRequirement{"k", Op::NotIn, {"b", "a"}}.to_string()), "k notin (a,b)");
}

TEST(LabelSelectorString, PrintedFormParsesBackToTheSameSelector) {
  for (std::string_view text : {"x in (a,,b),!y,z>3,w==v,k notin (),e=", "this.io/k=v,a<0"}) {
    const auto selector = LabelSelector::parse(text);
    EXPECT_EQ(LabelSelector::parse(selector.to_string()), selector) << text;
  }
}

TEST(LabelSelectorExactValue, PinnedKeys) {
  EXPECT_EQ(LabelSelector::parse("x=a").exact_value("x"), "a");
  EXPECT_EQ(LabelSelector::parse("x==a,y").exact_value("x"), "a");
  EXPECT_EQ(LabelSelector::parse("y!=b,x in (a)").exact_value("x"), "a");
  EXPECT_EQ(LabelSelector::parse("x=").exact_value("x"), "");
  EXPECT_EQ(LabelSelector::parse("x in (a,b)").exact_value("x"), std::nullopt);
  EXPECT_EQ(LabelSelector::parse("x!=a").exact_value("x"), std::nullopt);
  EXPECT_EQ(LabelSelector::parse("x notin (a)").exact_value("x"), std::nullopt);
  EXPECT_EQ(LabelSelector::parse("x>1").exact_value("x"), std::nullopt);
  EXPECT_EQ(LabelSelector::parse("y=a").exact_value("x"), std::nullopt);
  EXPECT_EQ(LabelSelector::everything().exact_value("x"), std::nullopt);
  // Only the first requirement on the key is asked, as kube does.
  EXPECT_EQ(LabelSelector::parse("x,x=a").exact_value("x"), std::nullopt);
}

}  // namespace
}  // namespace kapi::selectors::label_selector_test

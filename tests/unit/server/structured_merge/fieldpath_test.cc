// Ports smd's fieldpath tests (element_test.go, path_test.go, set_test.go, serialize_test.go,
// serialize-pe_test.go), plus FieldsV1 as kube-apiserver writes it for real objects.
#include "server/structured_merge/fieldpath.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::structured_merge::fieldpath_test {
namespace {

namespace json = boost::json;

PathElement F(std::string name) { return PathElement::field(std::move(name)); }
PathElement I(int index) { return PathElement::index(index); }
PathElement V(std::string_view value) { return PathElement::value(json::parse(value)); }
// A key from alternating names and JSON texts: K({"port", "443", "protocol", "\"tcp\""}).
PathElement K(std::initializer_list<std::string_view> names_and_values) {
  Key key;
  for (auto it = names_and_values.begin(); it != names_and_values.end(); it += 2) {
    key.push_back({std::string(*it), json::parse(*(it + 1))});
  }
  return PathElement::key(std::move(key));
}
Path P(std::initializer_list<PathElement> elements) { return Path(elements); }
Set S(std::initializer_list<Path> paths) {
  Set set;
  for (const Path& path : paths) set.insert(path);
  return set;
}

std::string to_string(const Set& set) {
  std::string out;
  set.for_each([&](const Path& path) { out += path_to_string(path) + "\n"; });
  return out;
}

// --- values --------------------------------------------------------------------------------------------------

TEST(FieldpathCompareValues, OrdersKindsAsSmd) {
  // Numbers, then strings, booleans, lists, maps, null.
  const std::vector<std::string> ordered = {"-1", "0", "0.5", "1", "2.5", "10", "\"\"", "\"a\"", "\"b\"", "false",
                                            "true", "[]", "[1]", "[1,2]", "[2]", "{}", "{\"a\":1}", "{\"b\":0}", "null"};
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    for (std::size_t j = 0; j < ordered.size(); ++j) {
      const int expected = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(compare_values(json::parse(ordered[i]), json::parse(ordered[j])), expected)
          << ordered[i] << " vs " << ordered[j];
    }
  }
}

TEST(FieldpathCompareValues, IntsAndFloatsCompareNumerically) {
  EXPECT_EQ(compare_values(json::value(80), json::value(80.0)), 0);
  EXPECT_EQ(compare_values(json::value(80.0), json::value(81)), -1);
  EXPECT_EQ(compare_values(json::value(std::uint64_t{18446744073709551615u}), json::value(-1)), 1);
}

TEST(FieldpathCompareValues, MapsByTheirSortedKeys) {
  auto cmp = [](std::string_view a, std::string_view b) { return compare_values(json::parse(a), json::parse(b)); };
  EXPECT_EQ(cmp(R"({"a":1,"b":2})", R"({"b":2,"a":1})"), 0);
  EXPECT_EQ(cmp(R"({"a":1})", R"({"a":1,"b":2})"), -1);
  EXPECT_EQ(cmp(R"({"a":1,"b":2})", R"({"a":1})"), 1);
  EXPECT_EQ(cmp(R"({"b":1})", R"({"a":1})"), 1);  // a map lacking the first key sorts after
  EXPECT_EQ(cmp(R"({"a":1})", R"({"b":1})"), -1);
  EXPECT_EQ(cmp(R"({"a":2})", R"({"a":1,"b":0})"), 1);
}

// --- element_test.go ------------------------------------------------------------------------------------------

TEST(FieldpathPathElement, Less) {
  struct Case {
    const char* name;
    PathElement a, b;
    bool equal;
  };
  const Case cases[] = {
      {"FieldName-1", F("anteater"), F("zebra"), false},
      {"FieldName-2", F("bee"), F("bee"), true},
      {"FieldName-3", F("capybara"), K({"dog", "3"}), false},
      {"FieldName-4", F("elephant"), V("4"), false},
      {"FieldName-5", F("falcon"), I(5), false},
      {"Key-1", K({"goat", "1"}), K({"goat", "1"}), true},
      {"Key-2", K({"horse", "1"}), K({"horse", "2"}), false},
      {"Key-3", K({"ibex", "1"}), K({"jay", "1"}), false},
      {"Key-4", K({"kite", "1"}), K({"kite", "1", "kite-2", "1"}), false},
      {"Key-5", K({"kite", "1"}), V("1"), false},
      {"Key-6", K({"kite", "1"}), I(5), false},
      {"Value-1", V("1"), V("2"), false},
      {"Value-2", V("1"), V("1"), true},
      {"Value-3", V("1"), I(1), false},
      {"Index-1", I(1), I(2), false},
      {"Index-2", I(1), I(1), true},
  };
  for (const Case& c : cases) {
    if (c.equal) {
      EXPECT_FALSE(c.a < c.b) << c.name;
      EXPECT_TRUE(c.a == c.b) << c.name;
    } else {
      EXPECT_TRUE(c.a < c.b) << c.name;
      EXPECT_FALSE(c.b < c.a) << c.name;
    }
    EXPECT_FALSE(c.b < c.b) << c.name;
  }
}

TEST(FieldpathPathElement, KeySortsItsFields) {
  PathElement key = K({"protocol", "\"TCP\"", "containerPort", "80"});
  ASSERT_EQ(key.key_fields().size(), 2u);
  EXPECT_EQ(key.key_fields()[0].name, "containerPort");
  EXPECT_EQ(key.serialize(), R"(k:{"containerPort":80,"protocol":"TCP"})");
  EXPECT_EQ(key, K({"containerPort", "80", "protocol", "\"TCP\""}));
}

// --- path_test.go ---------------------------------------------------------------------------------------------

TEST(FieldpathPath, String) {
  EXPECT_EQ(path_to_string(P({F("foo"), I(1)})), ".foo[1]");
  EXPECT_EQ(path_to_string(P({F("foo"), F("bar"), I(1), F("baz")})), ".foo.bar[1].baz");
  EXPECT_EQ(path_to_string(P({F("foo"), K({"a", "\"b\"", "c", "1", "d", "1.5", "e", "true"})})),
            R"(.foo[a="b",c=1,d=1.5,e=true])");
  EXPECT_EQ(path_to_string(P({F("foo"), V("\"b\""), V("5"), V("false"), V("3.14159")})),
            R"(.foo[="b"][=5][=false][=3.14159])");
  EXPECT_EQ(path_to_string(P({F("spec")})), ".spec");
  EXPECT_EQ(path_to_string(P({F("spec"), F("apps"), K({"name", "\"app-🚀\""}), F("container"), F("image")})),
            R"(.spec.apps[name="app-🚀"].container.image)");
  EXPECT_EQ(path_to_string(P({F("spec"), F("apps"), K({"name", "\"app-💻\""}), F("container"), F("ports"),
                              K({"name", "\"port-🔑\""}), F("containerPort")})),
            R"(.spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort)");
  EXPECT_EQ(path_to_string(P({F("spec"), F("field with space")})), ".spec.field with space");
  EXPECT_EQ(path_to_string(P({F("spec"), F("apps"), V(R"("app with space")"), F("container"), F("image")})),
            R"(.spec.apps[="app with space"].container.image)");
  EXPECT_EQ(path_to_string(P({F("spec"), F("apps"), V(R"("app with \"quotes\"")"), F("container"), F("image")})),
            R"(.spec.apps[="app with \"quotes\""].container.image)");
  EXPECT_EQ(path_to_string(P({F("spec"), F("apps"), V(R"("app-with-unicøde")"), F("container"), F("image")})),
            R"(.spec.apps[="app-with-unicøde"].container.image)");
}

TEST(FieldpathPath, StringOfOtherValues) {
  EXPECT_EQ(V("null").to_string(), "[=null]");
  EXPECT_EQ(V("1e6").to_string(), "[=1e+06]");  // fmt's %v of a float64
  EXPECT_EQ(V(R"([1,"a"])").to_string(), R"([=[1,"a"]])");
  EXPECT_EQ(V(R"({"b":2,"a":"x"})").to_string(), R"([=a="x"b=2])");
}

TEST(FieldpathPath, Compare) {
  EXPECT_EQ(compare_paths(P({F("a")}), P({F("a")})), 0);
  EXPECT_EQ(compare_paths(P({F("a")}), P({F("a"), F("b")})), -1);
  EXPECT_EQ(compare_paths(P({F("a"), I(0)}), P({F("a")})), 1);
  EXPECT_EQ(compare_paths(P({F("b")}), P({F("a"), F("b")})), 1);
  EXPECT_EQ(compare_paths(P({F("a"), I(0)}), P({F("a"), V("0")})), 1);
}

// --- serialize-pe_test.go -------------------------------------------------------------------------------------

TEST(FieldpathSerializePathElement, RoundTrip) {
  struct Case {
    const char* text;
    PathElement element;
  };
  const Case cases[] = {
      {"i:0", I(0)},
      {"i:1234", I(1234)},
      {"f:", F("")},
      {"f:spec", F("spec")},
      {"f:more-complicated-string", F("more-complicated-string")},
      {"f: string-with-spaces   ", F(" string-with-spaces   ")},
      {"f:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
       F("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")},
      {R"(k:{"name":"my-container"})", K({"name", R"("my-container")"})},
      {R"(k:{"name":"   name with spaces   "})", K({"name", R"("   name with spaces   ")"})},
      {R"(k:{"port":"8080","protocol":"TCP"})", K({"port", R"("8080")", "protocol", R"("TCP")"})},
      {R"(k:{"optionalField":null})", K({"optionalField", "null"})},
      {R"(k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}})",
       K({"jsonField", R"({"A":1,"B":null,"C":"D","E":{"F":"G"}})"})},
      {R"(k:{"listField":["1","2","3"]})", K({"listField", R"(["1","2","3"])"})},
      {"v:null", V("null")},
      {R"(v:"some-string")", V(R"("some-string")")},
      {"v:1234", V("1234")},
      {R"(v:{"some":"json"})", V(R"({"some":"json"})")},
      {R"(v:{"some":" some  with spaces  "})", V(R"({"some":" some  with spaces  "})")},
      {R"(k:{"name":"app-🚀"})", K({"name", R"("app-🚀")"})},
      {R"(k:{"name":"app-💻"})", K({"name", R"("app-💻")"})},
      {R"(k:{"name":"app with-unicøde"})", K({"name", R"("app with-unicøde")"})},
      {R"(k:{"name":"你好世界"})", K({"name", R"("你好世界")"})},
      {R"(k:{"name":"Привет, мир"})", K({"name", R"("Привет, мир")"})},
      {R"(k:{"name":"नमस्ते दुनिया"})", K({"name", R"("नमस्ते दुनिया")"})},
      {R"(k:{"name":"👋"})", K({"name", R"("👋")"})},
      {"f:spec-🚀", F("spec-🚀")},
      {R"(f:spec-\n)", F(R"(spec-\n)")},
  };
  for (const Case& c : cases) {
    std::optional<PathElement> parsed = PathElement::parse(c.text);
    ASSERT_TRUE(parsed) << c.text;
    EXPECT_EQ(*parsed, c.element) << c.text;
    EXPECT_EQ(parsed->serialize(), c.text);
    EXPECT_EQ(c.element.serialize(), c.text);
  }
}

TEST(FieldpathSerializePathElement, UnknownTypeIsNoElement) { EXPECT_FALSE(PathElement::parse("r:Hello")); }

TEST(FieldpathSerializePathElement, Errors) {
  const char* cases[] = {
      "", "no-colon", "i:index is not a number", "i:1.23", "i:", "v:invalid json", "v:", "k:invalid json",
      R"(k:{"name":invalid})", R"(v:{"some":" \x41"})", "v", "k", "f", "i", R"(v:{"a":"b")", R"(k:{"a":"b")",
      "i: 0", "i:0 ", R"(v:{"some":"json"} {"other":"json"})", R"(k:{"name":"my-container"} {"other":"my-container"})",
      R"(v:{"some":"json"} {"other":"json")", R"(k:{"name":"my-container"} {"other":"my-container")",
      R"(v:{"some":"json"} garbage)", R"(k:{"name":"my-container"} garbage)", "i:+-1", "i:++1", "k:[1]",
  };
  for (const char* text : cases) EXPECT_FALSE(PathElement::parse(text)) << text;
}

TEST(FieldpathSerializePathElement, Success) {
  struct Case {
    const char* text;
    PathElement element;
  };
  const Case cases[] = {
      {R"(v: {"some":"json"})", V(R"({"some":"json"})")},
      {R"(k: {"name":"my-container"})", K({"name", R"("my-container")"})},
      {R"(v:{"some":"json"} )", V(R"({"some":"json"})")},
      {R"(k:{"name":"my-container"} )", K({"name", R"("my-container")"})},
      {R"(k:{"name\u002dcontainer":"my-container"})", K({"name-container", R"("my-container")"})},
      {R"(k:{"name\nwith\nnewlines":"my-container"})", K({"name\nwith\nnewlines", R"("my-container")"})},
      {R"(k:{"name\"quoted\"":"my-container"})", K({"name\"quoted\"", R"("my-container")"})},
      {R"(k:{"name-\ud83d\ude80":"my-container"})", K({"name-🚀", R"("my-container")"})},
      {R"(k:{"\u4f60\u597d":"\u4e16\u754c"})", K({"你好", R"("世界")"})},
      {R"(v:"value\u002dcontainer")", V(R"("value-container")")},
      {R"(v:"value\nwith\nnewlines")", V(R"("value\nwith\nnewlines")")},
      {R"(v:"value\"quoted\"")", V(R"("value\"quoted\"")")},
      {R"(v:"value-\ud83d\ude80")", V(R"("value-🚀")")},
      {R"(v:"\u4f60\u597d")", V(R"("你好")")},
      {R"(k:{"name-🚀":"my-container"})", K({"name-🚀", R"("my-container")"})},
      {R"(v:"value-🚀")", V(R"("value-🚀")")},
      {"i:+7", I(7)},
      {"i:-1", I(-1)},
  };
  for (const Case& c : cases) {
    std::optional<PathElement> parsed = PathElement::parse(c.text);
    ASSERT_TRUE(parsed) << c.text;
    EXPECT_EQ(*parsed, c.element) << c.text;
  }
}

TEST(FieldpathSerializePathElement, WritesValuesAsJsoniter) {
  // Values are HTML-escaped and their maps sorted; names inside a key are written as they are.
  EXPECT_EQ(V(R"("a<b>&c")").serialize(), R"(v:"a\u003cb\u003e\u0026c")");
  EXPECT_EQ(V("\"line\u2028sep\"").serialize(), R"(v:"line\u2028sep")");
  EXPECT_EQ(V(R"("\b\f\t")").serialize(), R"(v:"\u0008\u000c\t")");
  EXPECT_EQ(V(R"({"z":1,"a":[true,null]})").serialize(), R"(v:{"a":[true,null],"z":1})");
  EXPECT_EQ(V("1.5").serialize(), "v:1.5");
  EXPECT_EQ(V("1.0").serialize(), "v:1");
  EXPECT_EQ(V("1e21").serialize(), "v:1e+21");
  EXPECT_EQ(V("1e20").serialize(), "v:100000000000000000000");
  EXPECT_EQ(V("0.0000001").serialize(), "v:1e-7");
  EXPECT_EQ(K({"a<b", R"("<")"}).serialize(), R"(k:{"a<b":"\u003c"})");
  EXPECT_EQ(K({"a\"b", "1"}).serialize(), R"(k:{"a\"b":1})");
  EXPECT_EQ(F("a\"<b").serialize(), "f:a\"<b");
}

// --- set_test.go ----------------------------------------------------------------------------------------------

TEST(FieldpathSet, InsertHas) {
  const Set s1 = S({
      P({F("foo"), I(0), F("bar"), F("baz")}),
      P({F("foo"), I(0), F("bar")}),
      P({F("foo"), I(0)}),
      P({F("foo"), I(1), F("bar"), F("baz")}),
      P({F("foo"), I(1), F("bar")}),
      P({F("qux"), K({"name", R"("first")"})}),
      P({F("qux"), K({"name", R"("first")"}), F("bar")}),
      P({F("qux"), K({"name", R"("second")"}), F("bar")}),
      P({F("canonicalOrder"), K({"a", R"("a")", "b", R"("a")", "c", R"("a")", "d", R"("a")", "e", R"("a")",
                                 "f", R"("a")"})}),
  });
  EXPECT_FALSE(s1.has(P({F("qux"), K({"name", R"("second")"})})));
  EXPECT_TRUE(s1.has(P({F("qux"), K({"name", R"("second")"}), F("bar")})));
  EXPECT_TRUE(s1.has(P({F("qux"), K({"name", R"("first")"})})));
  EXPECT_FALSE(s1.has(P({F("xuq"), K({"name", R"("first")"})})));
  EXPECT_TRUE(s1.has(P({F("foo"), I(0)})));
  EXPECT_TRUE(s1.has(P({F("foo"), I(0), F("bar")})));
  EXPECT_TRUE(s1.has(P({F("foo"), I(0), F("bar"), F("baz")})));
  EXPECT_FALSE(s1.has(P({F("foo"), I(1)})));
  EXPECT_TRUE(s1.has(P({F("foo"), I(1), F("bar")})));
  EXPECT_TRUE(s1.has(P({F("foo"), I(1), F("bar"), F("baz")})));
  EXPECT_TRUE(s1.has(P({F("canonicalOrder"), K({"f", R"("a")", "e", R"("a")", "d", R"("a")", "c", R"("a")",
                                                "b", R"("a")", "a", R"("a")"})})));
  EXPECT_FALSE(Set().has(Path{}));
  EXPECT_FALSE(S({Path{}}).has(Path{}));
  EXPECT_TRUE(S({Path{}}).empty());
}

TEST(FieldpathSet, String) {
  const Path p = P({F("foo"), K({"name", R"("first")"})});
  EXPECT_EQ(to_string(S({p})), path_to_string(p) + "\n");
}

TEST(FieldpathSet, IterSize) {
  const Set s1 = S({
      P({F("foo"), I(0), F("bar"), F("baz")}),
      P({F("foo"), I(0), F("bar"), F("zot")}),
      P({F("foo"), I(0), F("bar")}),
      P({F("foo"), I(0)}),
      P({F("foo"), I(1), F("bar"), F("baz")}),
      P({F("foo"), I(1), F("bar")}),
      P({F("qux"), K({"name", R"("first")"})}),
      P({F("qux"), K({"name", R"("first")"}), F("bar")}),
      P({F("qux"), K({"name", R"("second")"}), F("bar")}),
  });
  Set s2;
  std::size_t added = 0;
  s1.for_each([&](const Path& path) {
    EXPECT_EQ(s2.size(), added);
    EXPECT_EQ(added > 0, !s2.empty());
    s2.insert(path);
    ++added;
  });
  EXPECT_EQ(added, 9u);
  EXPECT_EQ(s1.size(), 9u);
  EXPECT_EQ(s1, s2);
}

TEST(FieldpathSet, Equals) {
  EXPECT_NE(S({P({F("foo")})}), S({P({F("bar")})}));
  EXPECT_EQ(S({P({F("foo")})}), S({P({F("foo")})}));
  EXPECT_NE(Set(), S({P({I(0), F("foo")})}));
  EXPECT_NE(S({P({I(1), F("foo")})}), S({P({I(0), F("foo")})}));
  EXPECT_NE(S({P({I(1), F("foo")})}), S({P({I(1), F("foo"), F("bar")})}));
  EXPECT_EQ(S({P({I(0)}), P({I(1)})}), S({P({I(1)}), P({I(0)})}));
  EXPECT_EQ(S({P({F("foo"), I(0)}), P({F("foo"), I(1)})}), S({P({F("foo"), I(1)}), P({F("foo"), I(0)})}));
  EXPECT_NE(S({P({F("foo"), I(0)}), P({F("foo")}), P({F("bar"), F("baz")}), P({F("qux"), K({"name", R"("first")"})})}),
            S({P({F("foo"), I(1)}), P({F("bar"), F("baz")}), P({F("bar")}), P({F("qux"), K({"name", R"("second")"})})}));
}

TEST(FieldpathSet, Union) {
  const Set s1 = S({P({F("foo"), I(0)}), P({F("foo")}), P({F("bar"), F("baz")}), P({F("qux"), K({"name", R"("first")"})}),
                    P({F("parent"), F("child"), F("grandchild")})});
  const Set s2 = S({P({F("foo"), I(1)}), P({F("bar"), F("baz")}), P({F("bar")}),
                    P({F("qux"), K({"name", R"("second")"})}), P({F("parent"), F("child")})});
  const Set expected = S({P({F("foo"), I(0)}), P({F("foo"), I(1)}), P({F("foo")}), P({F("bar"), F("baz")}), P({F("bar")}),
                          P({F("qux"), K({"name", R"("first")"})}), P({F("qux"), K({"name", R"("second")"})}),
                          P({F("parent"), F("child")}), P({F("parent"), F("child"), F("grandchild")})});
  EXPECT_EQ(s1.union_with(s2), expected) << to_string(s1.union_with(s2));
  EXPECT_EQ(s2.union_with(s1), expected);
}

TEST(FieldpathSet, IntersectionDifference) {
  const PathElement first = K({"name", R"("first")"});
  const Set s1 = S({P({F("a0")}), P({F("a1")}), P({F("foo"), I(0)}), P({F("foo"), I(1)}), P({F("b0"), first}),
                    P({F("b1"), first}), P({F("bar"), F("c0")}), P({F("cp"), first, F("child")})});
  const Set s2 = S({P({F("a1")}), P({F("a2")}), P({F("foo"), I(1)}), P({F("foo"), I(2)}), P({F("b1"), first}),
                    P({F("b2"), first}), P({F("bar"), F("c2")}), P({F("cp"), first})});
  const Set intersection = S({P({F("a1")}), P({F("foo"), I(1)}), P({F("b1"), first})});
  EXPECT_EQ(s1.intersection(s2), intersection) << to_string(s1.intersection(s2));
  EXPECT_EQ(s1.difference(s2), S({P({F("a0")}), P({F("foo"), I(0)}), P({F("b0"), first}), P({F("bar"), F("c0")}),
                                  P({F("cp"), first, F("child")})}));
  EXPECT_EQ(s2.difference(s1), S({P({F("a2")}), P({F("foo"), I(2)}), P({F("b2"), first}), P({F("bar"), F("c2")}),
                                  P({F("cp"), first})}));
  // Intersection the hard way: two unions and three differences.
  const Set not_intersection = s2.difference(s1).union_with(s1.difference(s2));
  EXPECT_EQ(s1.union_with(s2).difference(not_intersection), intersection);
}

TEST(FieldpathSet, Leaves) {
  const PathElement a = K({"name", R"("a")"});
  const PathElement p = K({"name", R"("p")"});
  EXPECT_EQ(Set().leaves(), Set());
  EXPECT_EQ(S({P({F("path1")}), P({F("path2")}), P({F("path3")})}).leaves(),
            S({P({F("path1")}), P({F("path2")}), P({F("path3")})}));
  EXPECT_EQ(S({P({F("root")}), P({F("root"), F("l1")}), P({F("root"), F("l1"), F("l2")}),
               P({F("root"), F("l1"), F("l2"), F("l3")})})
                .leaves(),
            S({P({F("root"), F("l1"), F("l2"), F("l3")})}));
  EXPECT_EQ(S({P({F("root"), a}), P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b")}),
               P({F("root"), a, F("value"), F("c")})})
                .leaves(),
            S({P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b")}), P({F("root"), a, F("value"), F("c")})}));
  EXPECT_EQ(S({P({F("root"), a}), P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b")}),
               P({F("root"), a, F("value"), F("b"), F("d")}), P({F("root"), a, F("value"), F("c")})})
                .leaves(),
            S({P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b"), F("d")}),
               P({F("root"), a, F("value"), F("c")})}));
  EXPECT_EQ(S({P({F("root")}), P({F("root"), a}), P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b")}),
               P({F("root"), a, F("value"), F("b"), F("c")}), P({F("root"), a, F("value"), F("d")}),
               P({F("root"), a, F("value"), F("e")}), P({F("root"), F("x")}), P({F("root"), F("x"), F("y")}),
               P({F("root"), F("x"), F("z")}), P({F("root"), p}), P({F("root"), p, F("name")}),
               P({F("root"), p, F("value"), F("q")})})
                .leaves(),
            S({P({F("root"), a, F("name")}), P({F("root"), a, F("value"), F("b"), F("c")}),
               P({F("root"), a, F("value"), F("d")}), P({F("root"), a, F("value"), F("e")}),
               P({F("root"), F("x"), F("y")}), P({F("root"), F("x"), F("z")}), P({F("root"), p, F("name")}),
               P({F("root"), p, F("value"), F("q")})}));
}

TEST(FieldpathSet, DifferenceAndRecursiveDifference) {
  struct Case {
    const char* name;
    Set a, b, difference, recursive_difference;
  };
  const Case cases[] = {
      {"removes simple path", S({P({F("a")})}), S({P({F("a")})}), Set(), Set()},
      {"removes direct path", S({P({F("a"), F("b"), F("c")})}), S({P({F("a"), F("b"), F("c")})}), Set(), Set()},
      {"only removes matching child", S({P({F("a"), F("b"), F("c")}), P({F("b"), F("b"), F("c")})}),
       S({P({F("a"), F("b"), F("c")})}), S({P({F("b"), F("b"), F("c")})}), S({P({F("b"), F("b"), F("c")})})},
      {"does not remove parent of specific path", S({P({F("a")})}), S({P({F("a"), F("aa")})}), S({P({F("a")})}),
       S({P({F("a")})})},
      {"RecursiveDifference removes nested path", S({P({F("a"), F("b"), F("c")})}), S({P({F("a")})}),
       S({P({F("a"), F("b"), F("c")})}), Set()},
      {"RecursiveDifference only removes nested path for matching children",
       S({P({F("a"), F("aa"), F("aab")}), P({F("a"), F("ab"), F("aba")})}), S({P({F("a"), F("aa")})}),
       S({P({F("a"), F("aa"), F("aab")}), P({F("a"), F("ab"), F("aba")})}), S({P({F("a"), F("ab"), F("aba")})})},
      {"RecursiveDifference removes all matching children",
       S({P({F("a"), F("aa"), F("aab")}), P({F("a"), F("ab"), F("aba")})}), S({P({F("a")})}),
       S({P({F("a"), F("aa"), F("aab")}), P({F("a"), F("ab"), F("aba")})}), Set()},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.a.difference(c.b), c.difference) << c.name << "\n" << to_string(c.a.difference(c.b));
    EXPECT_EQ(c.a.recursive_difference(c.b), c.recursive_difference)
        << c.name << "\n" << to_string(c.a.recursive_difference(c.b));
  }
}

TEST(FieldpathSet, ChildAndMembers) {
  const Set set = S({P({F("spec"), F("replicas")}), P({F("spec")}), P({F("metadata"), F("labels"), F("app")})});
  ASSERT_NE(set.child(F("spec")), nullptr);
  EXPECT_TRUE(set.child(F("spec"))->has_member(F("replicas")));
  EXPECT_EQ(set.child(F("status")), nullptr);
  EXPECT_TRUE(set.has_member(F("spec")));
  EXPECT_FALSE(set.has_member(F("metadata")));
  ASSERT_EQ(set.members().size(), 1u);
  ASSERT_EQ(set.children().size(), 2u);
  EXPECT_EQ(set.children()[0].first, F("metadata"));
}

// --- serialize_test.go ----------------------------------------------------------------------------------------

// The random path alphabet of set_test.go (indices that fit an int; smd's also has 2147483648).
std::vector<PathElement> random_alphabet() {
  std::vector<PathElement> alphabet = {
      F("aaa"), F("aab"), F("aac"), F("aad"), F("aae"), F("aaf"), F("abcdefghijklmnopqrstuvwxyz"),
      F("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), K({"name", R"("привет")"}), K({"name", R"("你好")"}),
      K({"name", R"("こんにちは")"}), K({"name", R"("안녕하세요")"}), K({"name", R"("مرحبا")"}),
      K({"name", R"("first")"}), K({"name", R"("second")"}), K({"port", "443", "protocol", R"("tcp")"}),
      K({"port", "443", "protocol", R"("udp")"}), K({"key", R"(" value with spaces ")"}), K({"lang", R"("en-US")"}),
      K({"unicode-key", R"("unicode-value-🔥")"}), V("1"), V("2"), V("3"), V(R"("aa")"), V(R"("ab")"), V("true"),
      V("0"), V("-1"), V("3.14159"), V(R"("string with spaces")"), V(R"("string with \"quotes\"")"),
      V(R"("unicode-string-你好")"), V("false"), I(1), I(2), I(3), I(4), I(0), I(5), I(100), I(2147483647),
  };
  return alphabet;
}

TEST(FieldpathSerializeV1, RandomRoundTrips) {
  const std::vector<PathElement> alphabet = random_alphabet();
  std::mt19937 random(20260701);
  for (int round = 0; round < 200; ++round) {
    Set set;
    for (int j = 0; j < 50; ++j) {
      Path path;
      const int length = 2 + static_cast<int>(random() % 3);
      for (int k = 0; k < length; ++k) path.push_back(alphabet[random() % alphabet.size()]);
      set.insert(path);
    }
    const std::string text = set.to_fields_v1();
    const Set parsed = Set::from_fields_v1(text);
    ASSERT_EQ(parsed, set) << text;
    ASSERT_EQ(parsed.to_fields_v1(), text);
    // The object form has the same members in the same order (no name here needs escaping).
    const json::object object = set.to_fields_v1_object();
    ASSERT_EQ(json::serialize(object), text);
    ASSERT_EQ(Set::from_fields_v1(json::value(object)), set);
  }
}

TEST(FieldpathSerializeV1, GoldenData) {
  const char* examples[] = {
      R"({"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}})",
      R"({"f:aaa":{"k:{\"name\":\"second\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\"port\":443,\"protocol\":\"udp\"}":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"k:{\"name\":\"first\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\"name\":\"second\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\"name\":\"first\"}":{"k:{\"name\":\"first\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\"name\":\"first\"}":{"f:aad":{"f:aaf":{}}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"f:aaa":{"f:aad":{}}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"f:aac":{},"k:{\"name\":\"first\"}":{"i:3":{}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\"name\":\"first\"}":{},"i:2":{}},"v:\"aa\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\"name\":\"first\"}":{"f:aad":{}},"i:2":{}},"v:\"ab\"":{"f:aaf":{"i:4":{}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\"name\":\"second\"}":{"f:aaa":{}},"i:2":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\"aa\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\"aa\"":{"f:aab":{"k:{\"name\":\"second\"}":{}}}}})",
      R"({"f:spec":{".":{},"f:apps":{".":{},"k:{\"name\":\" app-💻\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"name\":\"port 🔑\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\"name\":\" app-🚀\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"name\":\"port-✅ \"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}})",
  };
  for (const char* example : examples) EXPECT_EQ(Set::from_fields_v1(example).to_fields_v1(), example);
}

TEST(FieldpathSerializeV1, NonNormalizedInputIsNormalized) {
  const char* input = R"({
  "f:aad": {}, "f:aaa": {}, "f:aab": {}, "f:aac": {}, "f:aae": {}, "f:aaf": {},
  "k:{\"name\":\"first\"}": {}, "k:{\"name\":\"second\"}": {}, "k:{\"port\":443,\"protocol\":\"tcp\"}": {},
  "k:{ \"protocol\":\"udp\",\"port\":443}": {},
  "v:1": {}, "v:2": {}, "v: 3": {}, "v:\"aa\"": {}, "v:\"ab\"": {}, "v:true": {},
  "i:1": {}, 	"i:2": {}, "i:3": {}  , "i:4":    {}
})";
  EXPECT_EQ(Set::from_fields_v1(input).to_fields_v1(),
            R"({"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}})");
  // Out-of-order children and a member that is also a parent.
  EXPECT_EQ(Set::from_fields_v1(R"({"f:c":{},"f:a":{},"f:b":{".":{},"f:y":{},"f:x":{}}})").to_fields_v1(),
            R"({"f:a":{},"f:b":{".":{},"f:x":{},"f:y":{}},"f:c":{}})");
  EXPECT_EQ(Set::from_fields_v1(R"({"f:b":{"f:y":{}},"f:a":{"f:z":{}}})").to_fields_v1(),
            R"({"f:a":{"f:z":{}},"f:b":{"f:y":{}}})");
}

TEST(FieldpathSerializeV1, TokenTypeErrors) {
  const char* cases[] = {
      "[]", "42", R"("hi")", "", "   ", "{1:{}}", R"({"f:a":{},})", R"({"f:a" }:{}})", R"({"f:a":})", R"({"f:a":1})",
      R"({"f:a":[]})", R"({"f:a":[})", R"({"f:a":{]})", R"({"f:a":{},,"f:b":{}})", R"({"f:a":{} "f:b":{}})",
      R"({"f:a"::{}})", "{:1}", R"({"f:a"})", R"({"f:a":{,}})", "}", R"({"":{}})", R"({"x":{}})", R"({":":{}})", "{",
      R"({"f:a":{})", R"({"f:a":{},)", R"({")", R"({"f)", R"({"f:)", R"({"f:a)", R"({"f:a")", R"({"f:a":)",
      R"({"f:a":{)", R"({"f:a":{"f:b")", R"({"f:a":{"f:b":)", R"({"f:a":{"f:b":{})", R"({"f:a":{"f:b":{},)",
      R"({"f:a\)", R"({"f:\u00)", R"({"f:a":{}, "f)", R"({"f:a":{}, "f:b)", R"({"f:a":{}}})", R"({"f:a":{}}{})",
      R"({"f:a":{}}"string")", R"({"f:a":{}}42)", R"({"f:a":{}}  })", R"({"f:a":{}}  {})", R"({"f:a":{}}  "x")",
      "{\"f:a\":{}}\n42", R"({"xy":{}})", R"({"i:x":{}})",
  };
  for (const char* text : cases) {
    EXPECT_THROW(Set::from_fields_v1(text), std::invalid_argument) << text;
  }
}

TEST(FieldpathSerializeV1, AcceptsWhitespaceAndNull) {
  const char* cases[] = {
      "{\"f:a\":{}} ", "{\"f:a\":{}}\t", "{\"f:a\":{}}\n", "{\"f:a\":{}}\r", "{\"f:a\":{}}     ",
      "{\"f:a\":{}} \t\n\r ", " {\"f:a\":{}}", "\t{\"f:a\":{}}", "\n{\"f:a\":{}}", "\r{\"f:a\":{}}",
      "     {\"f:a\":{}}", " \t\n\r {\"f:a\":{}}", " \t\n\r {\"f:a\":{}} \t\n\r ", "{ \"f:a\" : {} }",
      "{\n\t\"f:a\":{}}", "{\"f:a\":     {}}",
  };
  for (const char* text : cases) EXPECT_EQ(Set::from_fields_v1(text), S({P({F("a")})})) << text;
  EXPECT_TRUE(Set::from_fields_v1("  {}  ").empty());
  EXPECT_TRUE(Set::from_fields_v1("null").empty());
  EXPECT_TRUE(Set::from_fields_v1(" null ").empty());
  EXPECT_EQ(Set::from_fields_v1(R"({"f:a":null})"), S({P({F("a")})}));
}

TEST(FieldpathSerializeV1, DropsUnknownElements) {
  EXPECT_EQ(Set::from_fields_v1(R"({"f:aaa":{},"r:aab":{}})").to_fields_v1(), R"({"f:aaa":{}})");
  // Only unknown entries inside: the parent is a member.
  EXPECT_EQ(Set::from_fields_v1(R"({"f:a":{"r:b":{}}})"), S({P({F("a")})}));
}

TEST(FieldpathSerializeV1, EmptySet) { EXPECT_EQ(Set().to_fields_v1(), "{}"); }

TEST(FieldpathSerializeV1, MemberAndParentWritesDot) {
  const Set set = S({P({F("metadata"), F("labels")}), P({F("metadata"), F("labels"), F("app")})});
  EXPECT_EQ(set.to_fields_v1(), R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})");
}

TEST(FieldpathSerializeV1, EscapesAsJsoniter) {
  // The member names are written without HTML escaping; the values inside them with it, so a '<' in a key value
  // shows as \\u003c in the FieldsV1 text.
  const Set set = S({P({F("data"), F("a<b&c")}), P({F("items"), K({"name", R"("x<y")"})}),
                     P({F("tabs"), F("a\tb")})});
  const std::string text = set.to_fields_v1();
  EXPECT_EQ(text, R"({"f:data":{"f:a<b&c":{}},"f:items":{"k:{\"name\":\"x\\u003cy\"}":{}},"f:tabs":{"f:a\tb":{}}})");
  EXPECT_EQ(Set::from_fields_v1(text), set);
}

// FieldsV1 as kube-apiserver 1.32 stored them for a Deployment created by kubectl and updated by the controller.
TEST(FieldpathSerializeV1, DeploymentManagedFieldsRoundTrip) {
  const char* examples[] = {
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}})",
      R"({"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}})",
      R"({"f:metadata":{"f:finalizers":{".":{},"v:\"kubernetes.io/pvc-protection\"":{}}},"f:spec":{"f:accessModes":{},"f:resources":{"f:requests":{".":{},"f:storage":{}}},"f:volumeMode":{}}})",
  };
  for (const char* example : examples) {
    const Set set = Set::from_fields_v1(example);
    EXPECT_EQ(set.to_fields_v1(), example);
    EXPECT_EQ(Set::from_fields_v1(json::parse(example)), set);
  }
  const Set deployment = Set::from_fields_v1(examples[0]);
  EXPECT_TRUE(deployment.has(P({F("spec"), F("template"), F("spec"), F("containers"), K({"name", R"("nginx")"}),
                                F("ports"), K({"containerPort", "80", "protocol", R"("TCP")"}), F("containerPort")})));
  EXPECT_TRUE(deployment.has(P({F("metadata"), F("labels")})));
  EXPECT_FALSE(deployment.has(P({F("metadata")})));
}

// --- edge cases ---------------------------------------------------------------------------------------------

TEST(FieldpathEdgeCases, KeysWithSeveralFieldsAndObjectValues) {
  // Key fields in name order; values that are objects (members sorted) and lists.
  const PathElement key = K({"z", R"({"b":[2,1],"a":{"y":null,"x":1.5}})", "a", R"("x")", "m", "[true,\"s\"]"});
  const std::string text = key.serialize();
  EXPECT_EQ(text, R"(k:{"a":"x","m":[true,"s"],"z":{"a":{"x":1.5,"y":null},"b":[2,1]}})");
  std::optional<PathElement> parsed = PathElement::parse(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, key);
  EXPECT_EQ(parsed->serialize(), text);
  EXPECT_EQ(key.to_string(), R"([a="x",m=[true,"s"],z=a=x=1.5y=nullb=[2,1]])");
  // Items of one list with several keys: ordered field by field.
  const Set set = S({P({F("ports"), K({"port", "443", "protocol", R"("UDP")"})}),
                     P({F("ports"), K({"port", "80", "protocol", R"("TCP")"})}),
                     P({F("ports"), K({"port", "443", "protocol", R"("TCP")"})})});
  EXPECT_EQ(set.to_fields_v1(),
            R"({"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{},"k:{\"port\":443,\"protocol\":\"TCP\"}":{},"k:{\"port\":443,\"protocol\":\"UDP\"}":{}}})");
  EXPECT_EQ(Set::from_fields_v1(set.to_fields_v1()), set);
}

TEST(FieldpathEdgeCases, UnicodeInNamesAndValues) {
  // Names are written as their bytes, U+2028 included; values escape U+2028/U+2029 and replace invalid UTF-8.
  const Set set = S({P({F("metadata"), F("annotations"), F("é\u2028✓")}),
                     P({F("spec"), F("list"), V("\"\u2029ü\"")})});
  const std::string text = set.to_fields_v1();
  EXPECT_EQ(text, "{\"f:metadata\":{\"f:annotations\":{\"f:é\u2028✓\":{}}},"
                  R"("f:spec":{"f:list":{"v:\"\\u2029ü\"":{}}}})");
  EXPECT_EQ(Set::from_fields_v1(text), set);
  json::string invalid;
  invalid.push_back('a');
  invalid.push_back(static_cast<char>(0xff));
  EXPECT_EQ(PathElement::value(json::value(invalid)).serialize(), R"(v:"a\ufffd")");
  EXPECT_EQ(PathElement::field(std::string("a\xff")).serialize(), "f:a\xff");
}

TEST(FieldpathEdgeCases, Numbers) {
  EXPECT_EQ(V("9007199254740993").serialize(), "v:9007199254740993");
  EXPECT_EQ(V("-0.5").serialize(), "v:-0.5");
  EXPECT_EQ(V("123456789.125").serialize(), "v:123456789.125");
  EXPECT_EQ(V("1e-6").serialize(), "v:0.000001");
  // An item written from an int and read back: the same element.
  EXPECT_EQ(*PathElement::parse("v:80"), PathElement::value(json::value(80.0)));
  EXPECT_EQ(*PathElement::parse(R"(k:{"port":80})"), K({"port", "80.0"}));
  // Read back, numbers are float64s as jsoniter reads them: so they show, and so they round.
  EXPECT_TRUE(PathElement::parse("v:1000000")->item_value().is_double());
  EXPECT_EQ(PathElement::parse("v:1000000")->to_string(), "[=1e+06]");
  EXPECT_EQ(PathElement::parse(R"(k:{"a":[1,{"b":2}]})")->to_string(), "[a=[1,b=2]]");
  EXPECT_EQ(PathElement::parse("v:9007199254740993")->serialize(), "v:9007199254740992");
  EXPECT_EQ(V("1000000").to_string(), "[=1000000]");  // an int64 from an object shows as one
}

TEST(FieldpathEdgeCases, DeepNesting) {
  Path deep;
  for (int i = 0; i < 200; ++i) deep.push_back(F("n" + std::to_string(i % 7)));
  const Set set = S({deep});
  const Set parsed = Set::from_fields_v1(set.to_fields_v1());
  EXPECT_EQ(parsed, set);
  EXPECT_TRUE(parsed.has(deep));
  EXPECT_EQ(parsed.size(), 1u);
}

TEST(FieldpathEdgeCases, UnionKeepsOperandsIntact) {
  const Set a = S({P({F("a"), F("x")})});
  const Set b = S({P({F("a"), F("y")}), P({F("a")})});
  const Set u = a.union_with(b);
  EXPECT_EQ(u.to_fields_v1(), R"({"f:a":{".":{},"f:x":{},"f:y":{}}})");
  EXPECT_EQ(a.to_fields_v1(), R"({"f:a":{"f:x":{}}})");
  EXPECT_EQ(b.to_fields_v1(), R"({"f:a":{".":{},"f:y":{}}})");
  EXPECT_EQ(u.difference(b), a);
  EXPECT_EQ(u.recursive_difference(b), Set());  // b has "a" itself: all under it goes
  EXPECT_EQ(u.intersection(a), a);
  EXPECT_EQ(u.leaves(), S({P({F("a"), F("x")}), P({F("a"), F("y")})}));
}

}  // namespace
}  // namespace kapi::structured_merge::fieldpath_test

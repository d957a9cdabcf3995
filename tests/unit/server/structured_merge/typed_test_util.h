#pragma once
// Shared by the typed tests: smd's typed.Parser over a YAML schema, and set literals spelled as smd's tests spell
// them (_NS, _P, _KBF, _V), so that its tables read the same here:
//   NS(P("list", KBF("key", "a", "id", 1), "value"), P("setStr", V("a")))
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"
#include "server/structured_merge/typed.h"
#include "tests/unit/server/structured_merge/smd_schema_yaml.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::structured_merge::testing {

class TypedParser {
 public:
  explicit TypedParser(std::string_view schema_yaml) : schema_(schema_from_yaml(schema_yaml)) {}
  // A parser of values of the deduced type (smd's DeducedParseableType).
  TypedParser() = default;

  TypeRef type(std::string_view name) const {
    TypeRef found = name.empty() ? schema_.deduced() : schema_.find(name);
    EXPECT_NE(found, nullptr) << "no type " << name;
    return found;
  }
  // ParseableType.FromYAML: throws TypedError.
  TypedValue typed(std::string_view type_name, std::string_view yaml, bool allow_duplicates = false) const {
    return as_typed(value_from_yaml(yaml), schema_, type(type_name), allow_duplicates);
  }
  const Schema& schema() const { return schema_; }

 private:
  Schema schema_;
};

inline PathElement to_element(const char* name) { return PathElement::field(name); }
inline PathElement to_element(std::string name) { return PathElement::field(std::move(name)); }
inline PathElement to_element(int index) { return PathElement::index(index); }
inline PathElement to_element(PathElement element) { return element; }

// fieldpath.MakePathOrDie: field names, indices and elements.
template <class... Parts>
Path P(Parts&&... parts) {
  return Path{to_element(std::forward<Parts>(parts))...};
}

// fieldpath.NewSet.
template <class... Paths>
Set NS(const Paths&... paths) {
  Set set;
  (set.insert(paths), ...);
  return set;
}

inline void append_key(Key&) {}
template <class Value, class... Rest>
void append_key(Key& key, const char* name, Value&& value, Rest&&... rest) {
  key.push_back({name, boost::json::value(std::forward<Value>(value))});
  append_key(key, std::forward<Rest>(rest)...);
}

// fieldpath.KeyByFields: name, value, name, value...
template <class... Fields>
PathElement KBF(Fields&&... fields) {
  Key key;
  append_key(key, std::forward<Fields>(fields)...);
  return PathElement::key(std::move(key));
}

// A set item by value (value.NewValueInterface).
template <class Value>
PathElement V(Value&& value) {
  return PathElement::value(boost::json::value(std::forward<Value>(value)));
}

inline PathElement I(int index) { return PathElement::index(index); }

// Each path on a line, for failure messages.
inline std::string describe(const Set& set) {
  std::string text;
  set.for_each([&](const Path& path) { text += path_to_string(path) + "\n"; });
  return text.empty() ? "(empty)\n" : text;
}

// The rows of smd's tables.
struct ObjectSetPair {
  std::string_view object;
  Set set;
};

struct MergeTriplet {
  std::string_view lhs;
  std::string_view rhs;
  std::string_view out;
};

struct SymdiffQuint {
  std::string_view lhs;
  std::string_view rhs;
  // Everything is checked both ways: removed and added are symmetric.
  Set removed;
  Set modified;
  Set added;
};

struct SymdiffCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<SymdiffQuint> quints;
};

// symdiffTestCase.test: Compare finds what the quint says, and the reverse comparison agrees.
inline void expect_symdiff(const TypedParser& parser, std::string_view type_name, const SymdiffQuint& quint,
                           bool allow_duplicates) {
  const TypedValue lhs = parser.typed(type_name, quint.lhs, allow_duplicates);
  const TypedValue rhs = parser.typed(type_name, quint.rhs, allow_duplicates);
  const Comparison got = compare(lhs, rhs);
  EXPECT_TRUE(got.added == quint.added) << "expected added:\n" << describe(quint.added) << "got:\n"
                                        << describe(got.added);
  EXPECT_TRUE(got.modified == quint.modified) << "expected modified:\n" << describe(quint.modified) << "got:\n"
                                              << describe(got.modified);
  EXPECT_TRUE(got.removed == quint.removed) << "expected removed:\n" << describe(quint.removed) << "got:\n"
                                            << describe(got.removed);
  const Comparison reverse = compare(rhs, lhs);
  EXPECT_TRUE(reverse.modified == got.modified) << "reverse modified:\n" << describe(reverse.modified);
  EXPECT_TRUE(reverse.removed == got.added) << "reverse removed:\n" << describe(reverse.removed);
  EXPECT_TRUE(reverse.added == got.removed) << "reverse added:\n" << describe(reverse.added);
}

inline void expect_symdiff_cases(const std::vector<SymdiffCase>& cases) {
  for (const SymdiffCase& test : cases) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.quints.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      expect_symdiff(parser, test.root_type_name, test.quints[i], true);
    }
  }
}

}  // namespace kapi::structured_merge::testing

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

namespace kapi::structured_merge::testing {

class Parser {
 public:
  explicit Parser(std::string_view schema_yaml) : schema_(schema_from_yaml(schema_yaml)) {}
  // A parser of values of the deduced type (smd's DeducedParseableType).
  Parser() = default;

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
inline PathElement to_element(PathElement element) { return element; }

// fieldpath.MakePathOrDie: field names and elements.
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

}  // namespace kapi::structured_merge::testing

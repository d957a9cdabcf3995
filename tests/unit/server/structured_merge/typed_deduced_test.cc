// smd's typed/deduced_test.go: values of the deduced type (fields without a schema, kept by
// x-kubernetes-preserve-unknown-fields): granular maps, atomic lists, scalars.
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_deduced_test {
namespace {

constexpr std::string_view kDeduced = "";  // TypedParser's name for the deduced type

TEST(TypedDeducedTest, Validate) {
  const TypedParser parser;
  for (std::string_view object : {
    R"({"a": null})",
    R"({"a": ["a", "b"]})",
    R"({"a": {"b": [], "c": 2, "d": {"f": "string"}}})",
  }) {
    EXPECT_NO_THROW(parser.typed(kDeduced, object)) << object;
  }
}

TEST(TypedDeducedTest, Merge) {
  const std::vector<MergeTriplet> triplets = {
    {
      R"({"key":"foo","value":{}})",
      R"({"key":"foo","value":1})",
      R"({"key":"foo","value":1})",
    }, {
      R"({"key":"foo","value":1})",
      R"({"key":"foo","value":{}})",
      R"({"key":"foo","value":{}})",
    }, {
      R"({"key":"foo","value":null})",
      R"({"key":"foo","value":{}})",
      R"({"key":"foo","value":{}})",
    }, {
      R"({"key":"foo"})",
      R"({"value":true})",
      R"({"key":"foo","value":true})",
    }, {
      R"({})",
      R"({"inner":{}})",
      R"({"inner":{}})",
    }, {
      R"({})",
      R"({"inner":null})",
      R"({"inner":null})",
    }, {
      R"({"inner":null})",
      R"({"inner":{}})",
      R"({"inner":{}})",
    }, {
      R"({"inner":{}})",
      R"({"inner":null})",
      R"({"inner":null})",
    }, {
      R"({"inner":{}})",
      R"({"inner":{}})",
      R"({"inner":{}})",
    }, {
      R"({})",
      R"({"inner":{}})",
      R"({"inner":{}})",
    }, {
      R"({"inner":null})",
      R"({"inner":{}})",
      R"({"inner":{}})",
    }, {
      R"({"inner":{}})",
      R"({"inner":null})",
      R"({"inner":null})",
    }, {
      R"({})",
      R"({"inner":[]})",
      R"({"inner":[]})",
    }, {
      R"({"inner":null})",
      R"({"inner":[]})",
      R"({"inner":[]})",
    }, {
      R"({"inner":[]})",
      R"({"inner":null})",
      R"({"inner":null})",
    }, {
      R"({"inner":[]})",
      R"({"inner":[]})",
      R"({"inner":[]})",
    }, {
      R"({"numeric":1})",
      R"({"numeric":3.14159})",
      R"({"numeric":3.14159})",
    }, {
      R"({"numeric":3.14159})",
      R"({"numeric":1})",
      R"({"numeric":1})",
    }, {
      R"({"string":"aoeu"})",
      R"({"bool":true})",
      R"({"string":"aoeu","bool":true})",
    }, {
      R"({"atomic":["a","b","c"]})",
      R"({"atomic":["a","b"]})",
      R"({"atomic":["a","b"]})",
    }, {
      R"({"atomic":["a","b"]})",
      R"({"atomic":["a","b","c"]})",
      R"({"atomic":["a","b","c"]})",
    }, {
      R"({"atomic":["a","b","c"]})",
      R"({"atomic":[]})",
      R"({"atomic":[]})",
    }, {
      R"({"atomic":[]})",
      R"({"atomic":["a","b","c"]})",
      R"({"atomic":["a","b","c"]})",
    }, {
      R"({"":[true]})",
      R"({"setBool":[false]})",
      R"({"":[true],"setBool":[false]})",
    }, {
      R"({"atomic":[1,2,3.14159]})",
      R"({"atomic":[1,2,3]})",
      R"({"atomic":[1,2,3]})",
    }, {
      R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
      R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
      R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    }, {
      R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
      R"({"list":[{"key":"a","id":2,"value":{"a":"a"}}]})",
      R"({"list":[{"key":"a","id":2,"value":{"a":"a"}}]})",
    }, {
      R"({"list":[{"key":"a","id":1},{"key":"b","id":1}]})",
      R"({"list":[{"key":"a","id":1},{"key":"a","id":2}]})",
      R"({"list":[{"key":"a","id":1},{"key":"a","id":2}]})",
    }, {
      R"({"atomicList":["a","a","a"]})",
      R"({"atomicList":null})",
      R"({"atomicList":null})",
    }, {
      R"({"atomicList":["a","b","c"]})",
      R"({"atomicList":[]})",
      R"({"atomicList":[]})",
    }, {
      R"({"atomicList":["a","a","a"]})",
      R"({"atomicList":["a","a"]})",
      R"({"atomicList":["a","a"]})",
    }, {
      R"({"a":1,"b":[null],"c":{"id":2,"list":["value"]}})",
      R"({"a":2,"b":["value"],"c":{"name":"my_name"}})",
      R"({"a":2,"b":["value"],"c":{"id":2,"list":["value"],"name":"my_name"}})",

    },
  };
  const TypedParser parser;
  for (std::size_t i = 0; i < triplets.size(); ++i) {
    SCOPED_TRACE("triplet-" + std::to_string(i));
    const TypedValue lhs = parser.typed(kDeduced, triplets[i].lhs);
    const TypedValue rhs = parser.typed(kDeduced, triplets[i].rhs);
    const TypedValue out = parser.typed(kDeduced, triplets[i].out);
    const TypedValue got = merge(lhs, rhs);
    EXPECT_EQ(got.value, out.value) << "expected " << boost::json::serialize(out.value) << " but got "
                                    << boost::json::serialize(got.value);
  }
}

TEST(TypedDeducedTest, ToFieldSet) {
  const std::vector<ObjectSetPair> pairs = {
    {R"({"key":"foo","value":1})", NS(P("key"), P("value"))},
    {R"({"key":"foo","value":{"a": "b"}})", NS(P("key"), P("value"), P("value", "a"))},
    {R"({"key":"foo","value":null})", NS(P("key"), P("value"))},
    {R"({"key":"foo"})", NS(P("key"))},
    {R"({"key":"foo","value":true})", NS(P("key"), P("value"))},
    {R"({"numeric":1})", NS(P("numeric"))},
    {R"({"numeric":3.14159})", NS(P("numeric"))},
    {R"({"string":"aoeu"})", NS(P("string"))},
    {R"({"bool":true})", NS(P("bool"))},
    {R"({"bool":false})", NS(P("bool"))},
    {R"({"list":["a","b","c"]})", NS(P("list"))},
    {R"({"color":{}})", NS(P("color"))},
    {R"({"color":null})", NS(P("color"))},
    {R"({"color":{"R":255,"G":0,"B":0}})", NS(P("color"), P("color", "R"), P("color", "G"), P("color", "B"))},
    {R"({"arbitraryWavelengthColor":null})", NS(P("arbitraryWavelengthColor"))},
    {R"({"arbitraryWavelengthColor":{"IR":255}})", NS(P("arbitraryWavelengthColor"), P("arbitraryWavelengthColor", "IR"))},
    {R"({"args":[]})", NS(P("args"))},
    {R"({"args":null})", NS(P("args"))},
    {R"({"args":[null]})", NS(P("args"))},
    {R"({"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]})", NS(P("args"))},
    {R"({"atomicList":["a","a","a"]})", NS(P("atomicList"))},
  };
  const TypedParser parser;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    SCOPED_TRACE(std::to_string(i));
    const Set set = to_field_set(parser.typed(kDeduced, pairs[i].object));
    EXPECT_TRUE(set == pairs[i].set) << "wanted\n" << describe(pairs[i].set) << "got\n" << describe(set);
  }
}

TEST(TypedDeducedTest, Symdiff) {
  const std::vector<SymdiffQuint> quints = {
  {
    .lhs = R"({"key":"foo","value":1})",
    .rhs = R"({"key":"foo","value":1})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"key":"foo","value":{}})",
    .rhs = R"({"key":"foo","value":1})",
    .removed = NS(),
    .modified = NS(P("value")),
    .added = NS(),
  }, {
    .lhs = R"({"key":"foo","value":1})",
    .rhs = R"({"key":"foo","value":{}})",
    .removed = NS(),
    .modified = NS(P("value")),
    .added = NS(),
  }, {
    .lhs = R"({"key":"foo","value":1})",
    .rhs = R"({"key":"foo","value":{"deep":{"nested":1}}})",
    .removed = NS(),
    .modified = NS(P("value")),
    .added = NS(P("value", "deep"), P("value", "deep", "nested")),
  }, {
    .lhs = R"({"key":"foo","value":null})",
    .rhs = R"({"key":"foo","value":{}})",
    .removed = NS(),
    .modified = NS(P("value")),
    .added = NS(),
  }, {
    .lhs = R"({"key":"foo"})",
    .rhs = R"({"value":true})",
    .removed = NS(P("key")),
    .modified = NS(),
    .added = NS(P("value")),
  }, {
    .lhs = R"({"key":"foot"})",
    .rhs = R"({"key":"foo","value":true})",
    .removed = NS(),
    .modified = NS(P("key")),
    .added = NS(P("value")),
  }, {
    .lhs = R"({})",
    .rhs = R"({"inner":{}})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("inner")),
  }, {
    .lhs = R"({})",
    .rhs = R"({"inner":null})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("inner")),
  }, {
    .lhs = R"({"inner":null})",
    .rhs = R"({"inner":{}})",
    .removed = NS(),
    .modified = NS(P("inner")),
    .added = NS(),
  }, {
    .lhs = R"({"inner":{}})",
    .rhs = R"({"inner":null})",
    .removed = NS(),
    .modified = NS(P("inner")),
    .added = NS(),
  }, {
    .lhs = R"({"inner":{}})",
    .rhs = R"({"inner":{}})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({})",
    .rhs = R"({"inner":[]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("inner")),
  }, {
    .lhs = R"({})",
    .rhs = R"({"inner":null})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("inner")),
  }, {
    .lhs = R"({"inner":null})",
    .rhs = R"({"inner":[]})",
    .removed = NS(),
    .modified = NS(P("inner")),
    .added = NS(),
  }, {
    .lhs = R"({"inner":[]})",
    .rhs = R"({"inner":null})",
    .removed = NS(),
    .modified = NS(P("inner")),
    .added = NS(),
  }, {
    .lhs = R"({"inner":[]})",
    .rhs = R"({"inner":[]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"a":{},"b":{}})",
    .rhs = R"({"a":{},"b":{}})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"a":{}})",
    .rhs = R"({"b":{}})",
    .removed = NS(P("a")),
    .modified = NS(),
    .added = NS(P("b")),
  }, {
    .lhs = R"({"a":{"b":{"c":{}}}})",
    .rhs = R"({"a":{"b":{}}})",
    .removed = NS(P("a", "b", "c")),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"a":{"b":{"c":[true]}}})",
    .rhs = R"({"a":{"b":[false]}})",
    .removed = NS(P("a", "b", "c")),
    .modified = NS(P("a", "b")),
    .added = NS(),
  }, {
    .lhs = R"({"a":{}})",
    .rhs = R"({"a":{"b":"true"}})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("a", "b")),
  }, {
    .lhs = R"({"numeric":1})",
    .rhs = R"({"numeric":3.14159})",
    .removed = NS(),
    .modified = NS(P("numeric")),
    .added = NS(),
  }, {
    .lhs = R"({"numeric":3.14159})",
    .rhs = R"({"numeric":1})",
    .removed = NS(),
    .modified = NS(P("numeric")),
    .added = NS(),
  }, {
    .lhs = R"({"string":"aoeu"})",
    .rhs = R"({"bool":true})",
    .removed = NS(P("string")),
    .modified = NS(),
    .added = NS(P("bool")),
  }, {
    .lhs = R"({"list":["a","b"]})",
    .rhs = R"({"list":["a","b","c"]})",
    .removed = NS(),
    .modified = NS(P("list")),
    .added = NS(),
  }, {
    .lhs = R"({})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("list")),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"b"}}]})",
    .removed = NS(),
    .modified = NS(P("list")),
    .added = NS(),
  }, {
    .lhs = R"({"atomicList":["a","a","a"]})",
    .rhs = R"({"atomicList":null})",
    .removed = NS(),
    .modified = NS(P("atomicList")),
    .added = NS(),
  }, {
    .lhs = R"({"atomicList":["a","a","a"]})",
    .rhs = R"({"atomicList":["a","a"]})",
    .removed = NS(),
    .modified = NS(P("atomicList")),
    .added = NS(),
  }
  };
  const TypedParser parser;
  for (std::size_t i = 0; i < quints.size(); ++i) {
    SCOPED_TRACE(std::to_string(i));
    expect_symdiff(parser, kDeduced, quints[i], false);
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_deduced_test

// CRD rule estimates as kube computes them: `self` typed from a schema (size hints as kube's SchemaDeclType derives
// them), kube's schema size estimator, no presence-test cost. Expected figures from apiextensions-apiserver
// 1.32's schema/cel/compilation_test.go TestCostEstimation ("calc": no limits in the schema, "set": with them).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cel/compile.h"
#include "cel/cost.h"
#include "cel/ext/kube_env.h"

namespace kapi::cel::crd_estimate_test {
namespace {

// Schema-derived types with kube's size hints (apiserver pkg/cel/common/schemas.go).
Type string_type(std::optional<std::int64_t> max_length) {
  return Type::string_type().with_max_elements(max_length ? *max_length * 4 : kMaxStringLengthPerRequest);
}
Type list_of(Type item, std::int64_t item_min_size, std::optional<std::int64_t> max_items) {
  return Type::list(std::move(item)).with_max_elements(max_items ? *max_items : estimate_max_array_items(item_min_size));
}
Type map_of(Type value, std::int64_t value_min_size, std::optional<std::int64_t> max_properties) {
  return Type::map(Type::string_type(), std::move(value))
      .with_max_elements(max_properties ? *max_properties : estimate_max_additional_properties(value_min_size));
}

std::uint64_t crd_estimate(const Type& self, const std::string& rule, Env env = standard_env()) {
  env.add_variable("self", self);
  env.add_variable("oldSelf", self);
  CheckResult checked = compile(env, rule);
  if (!checked.ast) {
    ADD_FAILURE() << rule << ": " << checked.message;
    return 0;
  }
  return estimate_cost(*checked.ast, env, kube_crd_cost_options(self)).max;
}

Type object_of(std::vector<std::pair<std::string, Type>> fields) {
  auto object = std::make_shared<ObjectType>();
  object->name = "Object";
  for (auto& [name, type] : fields) object->fields.emplace(name, type);
  return Type::object(object);
}

TEST(CelCostCrd, ArraysMapsAndStrings) {
  using Max = std::optional<std::int64_t>;
  const Type number = Type::double_type();
  const Max none;
  // number array with all: 2 + 3 per element, (3 MiB - 2) / 2 elements without maxItems.
  EXPECT_EQ(crd_estimate(list_of(number, 1, none), "self.all(x, true)"), 4718591u);
  EXPECT_EQ(crd_estimate(list_of(number, 1, 10), "self.all(x, true)"), 32u);
  EXPECT_EQ(crd_estimate(list_of(string_type(none), 2, none), "self.all(x, true)"), 3145727u);
  EXPECT_EQ(crd_estimate(list_of(string_type(none), 2, 20), "self.all(x, true)"), 62u);
  EXPECT_EQ(crd_estimate(list_of(number, 1, 10), "self.all(x, self.all(y, true))"), 352u);
  EXPECT_EQ(crd_estimate(list_of(number, 1, 10), "self.all(x, self.all(y, self.all(z, true)))"), 3552u);
  EXPECT_EQ(crd_estimate(list_of(number, 1, none), "self[1] == 0.0"), 2u);
  EXPECT_EQ(crd_estimate(list_of(string_type(none), 2, 8), "self[1] == self[1]"), 314577u);
  EXPECT_EQ(crd_estimate(list_of(number, 1, 0), "self[3] == 0.0"), 2u);

  EXPECT_EQ(crd_estimate(string_type(none), "self.contains('test')"), 314574u);
  EXPECT_EQ(crd_estimate(string_type(10), "self.contains('test')"), 5u);
  EXPECT_EQ(crd_estimate(string_type(none), "self.startsWith('test')"), 2u);
  EXPECT_EQ(crd_estimate(string_type(none), R"(size(self + "hello") > size("hello"))"), 314578u);
  EXPECT_EQ(crd_estimate(string_type(4), R"(size(self + "hello") > size("hello"))"), 7u);
  EXPECT_EQ(crd_estimate(string_type(none), R"(self.matches("x"))"), 314574u);
  EXPECT_EQ(crd_estimate(string_type(50), R"(self.matches("x"))"), 22u);
  EXPECT_EQ(crd_estimate(string_type(10), R"("".matches("(((((((((())))))))))[0-9]"))"), 7u);
  EXPECT_EQ(crd_estimate(string_type(100), R"(self.matches(""))"), 1u);
  EXPECT_EQ(crd_estimate(string_type(none), R"(self == "x")"), 2u);
  EXPECT_EQ(crd_estimate(string_type(0), R"(self == "x")"), 1u);
  // An enum's longest value bounds the string (kube's estimateMaxStringEnumLength): "LongValue".
  EXPECT_EQ(crd_estimate(Type::string_type().with_max_elements(9), "self.contains('A')"), 2u);
  EXPECT_EQ(crd_estimate(string_type(1000), "self.contains('A')"), 401u);

  // Maps: keys carry no hint (size 0), has() is free.
  EXPECT_EQ(crd_estimate(map_of(number, 1, none), "self.all(x, true)"), 1348169u);
  EXPECT_EQ(crd_estimate(map_of(number, 1, 10), "self.all(x, true)"), 32u);
  EXPECT_EQ(crd_estimate(map_of(number, 1, none), "has(self.x)"), 1u);  // kube's table leaves 0: unchecked
  EXPECT_EQ(crd_estimate(map_of(string_type(none), 2, 3), "self.all(x, true)"), 11u);
  EXPECT_EQ(crd_estimate(map_of(Type::int_type(), 1, 10), "oldSelf.size() == self.size()"), 5u);
  const Type date_time = Type::timestamp().with_max_elements(schema_sizes::kMaxDatetimeSizeJson);
  EXPECT_EQ(crd_estimate(map_of(date_time, schema_sizes::kMinDatetimeSizeJson, 7), R"(self["a"] == self["b"])"), 8u);
  EXPECT_EQ(crd_estimate(map_of(number, 1, 0), R"(self["x"] == 0.0)"), 2u);

  // Array of number maps: x.y selects from a map, which kube's estimator cannot follow.
  const Type number_map = map_of(number, 1, none);
  EXPECT_EQ(crd_estimate(list_of(number_map, 2, none), "self.all(x, x.y == 25.2)"), 6291452u);
  EXPECT_EQ(crd_estimate(list_of(number_map, 2, 12), "self.all(x, x.y == 25.2)"), 74u);
}

TEST(CelCostCrd, KubeLibrariesFollowSchemaSizes) {
  using Max = std::optional<std::int64_t>;
  for (const auto& [max, find, join, is_sorted, lower] :
       {std::tuple<Max, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>{
            std::nullopt, 629147, 329853068905, 329854432052, 314575},
        std::tuple<Max, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>{10, 11, 43, 52, 6}}) {
    const Type str = string_type(max);
    const Type strings = list_of(str, schema_sizes::kMinStringSize, max);
    EXPECT_EQ(crd_estimate(str, "self.find('[0-9]+') == ''", ext::kube_base_env()), find);
    EXPECT_EQ(crd_estimate(strings, "self.join(' ') == 'aa bb'", ext::kube_base_env()), join);
    EXPECT_EQ(crd_estimate(strings, "self.isSorted() == true", ext::kube_base_env()), is_sorted);
    EXPECT_EQ(crd_estimate(str, "self.lowerAscii() == 'lower!'", ext::kube_base_env()), lower);
  }
  // replace's cost follows its result size: replacing 2-character strings with 4-character ones.
  for (const auto& [max, replace] : {std::pair<Max, std::uint64_t>{std::nullopt, 629154}, {4, 12}}) {
    const Type replacing = object_of({{"str", string_type(max)}, {"before", string_type(2)}, {"after", string_type(4)}});
    EXPECT_EQ(crd_estimate(replacing, "self.str.replace(self.before, self.after) == 'does not matter'",
                           ext::kube_base_env()),
              replace);
  }
  for (const auto& [max, split] : {std::pair<Max, std::uint64_t>{std::nullopt, 629160}, {10, 22}}) {
    const Type splitting = object_of({{"str", string_type(max)}, {"separator", string_type(max)}});
    EXPECT_EQ(crd_estimate(splitting, "self.str.split(self.separator) == []", ext::kube_base_env()), split);
  }
}

TEST(CelCostCrd, PathsThroughMapsAndObjects) {
  using Max = std::optional<std::int64_t>;
  // Map keys have no size hint in kube: x.contains(...) on a key costs nothing.
  for (const auto& [max, want] : {std::pair<Max, std::uint64_t>{std::nullopt, 2752507}, {10, 72}}) {
    EXPECT_EQ(crd_estimate(map_of(string_type(max), schema_sizes::kMinStringSize, max),
                           "self.all(x, x.contains(self[x]))"),
              want);
  }
  // A list of maps of objects {required, optional}; the object's smallest JSON is {"required":""}, 16 bytes.
  const std::int64_t object_min_size = 2 + 8 + schema_sizes::kMinStringSize + 4;
  const Type object = object_of({{"required", string_type(std::nullopt)}, {"optional", string_type(std::nullopt)}});
  const std::string rule = R"(self.all(x, x["y"].required == "z"))";
  EXPECT_EQ(crd_estimate(list_of(map_of(object, object_min_size, std::nullopt), 2, std::nullopt), rule), 7340027u);
  EXPECT_EQ(crd_estimate(list_of(map_of(object, object_min_size, 10), 2, 10), rule), 72u);
  EXPECT_EQ(crd_estimate(list_of(map_of(object, object_min_size, 10), 2, std::nullopt), rule), 7340027u);
}

}  // namespace
}  // namespace kapi::cel::crd_estimate_test

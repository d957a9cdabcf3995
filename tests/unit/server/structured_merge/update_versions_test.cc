// Ported from structured-merge-diff v4.4.2's merge/multiple_appliers_test.go (managers at different versions,
// through its renaming and reliant-fields converters) and merge/obsolete_versions_test.go; its real-conversion cases
// through the repeating converter.
#include "tests/unit/server/structured_merge/smd_schema_yaml.h"
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kapi::structured_merge::testing::update_versions_test {
namespace {

// fmt.Sprintf with %s verbs only.
template <typename... Args>
std::string go_sprintf(std::string_view format, const Args&... args) {
  std::vector<std::string> values{std::string(args)...};
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '%' && i + 1 < format.size() && format[i + 1] == 's') {
      out += values.at(next++);
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

// The versions of the first, second and third operation (or check): every combination of v1, v2 and v3.
class SmdVersionsTest : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string>> {
 protected:
  const std::string& v1 = std::get<0>(GetParam());
  const std::string& v2 = std::get<1>(GetParam());
  const std::string& v3 = std::get<2>(GetParam());
  RenamingConverter converter{struct_multiversion_parser()};
};

INSTANTIATE_TEST_SUITE_P(AllVersions, SmdVersionsTest,
                         ::testing::Combine(::testing::Values("v1", "v2", "v3"), ::testing::Values("v1", "v2", "v3"),
                                            ::testing::Values("v1", "v2", "v3")));

// unset_scalar_sole_owner
TEST_P(SmdVersionsTest, FieldUnsettingUnsetScalarSoleOwner) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", v1,
            go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                       v1)},
      Apply{"apply-one", v2, R"(
          struct:
            name: a
        )"},
  };
  test.object = R"(
    struct:
      name: a
  )";
  test.api_version = v3;
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("struct", "name")), v2, false}}};
  run(test, struct_multiversion_parser(), converter);
}

// unset_scalar_shared_with_applier
TEST_P(SmdVersionsTest, FieldUnsettingUnsetScalarSharedWithApplier) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", v1,
            go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                       v1)},
      Apply{"apply-two", v2,
            go_sprintf(R"(
          struct:
            scalarField_%s: a
        )",
                       v2)},
      Apply{"apply-one", v3, R"(
          struct:
            name: a
        )"},
  };
  test.object = go_sprintf(R"(
    struct:
      name: a
      scalarField_%s: a
  )",
                           v3);
  test.api_version = v3;
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("struct", "name")), v3, true}},
                    {"apply-two", VersionedSet{NS(P("struct", go_sprintf("scalarField_%s", v2))), v2, false}}};
  run(test, struct_multiversion_parser(), converter);
}

// unset_scalar_shared_with_updater
TEST_P(SmdVersionsTest, FieldUnsettingUnsetScalarSharedWithUpdater) {
  TestCase test;
  test.ops = {
      Update{"updater", v1,
             go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                        v1)},
      Apply{"applier", v2,
            go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                       v2)},
      Apply{"applier", v3, R"(
          struct:
            name: a
        )"},
  };
  test.object = go_sprintf(R"(
    struct:
      name: a
      scalarField_%s: a
  )",
                           v3);
  test.api_version = v3;
  test.managed = ManagedFields{
      {"updater",
       VersionedSet{NS(P("struct"), P("struct", "name"), P("struct", go_sprintf("scalarField_%s", v1))), v1, false}},
      {"applier", VersionedSet{NS(P("struct", "name")), v3, true}}};
  run(test, struct_multiversion_parser(), converter);
}

// updater_claims_field
TEST_P(SmdVersionsTest, FieldUnsettingUpdaterClaimsField) {
  TestCase test;
  test.ops = {
      Apply{"applier", v1,
            go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                       v1)},
      Update{"updater", v2,
             go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: b
        )",
                        v2)},
  };
  test.object = go_sprintf(R"(
    struct:
      name: a
      scalarField_%s: b
  )",
                           v3);
  test.api_version = v3;
  test.managed = ManagedFields{{"updater", VersionedSet{NS(P("struct", go_sprintf("scalarField_%s", v2))), v2, false}},
                               {"applier", VersionedSet{NS(P("struct", "name")), v1, true}}};
  run(test, struct_multiversion_parser(), converter);
}

// unset_complex_sole_owner
TEST_P(SmdVersionsTest, FieldUnsettingUnsetComplexSoleOwner) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", v1,
            go_sprintf(R"(
          struct:
            name: a
            complexField_%s:
              name: b
        )",
                       v1)},
      Apply{"apply-one", v2, R"(
          struct:
            name: a
        )"},
  };
  test.object = R"(
    struct:
      name: a
  )";
  test.api_version = v3;
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("struct", "name")), v2, false}}};
  run(test, struct_multiversion_parser(), converter);
}

// unset_complex_shared_with_applier
TEST_P(SmdVersionsTest, FieldUnsettingUnsetComplexSharedWithApplier) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", v1,
            go_sprintf(R"(
          struct:
            name: a
            complexField_%s:
              name: b
        )",
                       v1)},
      Apply{"apply-two", v2,
            go_sprintf(R"(
          struct:
            complexField_%s:
              name: b
        )",
                       v2)},
      Apply{"apply-one", v3, R"(
          struct:
            name: a
        )"},
  };
  test.object = go_sprintf(R"(
    struct:
      name: a
      complexField_%s:
        name: b
  )",
                           v3);
  test.api_version = v3;
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("struct", "name")), v3, false}},
                    {"apply-two", VersionedSet{NS(P("struct", go_sprintf("complexField_%s", v2), "name")), v2, false}}};
  run(test, struct_multiversion_parser(), converter);
}

// updater_claims_field
TEST_P(SmdVersionsTest, FieldRenameUpdaterClaimsField) {
  TestCase test;
  test.ops = {
      Apply{"applier", v1,
            go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: a
        )",
                       v1)},
      Update{"updater", v2,
             go_sprintf(R"(
          struct:
            name: a
            scalarField_%s: b
        )",
                        v2)},
  };
  test.object = go_sprintf(R"(
    struct:
      name: a
      scalarField_%s: b
  )",
                           v3);
  test.api_version = v3;
  test.managed = ManagedFields{{"updater", VersionedSet{NS(P("struct", go_sprintf("scalarField_%s", v2))), v2, false}},
                               {"applier", VersionedSet{NS(P("struct", "name")), v1, true}}};
  run(test, struct_multiversion_parser(), converter);
}

// multiple_versions_with_reliant_fields
TEST(SmdReliantFieldsTest, MultipleVersionsWithReliantFields) {
  TestCase test;
  test.ops = {
      Apply{"v2_applier", "v2", R"(
          required_field_bar: a
        )"},
      Apply{"v1_applier", "v1", R"(
          common_field: b
        )"},
      Apply{"v2_applier", "v2", R"(
          required_field_bar: b
        )"},
  };
  test.object = R"(
    required_field_bar: b
    common_field: b
  )";
  test.api_version = "v2";
  test.managed = ManagedFields{{"v2_applier", VersionedSet{NS(P("required_field_bar")), "v2", true}},
                               {"v1_applier", VersionedSet{NS(P("common_field")), "v1", true}}};
  run(test, multiversion_with_reliant_fields_parser(),
      ReliantFieldsConverter(multiversion_with_reliant_fields_parser(), "v1", "v2"));
}

// TestVersionDoesntMatchTypename: the versions' types are not named after them, as kube's are not.
TEST(SmdReliantFieldsTest, VersionsNeedNotBeTypeNames) {
  const Parser& parser = version_doesnt_match_type_name_parser();
  const Schema& schema = parser.schema();
  ReliantFieldsConverter converter(parser, "TypeV1", "TypeV2");
  Updater updater(converter, UpdaterOptions{});
  auto at = [&](const char* json, const char* type) {
    return as_typed(value_from_yaml(json), schema, schema.find(type));
  };
  ManagedFields managers;
  auto [live, after_first] = updater.apply(at("{}", "TypeV2"), at(R"({"required_field_bar": "a"})", "TypeV2"), "v2",
                                           managers, "v2_applier", false);
  ASSERT_TRUE(live);
  auto [second, after_second] = updater.apply(converter.convert(*live, "v1"), at(R"({"common_field": "b"})", "TypeV1"),
                                              "v1", after_first, "v1_applier", false);
  ASSERT_TRUE(second);
  auto [third, after_third] =
      updater.apply(converter.convert(*second, "v2"), at(R"({"required_field_bar": "b"})", "TypeV2"), "v2",
                    after_second, "v2_applier", false);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->value, value_from_yaml(R"({"required_field_bar": "b", "common_field": "b"})"));
  ASSERT_EQ(after_third.size(), 2u);
  EXPECT_EQ(after_third.at("v2_applier"), (VersionedSet{NS(P("required_field_bar")), "v2", true}));
  EXPECT_EQ(after_third.at("v1_applier"), (VersionedSet{NS(P("common_field")), "v1", true}));
}

// TestObsoleteVersions: managers of a version no longer served are dropped.
TEST(SmdObsoleteVersionsTest, ManagersOfVersionsNoLongerServedAreDropped) {
  const Parser& parser = deduced_parser();
  SpecificVersionConverter converter({"v1", "v2"});
  Updater updater(converter, UpdaterOptions{});
  TypedValue live = parser.empty("v1");
  ManagedFields managers;
  // Each update's object becomes the live object of the next, as a write stores it.
  auto update = [&](TypedValue updated, const std::string& version) {
    managers = updater.update(live, updated, version, managers, version);
    live = std::move(updated);
  };
  update(parser.parse(R"({"v1": 0})", "v1"), "v1");
  update(parser.parse(R"({"v1": 0, "v2": 0})", "v2"), "v2");
  converter.accept({"v2", "v3"});
  update(parser.parse(R"({"v1": 0, "v2": 0, "v3": 0})", "v3"), "v3");

  ASSERT_EQ(managers.size(), 2u);
  EXPECT_EQ(managers.at("v2"), (VersionedSet{NS(P("v2")), "v2", false}));
  EXPECT_EQ(managers.at("v3"), (VersionedSet{NS(P("v3")), "v3", false}));
}

// TestApplyObsoleteVersion: an applier whose last version is not served any more prunes nothing.
TEST(SmdObsoleteVersionsTest, ApplyAtANewVersionPrunesNothingOfAnUnservedOne) {
  SameVersionParser parser(R"(types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative)",
                           "sets");
  SpecificVersionConverter converter({"v1"});
  Updater updater(converter, UpdaterOptions{});
  TypedValue live = parser.empty("v1");
  auto [applied, managers] =
      updater.apply(live, parser.parse(R"({"list": ["a", "b", "c", "d"]})", "v1"), "v1", {}, "apply", false);
  ASSERT_TRUE(applied);
  converter.accept({"v2"});
  auto [reapplied, managers_after] =
      updater.apply(*applied, parser.parse(R"({"list": ["a"]})", "v2"), "v2", managers, "apply", false);
  const TypedValue& result = reapplied ? *reapplied : *applied;
  EXPECT_EQ(result.value, parser.parse(R"({"list": ["a", "b", "c", "d"]})", "v2").value);
  EXPECT_EQ(managers_after.at("apply"), (VersionedSet{NS(P("list", V("a"))), "v2", true}));
}

// multiple_appliers_recursive_map_real_conversion
TEST(SmdRealConversionTest, MultipleAppliersRecursiveMapRealConversion) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
            c:
              d:
        )"},
      Apply{"apply-two", "v2", R"(
          mapOfMapsRecursive:
            aa:
            cc:
              dd:
        )"},
      Update{"controller", "v3", R"(
          mapOfMapsRecursive:
            aaa:
              bbb:
                ccc:
                  ddd:
            ccc:
              ddd:
                eee:
                  fff:
        )"},
      Apply{"apply-one", "v4", R"(
          mapOfMapsRecursive:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      aaaa:
      cccc:
        dddd:
          eeee:
            ffff:
  )";
  test.api_version = "v4";
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("mapOfMapsRecursive")), "v4", false}},
                    {"apply-two", VersionedSet{NS(P("mapOfMapsRecursive", "aa"), P("mapOfMapsRecursive", "cc"),
                                                  P("mapOfMapsRecursive", "cc", "dd")),
                                               "v2", false}},
                    {"controller", VersionedSet{NS(P("mapOfMapsRecursive", "ccc", "ddd", "eee"),
                                                   P("mapOfMapsRecursive", "ccc", "ddd", "eee", "fff")),
                                                "v3", false}}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

// appliers_remove_from_controller_real_conversion
TEST(SmdRealConversionTest, AppliersRemoveFromControllerRealConversion) {
  TestCase test;
  test.ops = {
      Apply{"apply", "v3", R"(
          mapOfMapsRecursive:
            aaa:
              bbb:
        )"},
      Update{"controller", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
        )"},
      Apply{"apply", "v2", R"(
          mapOfMapsRecursive:
            aa:
              bb:
            cc:
              dd:
        )"},
      Apply{"apply", "v3", R"(
          mapOfMapsRecursive:
            aaa:
            ccc:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      aaa:
      ccc:
  )";
  test.api_version = "v3";
  test.managed = ManagedFields{
      {"apply", VersionedSet{NS(P("mapOfMapsRecursive", "aaa"), P("mapOfMapsRecursive", "ccc")), "v3", false}}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

// applier_updater_shared_ownership_real_conversion
TEST(SmdRealConversionTest, ApplierUpdaterSharedOwnershipRealConversion) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
        )"},
      Apply{"apply", "v2", R"(
          mapOfMapsRecursive:
            aa:
              bb:
            cc:
              dd:
        )"},
      Apply{"apply", "v3", R"(
          mapOfMapsRecursive:
            aaa:
            ccc:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      aaa:
        bbb:
          ccc:
      ccc:
  )";
  test.api_version = "v3";
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("mapOfMapsRecursive"), P("mapOfMapsRecursive", "a"),
                                  P("mapOfMapsRecursive", "a", "b"), P("mapOfMapsRecursive", "a", "b", "c")),
                               "v1", false}},
      {"apply", VersionedSet{NS(P("mapOfMapsRecursive", "aaa"), P("mapOfMapsRecursive", "ccc")), "v3", false}}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_versions_test

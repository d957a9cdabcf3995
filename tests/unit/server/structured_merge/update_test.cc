// The Updater's own contract beyond smd's fixture: what apply returns when nothing changes, and how converter
// failures other than a missing version surface.
#include "server/structured_merge/update.h"

#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kapi::structured_merge::testing::update_test {
namespace {

// A converter that cannot convert at all (not a missing version): its error is the caller's.
class FailingConverter : public Converter {
 public:
  TypedValue convert(const TypedValue&, const std::string&) const override {
    throw std::runtime_error("conversion webhook unavailable");
  }
};

TEST(SmdUpdaterTest, ApplyingWhatIsLiveIsANoop) {
  const Parser& parser = leaf_fields_parser();
  DummyConverter converter;
  Updater updater(converter, UpdaterOptions{});
  TypedValue config = parser.parse("numeric: 1\nstring: a\n", "v1");
  auto [created, managers] = updater.apply(parser.empty("v1"), config, "v1", {}, "applier", false);
  ASSERT_TRUE(created);

  auto [again, managers_again] = updater.apply(*created, config, "v1", managers, "applier", false);
  EXPECT_FALSE(again);
  EXPECT_EQ(managers_again, managers);
}

TEST(SmdUpdaterTest, ReturnInputOnNoopReturnsTheObjectAnyway) {
  const Parser& parser = leaf_fields_parser();
  DummyConverter converter;
  Updater updater(converter, UpdaterOptions{.return_input_on_noop = true});
  TypedValue config = parser.parse("numeric: 1\n", "v1");
  auto [created, managers] = updater.apply(parser.empty("v1"), config, "v1", {}, "applier", false);
  ASSERT_TRUE(created);
  auto [again, managers_again] = updater.apply(*created, config, "v1", managers, "applier", false);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->value, created->value);
}

TEST(SmdUpdaterTest, NumbersEqualAsNumbersMakeANoop) {
  const Parser& parser = leaf_fields_parser();
  DummyConverter converter;
  Updater updater(converter, UpdaterOptions{});
  auto [created, managers] =
      updater.apply(parser.empty("v1"), parser.parse("numeric: 1\n", "v1"), "v1", {}, "applier", false);
  ASSERT_TRUE(created);
  auto [again, managers_again] =
      updater.apply(*created, parser.parse("numeric: 1.0\n", "v1"), "v1", managers, "applier", false);
  EXPECT_FALSE(again);
}

TEST(SmdUpdaterTest, AnUpdateChangingNothingKeepsTheManagers) {
  const Parser& parser = leaf_fields_parser();
  DummyConverter converter;
  Updater updater(converter, UpdaterOptions{});
  TypedValue object = parser.parse("numeric: 1\n", "v1");
  ManagedFields managers = updater.update(parser.empty("v1"), object, "v1", {}, "writer");
  ManagedFields after = updater.update(object, object, "v1", managers, "other");
  EXPECT_EQ(after, managers);
  EXPECT_FALSE(after.contains("other"));
}

TEST(SmdUpdaterTest, ConverterErrorsOtherThanAMissingVersionAreThrown) {
  const Parser& parser = leaf_fields_parser();
  FailingConverter converter;
  Updater updater(converter, UpdaterOptions{});
  ManagedFields managers{{"other", VersionedSet{NS(P("numeric")), "v2", false}}};
  TypedValue live = parser.parse("numeric: 1\n", "v1");
  EXPECT_THROW(updater.update(live, parser.parse("numeric: 2\n", "v1"), "v1", managers, "writer"), std::runtime_error);
  EXPECT_THROW(updater.apply(live, parser.parse("numeric: 2\n", "v1"), "v1", managers, "applier", true),
               std::runtime_error);
}

// A conversion that fails midway reads as smd's error for that step, which kube answers with.
TEST(SmdUpdaterTest, ConversionFailuresSayWhichObjectFailed) {
  const Parser& parser = multiversion_with_reliant_fields_parser();
  ReliantFieldsConverter converter(parser, "v1", "v2");
  Updater updater(converter, UpdaterOptions{});
  ManagedFields managers{{"v1_applier", VersionedSet{NS(P("common_field")), "v1", true}}};
  TypedValue live = parser.parse(R"({"required_field_bar": "a", "common_field": "b"})", "v2");
  try {
    updater.update(live, parser.parse(R"({"common_field": "b"})", "v2"), "v2", managers, "writer");
    FAIL() << "the update did not fail";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "failed to convert new object: missing requried field bar");
  }
}

TEST(SmdUpdaterTest, ManagersAtAVersionNoLongerServedAreDroppedOnApply) {
  const Parser& parser = leaf_fields_parser();
  SpecificVersionConverter converter({"v2"});
  Updater updater(converter, UpdaterOptions{});
  ManagedFields managers{{"gone", VersionedSet{NS(P("numeric")), "v1", true}}};
  auto [applied, after] = updater.apply(parser.parse("numeric: 1\n", "v2"), parser.parse("numeric: 2\n", "v2"), "v2",
                                        managers, "applier", false);
  ASSERT_TRUE(applied);
  EXPECT_FALSE(after.contains("gone"));
  EXPECT_EQ(after.at("applier"), (VersionedSet{NS(P("numeric")), "v2", true}));
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_test

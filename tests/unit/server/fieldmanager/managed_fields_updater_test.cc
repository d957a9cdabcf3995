// kube's managedfieldsupdater_test.go: when entries' times change, and Update entries of one manager merging.
#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

#include <map>

namespace kapi::fieldmanager::managed_fields_updater_test {
namespace {

using namespace testing;

json::object config_map(std::string_view data) {
  return object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"configmap"},"data":)" +
                          std::string(data) + "}");
}

std::map<std::string, json::object> entries_by_manager(const TestFieldManager& f) {
  std::map<std::string, json::object> out;
  for (const auto& entry : f.managed_fields()) out[std::string(entry.at("manager").as_string())] = entry.as_object();
  return out;
}

class ManagedFieldsUpdater : public ::testing::Test {
 protected:
  void later() { f.clock().advance(std::chrono::seconds(1)); }
  TestFieldManager f{"v1", "ConfigMap"};
};

TEST_F(ManagedFieldsUpdater, UpdateModifiesTime) {
  f.update(config_map(R"({"key":"value"})"), "fieldmanager_test");
  auto before = f.managed_fields();
  later();
  f.update(config_map(R"({"key":"new-value"})"), "fieldmanager_test");
  EXPECT_EQ(before[0].at("time"), "2026-12-01T21:00:00Z");
  EXPECT_EQ(f.managed_fields()[0].at("time"), "2026-12-01T21:00:01Z");
}

TEST_F(ManagedFieldsUpdater, ApplyModifiesTime) {
  f.apply(config_map(R"({"key":"value"})"), "fieldmanager_test", true);
  later();
  f.apply(config_map(R"({"key":"new-value"})"), "fieldmanager_test", true);
  EXPECT_EQ(f.managed_fields()[0].at("time"), "2026-12-01T21:00:01Z");
}

TEST_F(ManagedFieldsUpdater, UpdateWithoutChangesKeepsTime) {
  f.update(config_map(R"({"key":"value"})"), "fieldmanager_test");
  auto before = f.managed_fields();
  later();
  f.update(config_map(R"({"key":"value"})"), "fieldmanager_test");
  EXPECT_EQ(f.managed_fields(), before);
}

TEST_F(ManagedFieldsUpdater, ApplyWithoutChangesKeepsTime) {
  f.apply(config_map(R"({"key":"value"})"), "fieldmanager_test", true);
  auto before = f.managed_fields();
  later();
  f.apply(config_map(R"({"key":"value"})"), "fieldmanager_test", true);
  EXPECT_EQ(f.managed_fields(), before);
}

TEST_F(ManagedFieldsUpdater, UpdateTakingAllOfAManagersFieldsRemovesIt) {
  f.update(config_map(R"({"key_a":"value"})"), "fieldmanager_a_test");
  f.update(config_map(R"({"key_a":"value","key_b":"value"})"), "fieldmanager_b_test");
  later();
  f.update(config_map(R"({"key_a":"value","key_b":"new-value"})"), "fieldmanager_a_test");
  EXPECT_FALSE(entries_by_manager(f).contains("fieldmanager_b_test")) << json::serialize(f.managed_fields());
}

TEST_F(ManagedFieldsUpdater, OtherAppliersKeepTheirTime) {
  f.apply(config_map(R"({"key_a":"value"})"), "fieldmanager_a_test", true);
  f.apply(config_map(R"({"key_b":"value"})"), "fieldmanager_b_test", true);
  auto before = entries_by_manager(f);
  later();
  f.apply(config_map(R"({"key_a":"new-value"})"), "fieldmanager_a_test", true);
  EXPECT_EQ(entries_by_manager(f)["fieldmanager_b_test"], before["fieldmanager_b_test"]);
}

TEST_F(ManagedFieldsUpdater, TakingOverDuringUpdateKeepsThePreviousManagersTime) {
  f.update(config_map(R"({"key_a":"value","key_b":"value"})"), "fieldmanager_a_test");
  auto before = entries_by_manager(f);
  later();
  f.update(config_map(R"({"key_b":"new-value"})"), "fieldmanager_b_test");
  EXPECT_EQ(entries_by_manager(f)["fieldmanager_a_test"].at("time"), before["fieldmanager_a_test"].at("time"));
}

TEST_F(ManagedFieldsUpdater, TakingOverDuringApplyKeepsThePreviousManagersTime) {
  f.apply(config_map(R"({"key_a":"value","key_b":"value"})"), "fieldmanager_a_test", true);
  auto before = entries_by_manager(f);
  later();
  f.apply(config_map(R"({"key_b":"new-value"})"), "fieldmanager_b_test", true);
  EXPECT_EQ(entries_by_manager(f)["fieldmanager_a_test"].at("time"), before["fieldmanager_a_test"].at("time"));
}

TEST_F(ManagedFieldsUpdater, CoOwningByApplyingTheSameObject) {
  f.apply(config_map(R"({"key_a":"value","key_b":"value"})"), "fieldmanager_a_test", true);
  auto before = entries_by_manager(f);
  later();
  f.apply(config_map(R"({"key_a":"value","key_b":"value"})"), "fieldmanager_b_test", true);
  auto after = entries_by_manager(f);
  EXPECT_EQ(after["fieldmanager_a_test"], before["fieldmanager_a_test"]);
  EXPECT_EQ(after["fieldmanager_a_test"].at("fieldsV1"), after["fieldmanager_b_test"].at("fieldsV1"));
  // The object did not change, so the second applier's entry has no time: kube 1.32's managedFieldsUpdater stamps
  // an apply only when the object changed (the later test TestCoOwningManagedFieldsByApplyingSameObjResultsInNewManagerTime
  // is not 1.32's).
  EXPECT_FALSE(after["fieldmanager_b_test"].contains("time"));
}

TEST_F(ManagedFieldsUpdater, UpdatesOfOneManagerMergeIntoItsEntry) {
  f.update(config_map(R"({"a":"1"})"), "kubectl-edit");
  later();
  f.update(config_map(R"({"a":"1","b":"2"})"), "kubectl-edit");
  EXPECT_EQ(f.managed_fields(), json::parse(R"([{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1",
      "time":"2026-12-01T21:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}}}}])"));
}

// A chain stage whose apply changes nothing.
class NoopManager final : public internal::Manager {
 public:
  Managed update(const json::object&, json::object&, Managed managed, const std::string&) const override {
    return managed;
  }
  internal::Applied apply(const json::object&, const json::object&, Managed managed, const std::string&,
                          bool) const override {
    return {std::nullopt, std::move(managed)};
  }
};

TEST(ManagedFieldsUpdaterNoop, ReturnsTheLiveObjectWithoutManagedFields) {
  json::object live = object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod",
      "labels":{"app":"nginx"},"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}}},"manager":"fieldmanager_test","operation":"Apply",
      "time":"2021-11-11T18:41:17Z"}]}})");
  Managed managed = decode_managed_fields(live);
  auto updater = internal::managed_fields_updater(std::make_unique<NoopManager>(), FakeClock().clock());
  internal::Applied applied = updater->apply(live, live, managed, "some_manager", false);
  ASSERT_TRUE(applied.object);
  json::object expected = live;
  expected["metadata"].as_object().erase("managedFields");
  EXPECT_EQ(*applied.object, expected);
  EXPECT_EQ(applied.managed, managed);  // no time for a no-op
}

}  // namespace
}  // namespace kapi::fieldmanager::managed_fields_updater_test

// kube's capmanagers_test.go.
#include "base/go_time.h"
#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

namespace kapi::fieldmanager::cap_managers_test {
namespace {

using namespace testing;
namespace sm = structured_merge;

TestFieldManager capped_pod_manager() {
  return TestFieldManager("v1", "Pod", "", [](internal::ManagerPtr inner) {
    return internal::cap_managers_manager(std::move(inner), 3);
  });
}

json::object pod_with_labels(std::initializer_list<const char*> labels) {
  json::object label_map;
  for (const char* label : labels) label_map[label] = "true";
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"labels", std::move(label_map)}}}};
}

// A no-op update leaves the managedFields as they are.
void expect_idempotence(TestFieldManager& f) {
  json::array before = f.managed_fields();
  f.update(f.live(), "no-op-update");
  EXPECT_EQ(f.managed_fields(), before);
}

void expect_manages_field(const TestFieldManager& f, std::string_view manager, const sm::Path& path) {
  for (const auto& entry : f.managed_fields()) {
    if (entry.at("manager").as_string() != manager) continue;
    EXPECT_TRUE(sm::Set::from_fields_v1(entry.at("fieldsV1")).has(path))
        << manager << " does not manage " << sm::path_to_string(path);
    return;
  }
  ADD_FAILURE() << "no manager " << manager << " in " << json::serialize(f.managed_fields());
}

sm::Path label_path(const char* label) {
  return {sm::PathElement::field("metadata"), sm::PathElement::field("labels"), sm::PathElement::field(label)};
}

TEST(CapManagers, MergesOldestEntries) {
  TestFieldManager f = capped_pod_manager();
  f.update(pod_with_labels({"one"}), "fieldmanager_test_update_1");
  expect_idempotence(f);
  f.clock().advance(std::chrono::seconds(1));
  f.update(pod_with_labels({"one", "two"}), "fieldmanager_test_update_2");
  expect_idempotence(f);
  f.clock().advance(std::chrono::seconds(1));
  f.update(pod_with_labels({"one", "two", "three"}), "fieldmanager_test_update_3");
  expect_idempotence(f);
  f.clock().advance(std::chrono::seconds(1));
  f.update(pod_with_labels({"one", "two", "three", "four"}), "fieldmanager_test_update_4");
  expect_idempotence(f);

  json::array entries = f.managed_fields();
  ASSERT_EQ(entries.size(), 3u) << json::serialize(entries);
  EXPECT_EQ(entries[0].at("manager"), "ancient-changes");
  EXPECT_EQ(entries[1].at("manager"), "fieldmanager_test_update_3");
  EXPECT_EQ(entries[2].at("manager"), "fieldmanager_test_update_4");
  expect_manages_field(f, "ancient-changes", label_path("one"));
  expect_manages_field(f, "ancient-changes", label_path("two"));
  expect_manages_field(f, "fieldmanager_test_update_3", label_path("three"));
  expect_manages_field(f, "fieldmanager_test_update_4", label_path("four"));
  // The bucket has the time of the newest update merged into it.
  EXPECT_EQ(entries[0].at("time"), "2026-12-01T21:00:01Z");
}

// An Update entry whose time is `order` hours after Go's zero time, owning top-level `fields`.
json::value entry(const char* manager, const char* version, int order, std::initializer_list<const char*> fields) {
  json::object fields_v1;
  for (const char* field : fields) fields_v1[std::string("f:") + field] = json::object();
  return json::object{{"manager", manager},
                      {"operation", "Update"},
                      {"apiVersion", version},
                      {"time", base::format_rfc3339(base::kZeroTimeSeconds + 3600 * order)},
                      {"fieldsType", "FieldsV1"},
                      {"fieldsV1", std::move(fields_v1)}};
}

struct CapCase {
  const char* name;
  json::array input;
  json::array expected;
};

TEST(CapManagers, CapUpdateManagers) {
  const CapCase cases[] = {
      {"one version, no ancient changes",
       {entry("update-manager1", "v1", 1, {"a"}), entry("update-manager2", "v1", 2, {"b"}),
        entry("update-manager3", "v1", 3, {"c"}), entry("update-manager4", "v1", 4, {"d"})},
       {entry("ancient-changes", "v1", 2, {"a", "b"}), entry("update-manager3", "v1", 3, {"c"}),
        entry("update-manager4", "v1", 4, {"d"})}},
      {"one version, one ancient changes",
       {entry("ancient-changes", "v1", 2, {"a", "b"}), entry("update-manager3", "v1", 3, {"c"}),
        entry("update-manager4", "v1", 4, {"d"}), entry("update-manager5", "v1", 5, {"e"})},
       {entry("ancient-changes", "v1", 3, {"a", "b", "c"}), entry("update-manager4", "v1", 4, {"d"}),
        entry("update-manager5", "v1", 5, {"e"})}},
      {"two versions, no ancient changes",
       {entry("update-manager1", "v1", 1, {"a"}), entry("update-manager2", "v2", 2, {"b"}),
        entry("update-manager3", "v1", 3, {"c"}), entry("update-manager4", "v1", 4, {"d"}),
        entry("update-manager5", "v1", 5, {"e"})},
       {entry("update-manager2", "v2", 2, {"b"}), entry("ancient-changes", "v1", 4, {"a", "c", "d"}),
        entry("update-manager5", "v1", 5, {"e"})}},
      {"three versions, one ancient changes",
       {entry("update-manager2", "v2", 2, {"b"}), entry("ancient-changes", "v1", 4, {"a", "c", "d"}),
        entry("update-manager5", "v1", 5, {"e"}), entry("update-manager6", "v3", 6, {"f"}),
        entry("update-manager7", "v2", 7, {"g"})},
       {entry("ancient-changes", "v1", 5, {"a", "c", "d", "e"}), entry("update-manager6", "v3", 6, {"f"}),
        entry("ancient-changes", "v2", 7, {"b", "g"})}},
      {"three versions, two ancient changes",
       {entry("ancient-changes", "v1", 5, {"a", "c", "d", "e"}), entry("update-manager6", "v3", 6, {"f"}),
        entry("ancient-changes", "v2", 7, {"b", "g"}), entry("update-manager8", "v3", 8, {"h"})},
       {entry("ancient-changes", "v1", 5, {"a", "c", "d", "e"}), entry("ancient-changes", "v2", 7, {"b", "g"}),
        entry("ancient-changes", "v3", 8, {"f", "h"})}},
      {"four versions, two ancient changes",
       {entry("ancient-changes", "v1", 5, {"a", "c", "d", "e"}), entry("update-manager6", "v3", 6, {"f"}),
        entry("ancient-changes", "v2", 7, {"b", "g"}), entry("update-manager8", "v4", 8, {"h"})},
       {entry("ancient-changes", "v1", 5, {"a", "c", "d", "e"}), entry("update-manager6", "v3", 6, {"f"}),
        entry("ancient-changes", "v2", 7, {"b", "g"}), entry("update-manager8", "v4", 8, {"h"})}},
  };
  TestFieldManager f = capped_pod_manager();
  for (const auto& test : cases) {
    f.reset();
    json::object live = f.live();
    live["metadata"] = {{"managedFields", test.input}};
    f.update(live, "no-op-update");
    EXPECT_EQ(f.managed_fields(), test.expected) << test.name << ": " << json::serialize(f.managed_fields());
    expect_idempotence(f);
  }
}

}  // namespace
}  // namespace kapi::fieldmanager::cap_managers_test

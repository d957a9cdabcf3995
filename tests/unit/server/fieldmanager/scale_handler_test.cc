// kube's scalehandler_test.go.
#include "server/fieldmanager/scale_handler.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::fieldmanager::scale_handler_test {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

ScaleHandler::ResourcePathMappings default_mappings() {
  return {{"apps/v1", {sm::PathElement::field("spec"), sm::PathElement::field("replicas")}},
          {"apps/v2", {sm::PathElement::field("spec"), sm::PathElement::field("not-the-replicas")}}};
}

json::array entries(std::string_view text) { return json::parse(text).as_array(); }

ScaleHandler handler(std::string_view parent) { return ScaleHandler(entries(parent), "apps/v1", default_mappings()); }

TEST(ScaleHandlerToSubresource, FiltersAndTransformsAnEntry) {
  EXPECT_EQ(handler(R"([
      {"manager":"manager-1","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1",
       "fieldsV1":{"f:spec":{"f:another-field":{}}}},
      {"manager":"manager-2","operation":"Apply","apiVersion":"apps/v1","time":"2013-02-03T00:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])")
                .to_subresource(),
            entries(R"([{"manager":"manager-2","operation":"Apply","apiVersion":"autoscaling/v1",
                         "time":"2013-02-03T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])"));
}

TEST(ScaleHandlerToSubresource, TransformsAllEntries) {
  EXPECT_EQ(handler(R"([
      {"manager":"manager-1","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
      {"manager":"manager-2","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
      {"manager":"manager-3","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},
       "subresource":"scale"}])")
                .to_subresource(),
            entries(R"([
      {"manager":"manager-1","operation":"Apply","apiVersion":"autoscaling/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
      {"manager":"manager-2","operation":"Apply","apiVersion":"autoscaling/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
      {"manager":"manager-3","operation":"Apply","apiVersion":"autoscaling/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},
       "subresource":"scale"}])"));
}

TEST(ScaleHandlerToSubresource, DropsUnknownVersions) {
  EXPECT_EQ(handler(R"([{"manager":"manager-1","operation":"Apply","apiVersion":"apps/v10","fieldsType":"FieldsV1",
                         "fieldsV1":{"f:spec":{"f:replicas":{}}}}])")
                .to_subresource(),
            json::array());
}

struct ToParentCase {
  const char* name;
  const char* parent;
  const char* scale;
  const char* expected;
};

class ScaleHandlerToParent : public ::testing::TestWithParam<ToParentCase> {};

TEST_P(ScaleHandlerToParent, MergesScaleEntries) {
  const ToParentCase& test = GetParam();
  EXPECT_EQ(handler(test.parent).to_parent(entries(test.scale)), entries(test.expected)) << test.name;
}

#define ENTRY(manager, operation, version, fields, extra) \
  R"({"manager":")" manager R"(","operation":")" operation R"(","apiVersion":")" version \
  R"(","fieldsType":"FieldsV1","fieldsV1":)" fields extra "}"
#define SCALE R"(,"subresource":"scale")"
#define REPLICAS_SELECTOR R"({"f:spec":{"f:replicas":{},"f:selector":{}}})"
#define REPLICAS R"({"f:spec":{"f:replicas":{}}})"
#define SELECTOR R"({"f:spec":{"f:selector":{}}})"

INSTANTIATE_TEST_SUITE_P(
    Kube, ScaleHandlerToParent,
    ::testing::Values(
        ToParentCase{"different-managers: apply -> update", "[" ENTRY("test", "Apply", "apps/v1", REPLICAS_SELECTOR, "") "]",
                     "[" ENTRY("scale", "Update", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "," ENTRY("scale", "Update", "apps/v1", REPLICAS, SCALE) "]"},
        ToParentCase{"different-managers: apply -> apply", "[" ENTRY("test", "Apply", "apps/v1", REPLICAS_SELECTOR, "") "]",
                     "[" ENTRY("scale", "Apply", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("scale", "Apply", "apps/v1", REPLICAS, SCALE) "," ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "]"},
        ToParentCase{"different-managers: update -> update", "[" ENTRY("test", "Update", "apps/v1", REPLICAS_SELECTOR, "") "]",
                     "[" ENTRY("scale", "Update", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("scale", "Update", "apps/v1", REPLICAS, SCALE) "," ENTRY("test", "Update", "apps/v1", SELECTOR, "") "]"},
        ToParentCase{"same manager: update -> apply", "[" ENTRY("test", "Update", "apps/v1", REPLICAS_SELECTOR, "") "]",
                     "[" ENTRY("test", "Apply", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("test", "Apply", "apps/v1", REPLICAS, SCALE) "," ENTRY("test", "Update", "apps/v1", SELECTOR, "") "]"},
        ToParentCase{"same manager: apply -> update", "[" ENTRY("test", "Apply", "apps/v1", REPLICAS_SELECTOR, "") "]",
                     "[" ENTRY("test", "Update", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "," ENTRY("test", "Update", "apps/v1", REPLICAS, SCALE) "]"},
        ToParentCase{"subresource doesn't own the path anymore", "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "]",
                     "[" ENTRY("scale", "Update", "autoscaling/v1", R"({"f:status":{"f:replicas":{}}})", SCALE) "]",
                     "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "]"},
        ToParentCase{"subresource steals all the fields of the parent resource",
                     "[" ENTRY("test", "Apply", "apps/v1", REPLICAS, "") "]",
                     "[" ENTRY("scale", "Update", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("scale", "Update", "apps/v1", REPLICAS, SCALE) "]"},
        ToParentCase{"entries of an unknown version are dropped",
                     "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "," ENTRY("old", "Update", "apps/v10", SELECTOR, "") "]",
                     "[]", "[" ENTRY("test", "Apply", "apps/v1", SELECTOR, "") "]"},
        ToParentCase{"another version's replicas path", "[" ENTRY("test", "Update", "apps/v2", R"({"f:spec":{"f:not-the-replicas":{},"f:selector":{}}})", "") "]",
                     "[" ENTRY("scale", "Update", "autoscaling/v1", REPLICAS, SCALE) "]",
                     "[" ENTRY("scale", "Update", "apps/v1", REPLICAS, SCALE) "," ENTRY("test", "Update", "apps/v2", SELECTOR, "") "]"}));

TEST(ScaleHandlerToParentTimes, ScaleManagersTakeTheParentsTime) {
  // kube carries times from the main resource's entries only: a manager new to them gets an entry without time.
  ScaleHandler scale_handler(
      entries(R"([{"manager":"test","operation":"Update","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z",
                   "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{},"f:selector":{}}}}])"),
      "apps/v1", default_mappings());
  EXPECT_EQ(scale_handler.to_parent(entries(R"([{"manager":"kubectl","operation":"Update","apiVersion":"autoscaling/v1",
                                               "time":"2026-01-02T00:00:00Z","fieldsType":"FieldsV1",
                                               "fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}])")),
            entries(R"([{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1",
                         "fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"},
                        {"manager":"test","operation":"Update","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z",
                         "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{}}}}])"));
}

}  // namespace
}  // namespace kapi::fieldmanager::scale_handler_test

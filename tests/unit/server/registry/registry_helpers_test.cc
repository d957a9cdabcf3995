// The registry's pure helpers: metadata, printing durations, names and field errors as kube words them.
#include "base/name_validation.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/table.h"
#include "server/validation/field_error.h"

#include <gtest/gtest.h>

#include <regex>

namespace kapi::registry::registry_helpers_test {
namespace {

TEST(ObjectMetaTest, ResourceVersionIsSplicedIntoStoredBytes) {
  EXPECT_EQ(with_resource_version(R"({"kind":"ConfigMap","metadata":{"name":"x"}})", 42),
            R"({"kind":"ConfigMap","metadata":{"resourceVersion":"42","name":"x"}})");
  EXPECT_EQ(with_resource_version(R"({"metadata":{}})", 7), R"({"metadata":{"resourceVersion":"7"}})");
  // Bytes written by someone else without the compact form still get it, through a parse.
  EXPECT_EQ(with_resource_version(R"({"metadata" : {"name":"x"}})", 3),
            R"({"metadata":{"name":"x","resourceVersion":"3"}})");
}

TEST(ObjectMetaTest, GeneratedNamesAndTimesLookLikeKubes) {
  EXPECT_TRUE(std::regex_match(generate_name_suffix(), std::regex("[bcdfghjklmnpqrstvwxz2456789]{5}")));
  EXPECT_TRUE(std::regex_match(rfc3339_now(), std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
}

TEST(TableTest, HumanDurationMatchesKube) {
  using std::chrono::seconds;
  EXPECT_EQ(human_duration(seconds(-5)), "<invalid>");
  EXPECT_EQ(human_duration(seconds(-1)), "0s");
  EXPECT_EQ(human_duration(seconds(45)), "45s");
  EXPECT_EQ(human_duration(seconds(119)), "119s");
  EXPECT_EQ(human_duration(seconds(200)), "3m20s");
  EXPECT_EQ(human_duration(seconds(240)), "4m");
  EXPECT_EQ(human_duration(seconds(3600)), "60m");
  EXPECT_EQ(human_duration(seconds(4 * 3600 + 60 * 5)), "4h5m");
  EXPECT_EQ(human_duration(seconds(30 * 3600)), "30h");
  EXPECT_EQ(human_duration(seconds(3 * 86400 + 3600)), "3d1h");
  EXPECT_EQ(human_duration(seconds(12 * 86400)), "12d");
  EXPECT_EQ(human_duration(seconds(800 * 86400)), "2y70d");
  EXPECT_EQ(human_duration(seconds(9 * 365 * 86400)), "9y");
}

TEST(ValidationTest, NamesFollowKubesRules) {
  EXPECT_TRUE(validation::is_dns1123_subdomain("my-app.example").empty());
  ASSERT_EQ(validation::is_dns1123_subdomain("Bad_Name").size(), 1u);
  EXPECT_TRUE(validation::is_dns1123_subdomain("Bad_Name")[0].starts_with("a lowercase RFC 1123 subdomain"));
  EXPECT_EQ(validation::is_dns1123_label(std::string(64, 'a'))[0], "must be no more than 63 characters");
  EXPECT_FALSE(validation::is_dns1123_label("a.b").empty());
  EXPECT_TRUE(validation::is_config_map_key("KEY_name-1.txt").empty());
  EXPECT_EQ(validation::is_config_map_key("..x").back(), "must not start with '..'");
}

TEST(ValidationTest, InvalidStatusAggregatesFieldErrors) {
  validation::ErrorList errors{validation::invalid(validation::Path("metadata").child("name"), "Bad", "bad name"),
                               validation::required(validation::Path("data").key("k"))};
  auto status = apierrors::invalid("apps", "Deployment", "Bad", errors);
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.message,
            "Deployment.apps \"Bad\" is invalid: [metadata.name: Invalid value: \"Bad\": bad name, data[k]: Required value]");
  ASSERT_EQ(status.details->causes.size(), 2u);
  EXPECT_EQ(status.details->causes[1].reason, "FieldValueRequired");
  EXPECT_EQ(status.details->causes[1].field, "data[k]");
}

}  // namespace
}  // namespace kapi::registry::registry_helpers_test

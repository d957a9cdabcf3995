#include "server/schema/patch_schema.h"

#include "server/patch/strategic_merge_patch.h"
#include "server/schema/decoding.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::schema::patch_schema_test {
namespace {

namespace json = boost::json;

class PatchSchemasTest : public ::testing::Test {
 protected:
  Catalog catalog = Catalog::builtin();
  PatchSchemas schemas{catalog};
};

TEST_F(PatchSchemasTest, MarkersBecomePatchMetadata) {
  const patch::PatchSchema* pod = schemas.of(catalog.kind("", "v1", "Pod"));
  ASSERT_NE(pod, nullptr);
  patch::PatchMeta meta;
  const patch::PatchSchema* spec = pod->field("spec", &meta);
  ASSERT_NE(spec, nullptr);
  const patch::PatchSchema* containers = spec->field("containers", &meta);
  ASSERT_NE(containers, nullptr);
  EXPECT_EQ(meta.strategy, "merge");
  EXPECT_EQ(meta.merge_key, "name");
  ASSERT_NE(containers->elements(), nullptr);
  EXPECT_EQ(containers->elements()->name(), "Container");
  containers->elements()->field("ports", &meta);
  EXPECT_EQ(meta.merge_key, "containerPort");
  // +inline: a volume's source fields are the volume's own in JSON.
  const patch::PatchSchema* volume = spec->field("volumes", &meta)->elements();
  ASSERT_NE(volume, nullptr);
  EXPECT_NE(volume->field("configMap", &meta), nullptr);
  EXPECT_EQ(volume->field("volumeSource", &meta), nullptr);
  // Maps answer any key; special types are leaves.
  const patch::PatchSchema* metadata = pod->field("metadata", &meta);
  EXPECT_EQ(metadata->field("labels", &meta)->field("anything", &meta), nullptr);
  EXPECT_EQ(metadata->field("creationTimestamp", &meta), nullptr);
}

// kubectl set image / apply on a deployment: containers merge by name, other containers stay.
TEST_F(PatchSchemasTest, StrategicMergeOfADeploymentMergesContainersByName) {
  const patch::PatchSchema* deployment = schemas.of(catalog.kind("apps", "v1", "Deployment"));
  ASSERT_NE(deployment, nullptr);
  json::value original = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:1","ports":[{"containerPort":80}]},{"name":"sidecar","image":"side:1"}]}}}})");
  json::value patched = patch::apply_strategic_merge_patch(
      original, R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}})", *deployment);
  EXPECT_EQ(patched, json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:2","ports":[{"containerPort":80}]},{"name":"sidecar","image":"side:1"}]}}}})"));
}

TEST_F(PatchSchemasTest, DecodingLooksThroughInlineMembers) {
  json::object pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{
      "containers":[{"name":"c","image":"i"}],
      "volumes":[{"name":"v","configMap":{"name":"cm"},"volumeSource":{},"nope":1}]}})").as_object();
  auto unknown = conform(catalog, catalog.kind("", "v1", "Pod"), pod);
  EXPECT_EQ(unknown, (std::vector<std::string>{"spec.volumes[0].volumeSource", "spec.volumes[0].nope"}));
  EXPECT_TRUE(pod["spec"].as_object()["volumes"].as_array()[0].as_object().contains("configMap"));
}

}  // namespace
}  // namespace kapi::schema::patch_schema_test

#include "server/schema/catalog.h"

#include <gtest/gtest.h>

namespace kapi::schema::catalog_test {
namespace {

TEST(CatalogTest, FindsKindsByGroupVersion) {
  Catalog catalog = Catalog::builtin();
  const auto* configmap = catalog.kind("", "v1", "ConfigMap");
  ASSERT_NE(configmap, nullptr);
  EXPECT_EQ(configmap->full_name(), "k8s.io.api.core.v1.ConfigMap");
  EXPECT_EQ(Catalog::openapi_name(configmap), "io.k8s.api.core.v1.ConfigMap");
  ASSERT_NE(catalog.kind("coordination.k8s.io", "v1", "Lease"), nullptr);
  EXPECT_EQ(catalog.kind("", "v1", "Nope"), nullptr);
  EXPECT_EQ(Catalog::package_of("apps", "v1"), "k8s.io.api.apps.v1");
}

TEST(CatalogTest, KeepsKubernetesFieldNumbers) {
  Catalog catalog = Catalog::builtin();
  const auto* meta = catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->FindFieldByName("name")->number(), 1);
  EXPECT_EQ(meta->FindFieldByName("creationTimestamp")->number(), 8);
  EXPECT_EQ(meta->FindFieldByName("managedFields")->number(), 17);
  EXPECT_EQ(catalog.kind("", "v1", "Secret")->FindFieldByName("stringData")->number(), 4);
}

TEST(CatalogTest, CommentsGiveDescriptionsAndMarkers) {
  Catalog catalog = Catalog::builtin();
  const auto* meta = catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  const Markers& owners = catalog.markers(meta->FindFieldByName("ownerReferences"));
  EXPECT_EQ(owners.patch_strategy, "merge");
  EXPECT_EQ(owners.patch_merge_key, "uid");
  EXPECT_EQ(owners.list_type, "map");
  EXPECT_EQ(owners.list_map_keys, std::vector<std::string>{"uid"});
  EXPECT_EQ(owners.description, "The objects this one depends on; garbage collection removes it when they are gone.");
  EXPECT_EQ(catalog.markers(meta->FindFieldByName("name")).description.substr(0, 9), "Unique wi");
  const auto* secret = catalog.kind("", "v1", "Secret");
  EXPECT_EQ(catalog.markers(secret->FindFieldByName("type")).default_json, "\"Opaque\"");
  EXPECT_EQ(catalog.markers(secret).description.substr(0, 11), "Secret data");
  EXPECT_TRUE(catalog.markers(catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference")
                                  ->FindFieldByName("uid")).required);
}

TEST(CatalogTest, RecognisesTypesWithTheirOwnJsonForm) {
  Catalog catalog = Catalog::builtin();
  EXPECT_EQ(Catalog::special(catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.Time")), Special::kTime);
  EXPECT_EQ(Catalog::special(catalog.message("k8s.io.apimachinery.pkg.util.intstr.IntOrString")), Special::kIntOrString);
  EXPECT_EQ(Catalog::special(catalog.message("k8s.io.apimachinery.pkg.api.resource.Quantity")), Special::kQuantity);
  EXPECT_EQ(Catalog::special(catalog.message("k8s.io.apimachinery.pkg.runtime.RawExtension")), Special::kRawExtension);
  EXPECT_EQ(Catalog::special(catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta")), Special::kNone);
}

}  // namespace
}  // namespace kapi::schema::catalog_test

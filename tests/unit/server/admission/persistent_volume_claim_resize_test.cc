// PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): growing a claim needs it
// bound and its StorageClass to allow expansion; shrinking or keeping the size is not this plugin's business.
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_persistent_volume_claim_resize(const PluginContext& context);

namespace persistent_volume_claim_resize_test {
namespace {

using testing::json::object;

class PersistentVolumeClaimResizeTest : public testing::PluginFixture {
 protected:
  PersistentVolumeClaimResizeTest() : classes_(serve("storage.k8s.io", "storageclasses", "StorageClass", false)) {
    put(classes_, "", object{{"metadata", object{{"name", "growing"}}}, {"provisioner", "p"},
                             {"allowVolumeExpansion", true}});
    put(classes_, "", object{{"metadata", object{{"name", "fixed"}}}, {"provisioner", "p"}});
  }
  static object claim(std::string size, std::string storage_class, std::string phase = "Bound") {
    return object{{"metadata", object{{"name", "c"}, {"namespace", "ns"}}},
                  {"spec", object{{"storageClassName", storage_class},
                                  {"resources", object{{"requests", object{{"storage", size}}}}}}},
                  {"status", object{{"phase", phase}}}};
  }
  Attributes update(object& claim, const object& old) {
    return attributes(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &claim, &old);
  }

  registry::Store& classes_;
};

TEST_F(PersistentVolumeClaimResizeTest, GrowingNeedsAClassThatAllowsExpansion) {
  auto plugin = make_persistent_volume_claim_resize(context());
  object old = claim("1Gi", "growing");
  object grown = claim("2Gi", "growing");
  Attributes allowed = update(grown, old);
  EXPECT_NO_THROW(admit(*plugin, allowed));

  object fixed_old = claim("1Gi", "fixed");
  object fixed_grown = claim("2Gi", "fixed");
  Attributes refused = update(fixed_grown, fixed_old);
  const apierrors::Status status = refusal(*plugin, refused);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.message,
            "persistentvolumeclaims \"c\" is forbidden: only dynamically provisioned pvc can be resized and the "
            "storageclass that provisions the pvc must support resize");

  object missing_old = claim("1Gi", "nowhere");
  object missing_grown = claim("2Gi", "nowhere");
  Attributes missing = update(missing_grown, missing_old);
  EXPECT_EQ(refusal(*plugin, missing).code, 403);
}

TEST_F(PersistentVolumeClaimResizeTest, OnlyBoundClaimsGrow) {
  auto plugin = make_persistent_volume_claim_resize(context());
  object old = claim("1Gi", "growing", "Pending");
  object grown = claim("2Gi", "growing", "Pending");
  Attributes request = update(grown, old);
  EXPECT_EQ(refusal(*plugin, request).message,
            "persistentvolumeclaims \"c\" is forbidden: Only bound persistent volume claims can be expanded");
}

TEST_F(PersistentVolumeClaimResizeTest, KeepingOrShrinkingTheSizeIsLetThrough) {
  auto plugin = make_persistent_volume_claim_resize(context());
  object old = claim("1Gi", "fixed");
  object same = claim("1024Mi", "fixed");
  Attributes unchanged = update(same, old);
  EXPECT_NO_THROW(admit(*plugin, unchanged));
  object smaller = claim("512Mi", "fixed");
  Attributes shrunk = update(smaller, old);
  EXPECT_NO_THROW(admit(*plugin, shrunk));
}

}  // namespace
}  // namespace persistent_volume_claim_resize_test
}  // namespace kapi::admission

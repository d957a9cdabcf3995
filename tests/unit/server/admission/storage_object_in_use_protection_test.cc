// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection): the protection
// finalizers on claim and volume creates, once.
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_storage_object_in_use_protection(const PluginContext& context);

namespace storage_object_in_use_protection_test {
namespace {

using testing::json::array;
using testing::json::object;

class StorageObjectInUseProtectionTest : public testing::PluginFixture {};

TEST_F(StorageObjectInUseProtectionTest, ClaimsAndVolumesGetTheirFinalizer) {
  auto plugin = make_storage_object_in_use_protection(context());
  object claim{{"metadata", object{{"name", "c"}, {"finalizers", array{"example.com/keep"}}}}};
  Attributes create = attributes(Operation::Create, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &claim);
  admit(*plugin, create);
  EXPECT_EQ(claim["metadata"].at("finalizers"), (array{"example.com/keep", "kubernetes.io/pvc-protection"}));
  admit(*plugin, create);  // already there: not added twice
  EXPECT_EQ(claim["metadata"].at("finalizers").as_array().size(), 2u);

  object volume{{"metadata", object{{"name", "v"}}}};
  Attributes volume_create = attributes(Operation::Create, "", "persistentvolumes", "PersistentVolume", "", &volume);
  admit(*plugin, volume_create);
  EXPECT_EQ(volume["metadata"].at("finalizers"), (array{"kubernetes.io/pv-protection"}));
}

TEST_F(StorageObjectInUseProtectionTest, UpdatesAndOtherResourcesAreNotHandled) {
  auto plugin = make_storage_object_in_use_protection(context());
  object claim{{"metadata", object{{"name", "c"}}}};
  object old = claim;
  EXPECT_FALSE(plugin->handles(
      attributes(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &claim, &old)));
  EXPECT_FALSE(plugin->handles(attributes(Operation::Create, "", "pods", "Pod", "ns", &claim)));
}

}  // namespace
}  // namespace storage_object_in_use_protection_test
}  // namespace kapi::admission

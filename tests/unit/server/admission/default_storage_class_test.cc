// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): claims without a class get the
// default StorageClass, the newest when several are marked; claims that name one (even "") keep theirs.
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_default_storage_class(const PluginContext& context);

namespace default_storage_class_test {
namespace {

using testing::json::object;

class DefaultStorageClassTest : public testing::PluginFixture {
 protected:
  DefaultStorageClassTest() : classes_(serve("storage.k8s.io", "storageclasses", "StorageClass", false)) {}

  void storage_class(std::string name, std::string created, object annotations = {}) {
    put_as_is(classes_, "", object{{"metadata", object{{"name", name}, {"creationTimestamp", created},
                                                 {"annotations", std::move(annotations)}}},
                             {"provisioner", "example.com/disk"}});
  }
  static object claim(object spec = {}, object annotations = {}) {
    object metadata{{"name", "c"}, {"namespace", "ns"}};
    if (!annotations.empty()) metadata["annotations"] = std::move(annotations);
    return object{{"metadata", std::move(metadata)}, {"spec", std::move(spec)}};
  }
  std::string admitted_class(object c) {
    auto plugin = make_default_storage_class(context());
    Attributes request = attributes(Operation::Create, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &c);
    admit(*plugin, request);
    const auto* name = c["spec"].as_object().if_contains("storageClassName");
    return name ? std::string(name->as_string()) : "<unset>";
  }

  registry::Store& classes_;
};

TEST_F(DefaultStorageClassTest, AClaimWithoutAClassGetsTheDefault) {
  storage_class("slow", "2026-01-01T00:00:00Z");
  storage_class("fast", "2026-01-01T00:00:00Z", object{{"storageclass.kubernetes.io/is-default-class", "true"}});
  EXPECT_EQ(admitted_class(claim()), "fast");
}

TEST_F(DefaultStorageClassTest, NoDefaultLeavesTheClaimAlone) {
  storage_class("slow", "2026-01-01T00:00:00Z", object{{"storageclass.kubernetes.io/is-default-class", "false"}});
  EXPECT_EQ(admitted_class(claim()), "<unset>");
}

TEST_F(DefaultStorageClassTest, TheNewestDefaultWinsThenTheFirstByName) {
  storage_class("a-old", "2026-01-01T00:00:00Z", object{{"storageclass.kubernetes.io/is-default-class", "true"}});
  storage_class("newer-b", "2026-02-01T00:00:00Z", object{{"storageclass.kubernetes.io/is-default-class", "true"}});
  storage_class("newer-a", "2026-02-01T00:00:00Z",
                object{{"storageclass.beta.kubernetes.io/is-default-class", "true"}});
  EXPECT_EQ(admitted_class(claim()), "newer-a");
}

TEST_F(DefaultStorageClassTest, AClassAskedForIsKept) {
  storage_class("fast", "2026-01-01T00:00:00Z", object{{"storageclass.kubernetes.io/is-default-class", "true"}});
  EXPECT_EQ(admitted_class(claim(object{{"storageClassName", ""}})), "");
  EXPECT_EQ(admitted_class(claim(object{{"storageClassName", "slow"}})), "slow");
  EXPECT_EQ(admitted_class(claim({}, object{{"volume.beta.kubernetes.io/storage-class", ""}})), "<unset>");
}

TEST_F(DefaultStorageClassTest, OnlyClaimCreatesAreHandled) {
  auto plugin = make_default_storage_class(context());
  object c = claim();
  object old = c;
  Attributes update =
      attributes(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &c, &old);
  EXPECT_FALSE(plugin->handles(update));
  Attributes status = attributes(Operation::Create, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &c);
  status.subresource = "status";
  EXPECT_FALSE(plugin->handles(status));
}

}  // namespace
}  // namespace default_storage_class_test
}  // namespace kapi::admission

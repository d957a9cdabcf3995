// LimitRanger (plugin/pkg/admission/limitranger): defaults from Container items, min/max/maxLimitRequestRatio for
// Container, Pod and PersistentVolumeClaim items, kube's messages and their aggregation, the pod annotation.
#include "base/quantity.h"
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_limit_ranger(const PluginContext& context);

namespace limit_ranger_test {
namespace {

using testing::json::object;
using testing::json::array;

class LimitRangerTest : public testing::PluginFixture {
 protected:
  LimitRangerTest() : ranges_(serve("", "limitranges", "LimitRange", true)) {}

  void range(std::string name, array limits) {
    put(ranges_, "ns", object{{"metadata", object{{"name", name}, {"namespace", "ns"}}},
                              {"spec", object{{"limits", std::move(limits)}}}});
  }

  static object container(std::string name, object requests = {}, object limits = {}) {
    object resources;
    if (!requests.empty()) resources["requests"] = std::move(requests);
    if (!limits.empty()) resources["limits"] = std::move(limits);
    return object{{"name", name}, {"image", "busybox"}, {"resources", std::move(resources)}};
  }
  static object pod(array containers, array init_containers = {}) {
    object spec{{"containers", std::move(containers)}};
    if (!init_containers.empty()) spec["initContainers"] = std::move(init_containers);
    return object{{"metadata", object{{"name", "p"}, {"namespace", "ns"}}}, {"spec", std::move(spec)}};
  }
  Attributes create_pod(object& pod) {
    return attributes(Operation::Create, "", "pods", "Pod", "ns", &pod);
  }

  registry::Store& ranges_;
};

TEST_F(LimitRangerTest, ContainersGetTheDefaultsTheyLackAndThePodSaysWhich) {
  range("defaults", array{object{{"type", "Container"},
                                  {"default", object{{"cpu", "0.5"}, {"memory", "1024Mi"}}},
                                  {"defaultRequest", object{{"cpu", "100m"}, {"memory", "256Mi"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app", object{{"cpu", "200m"}}), container("side")},
                 array{container("init", {}, object{{"memory", "2Gi"}})});
  Attributes request = create_pod(p);
  admit(*plugin, request);
  const auto& containers = p["spec"].as_object()["containers"].as_array();
  // Defaults are written as kube writes quantities: canonically.
  EXPECT_EQ(containers[0].at("resources").at("requests"), (object{{"cpu", "200m"}, {"memory", "256Mi"}}));
  EXPECT_EQ(containers[0].at("resources").at("limits"), (object{{"cpu", "500m"}, {"memory", "1Gi"}}));
  EXPECT_EQ(containers[1].at("resources").at("requests"), (object{{"cpu", "100m"}, {"memory", "256Mi"}}));
  const auto& init = p["spec"].as_object()["initContainers"].as_array()[0];
  // Written as kube writes a Go map: keys in order.
  EXPECT_EQ(boost::json::serialize(init.at("resources").at("limits")), R"({"cpu":"500m","memory":"2Gi"})");
  EXPECT_EQ(p["metadata"].at("annotations").at("kubernetes.io/limit-ranger"),
            "LimitRanger plugin set: memory request for container app; cpu, memory limit for container app; "
            "cpu, memory request for container side; cpu, memory limit for container side; "
            "cpu, memory request for init container init; cpu limit for init container init");
}

TEST_F(LimitRangerTest, NothingToDefaultLeavesThePodAlone) {
  range("bounds", array{object{{"type", "Container"}, {"max", object{{"cpu", "2"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app", object{{"cpu", "1"}}, object{{"cpu", "1"}})});
  const object before = p;
  Attributes request = create_pod(p);
  admit(*plugin, request);
  EXPECT_EQ(p, before);
}

TEST_F(LimitRangerTest, ContainerMinMaxAndRatioUseKubesMessages) {
  range("bounds", array{object{{"type", "Container"},
                               {"min", object{{"cpu", "100m"}}},
                               {"max", object{{"memory", "1Gi"}}},
                               {"maxLimitRequestRatio", object{{"cpu", "2"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app", object{{"cpu", "50m"}, {"memory", "512Mi"}},
                                 object{{"cpu", "0.5"}, {"memory", "2048Mi"}})});
  Attributes request = create_pod(p);
  const apierrors::Status status = refusal(*plugin, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.reason, "Forbidden");
  EXPECT_EQ(status.message,
            "pods \"p\" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, "
            "maximum memory usage per Container is 1Gi, but limit is 2Gi, "
            "cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000]");
}

TEST_F(LimitRangerTest, OneErrorIsNotBracketedAndMissingValuesAreNamed) {
  range("bounds", array{object{{"type", "Container"}, {"max", object{{"cpu", "1"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app")});
  Attributes request = create_pod(p);
  EXPECT_EQ(refusal(*plugin, request).message,
            "pods \"p\" is forbidden: maximum cpu usage per Container is 1.  No limit is specified");
  // Two containers failing alike give one message, as kube's aggregate drops repeats.
  object two = pod(array{container("a"), container("b")});
  Attributes both = create_pod(two);
  EXPECT_EQ(refusal(*plugin, both).message,
            "pods \"p\" is forbidden: maximum cpu usage per Container is 1.  No limit is specified");
}

TEST_F(LimitRangerTest, QuantitiesSentAsNumbersCountToo) {
  range("bounds", array{object{{"type", "Container"}, {"max", object{{"cpu", "1"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app", {}, object{{"cpu", 2}})});
  Attributes request = create_pod(p);
  EXPECT_EQ(refusal(*plugin, request).message,
            "pods \"p\" is forbidden: maximum cpu usage per Container is 1, but limit is 2");
}

TEST_F(LimitRangerTest, PodItemsBoundTheSumOfContainersAndTheLargestInitContainer) {
  range("pod", array{object{{"type", "Pod"}, {"max", object{{"cpu", "2"}}}, {"min", object{{"memory", "1Gi"}}}}});
  auto plugin = make_limit_ranger(context());
  object fits = pod(array{container("a", object{{"cpu", "1"}, {"memory", "512Mi"}}, object{{"cpu", "1"}}),
                          container("b", object{{"cpu", "1"}, {"memory", "512Mi"}}, object{{"cpu", "1"}})});
  Attributes fitting = create_pod(fits);
  EXPECT_NO_THROW(admit(*plugin, fitting));
  object over = pod(array{container("a", object{{"cpu", "1"}, {"memory", "1Gi"}}, object{{"cpu", "1"}})},
                    array{container("init", object{{"cpu", "3"}, {"memory", "1Gi"}}, object{{"cpu", "3"}})});
  Attributes too_much = create_pod(over);
  EXPECT_EQ(refusal(*plugin, too_much).message,
            "pods \"p\" is forbidden: maximum cpu usage per Pod is 2, but limit is 3");
}

TEST_F(LimitRangerTest, ClaimsAreHeldToStorageMinAndMaxOnCreateAndUpdate) {
  range("storage", array{object{{"type", "PersistentVolumeClaim"},
                                {"min", object{{"storage", "1Gi"}}},
                                {"max", object{{"storage", "10Gi"}}}}});
  auto plugin = make_limit_ranger(context());
  auto claim = [](std::string size) {
    return object{{"metadata", object{{"name", "c"}, {"namespace", "ns"}}},
                  {"spec", object{{"resources", object{{"requests", object{{"storage", size}}}}}}}};
  };
  object small = claim("500Mi");
  Attributes create = attributes(Operation::Create, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &small);
  EXPECT_EQ(refusal(*plugin, create).message,
            "persistentvolumeclaims \"c\" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but "
            "request is 500Mi");
  object old = claim("5Gi");
  object big = claim("20Gi");
  Attributes update =
      attributes(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &big, &old);
  EXPECT_EQ(refusal(*plugin, update).message,
            "persistentvolumeclaims \"c\" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but "
            "request is 20Gi");
  // A claim being deleted is let be.
  old["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_NO_THROW(admit(*plugin, update));
}

TEST_F(LimitRangerTest, PodUpdatesAndSubresourcesAreNotLookedAt) {
  range("bounds", array{object{{"type", "Container"}, {"max", object{{"cpu", "1"}}}}});
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app")});
  object old = p;
  Attributes update = attributes(Operation::Update, "", "pods", "Pod", "ns", &p, &old);
  EXPECT_FALSE(plugin->handles(update));
  Attributes status = create_pod(p);
  status.subresource = "status";
  EXPECT_FALSE(plugin->handles(status));
}

TEST_F(LimitRangerTest, ANamespaceWithoutRangesLetsEverythingThrough) {
  auto plugin = make_limit_ranger(context());
  object p = pod(array{container("app")});
  const object before = p;
  Attributes request = create_pod(p);
  EXPECT_NO_THROW(admit(*plugin, request));
  EXPECT_EQ(p, before);
}

TEST(ResourceQuantityTest, CanonicalFormsAreKubes) {
  const auto canonical = [](std::string_view text) { return parse_resource_quantity(text)->to_string(); };
  EXPECT_EQ(canonical("0.5"), "500m");
  EXPECT_EQ(canonical("1024Mi"), "1Gi");
  EXPECT_EQ(canonical("1500Mi"), "1500Mi");
  EXPECT_EQ(canonical("0.5Gi"), "512Mi");
  EXPECT_EQ(canonical("100Ki"), "100Ki");
  EXPECT_EQ(canonical("512"), "512");
  EXPECT_EQ(canonical("1000"), "1k");
  EXPECT_EQ(canonical("1e3"), "1e3");
  EXPECT_EQ(canonical("1500m"), "1500m");
  EXPECT_EQ(canonical("0"), "0");
  EXPECT_EQ(canonical("2000000"), "2M");
  EXPECT_EQ(parse_resource_quantity("1m")->milli_value(), 1);
  EXPECT_EQ(parse_resource_quantity("1500m")->value(), 2);
}

}  // namespace
}  // namespace limit_ranger_test
}  // namespace kapi::admission

// RuntimeClass admission as kube's plugin/pkg/admission/runtimeclass/admission_test.go exercises it: overhead,
// scheduling (nodeSelector and tolerations) and the refusals.
#include "tests/unit/server/admission/plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_runtime_class(const PluginContext& context);

namespace runtime_class_test {
namespace {

namespace json = boost::json;

class RuntimeClassAdmission : public fixture::PluginFixture {
 protected:
  RuntimeClassAdmission() : plugin_(make_runtime_class(context())) {
    put("node.k8s.io", "runtimeclasses", "",
        R"({"metadata":{"name":"kata"},"handler":"kata","overhead":{"podFixed":{"cpu":"100m","memory":"64Mi"}},
            "scheduling":{"nodeSelector":{"sandbox":"kata"},
                          "tolerations":[{"key":"sandbox","operator":"Exists","effect":"NoSchedule"}]}})");
    put("node.k8s.io", "runtimeclasses", "", R"({"metadata":{"name":"plain"},"handler":"runc"})");
  }
  std::optional<apierrors::Status> create(json::object& pod) {
    Attributes attributes = pod_create(pod);
    return admit(*plugin_, attributes);
  }
  std::string refusal(std::string_view spec) {
    json::object p = pod(spec);
    auto refused = create(p);
    return refused ? std::to_string(refused->code) + " " + refused->message : "";
  }
  static json::object pod(std::string_view spec) {
    return json::parse(R"({"metadata":{"name":"p"},"spec":)" + std::string(spec) + "}").as_object();
  }

  std::unique_ptr<Plugin> plugin_;
};

TEST_F(RuntimeClassAdmission, APodTakesTheClassesOverheadAndScheduling) {
  json::object p = pod(R"({"runtimeClassName":"kata","nodeSelector":{"zone":"a"},
      "tolerations":[{"key":"other","operator":"Exists"}],"containers":[]})");
  ASSERT_EQ(create(p), std::nullopt);
  const json::object& spec = p["spec"].as_object();
  EXPECT_EQ(spec.at("overhead"), json::parse(R"({"cpu":"100m","memory":"64Mi"})"));
  EXPECT_EQ(spec.at("nodeSelector"), json::parse(R"({"zone":"a","sandbox":"kata"})"));
  EXPECT_EQ(spec.at("tolerations"), json::parse(R"([{"key":"other","operator":"Exists"},
                                                    {"key":"sandbox","operator":"Exists","effect":"NoSchedule"}])"));
}

TEST_F(RuntimeClassAdmission, AStatedOverheadMustBeTheClasses) {
  EXPECT_EQ(refusal(R"({"runtimeClassName":"kata","overhead":{"cpu":"0.1","memory":"64Mi"},"containers":[]})"), "")
      << "quantities compare by value";
  EXPECT_EQ(refusal(R"({"runtimeClassName":"kata","overhead":{"cpu":"1"},"containers":[]})"),
            "403 pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  EXPECT_EQ(refusal(R"({"runtimeClassName":"plain","overhead":{"cpu":"1"},"containers":[]})"),
            "403 pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
            "Overhead");
  EXPECT_EQ(refusal(R"({"overhead":{"cpu":"1"},"containers":[]})"),
            "403 pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
            "Overhead");
}

TEST_F(RuntimeClassAdmission, AConflictingNodeSelectorOrAMissingClassIsForbidden) {
  EXPECT_EQ(refusal(R"({"runtimeClassName":"kata","nodeSelector":{"sandbox":"gvisor"},"containers":[]})"),
            "403 pods \"p\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; "
            "pod.spec.nodeSelector[sandbox] = gvisor");
  EXPECT_EQ(refusal(R"({"runtimeClassName":"nope","containers":[]})"),
            "403 pods \"p\" is forbidden: pod rejected: RuntimeClass \"nope\" not found");
}

TEST_F(RuntimeClassAdmission, TolerationsCoveredByAWiderOneAreMergedAway) {
  put("node.k8s.io", "runtimeclasses", "",
      R"({"metadata":{"name":"wide"},"handler":"h","scheduling":{"tolerations":[{"operator":"Exists"}]}})");
  json::object p = pod(R"({"runtimeClassName":"wide","tolerations":[{"key":"a","operator":"Equal","value":"b"},
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"containers":[]})");
  ASSERT_EQ(create(p), std::nullopt);
  EXPECT_EQ(p["spec"].as_object().at("tolerations"), json::parse(R"([{"operator":"Exists"}])"));
  EXPECT_FALSE(p["spec"].as_object().contains("nodeSelector"));
}

TEST_F(RuntimeClassAdmission, APodWithoutAClassIsLeftAlone) {
  json::object p = pod(R"({"containers":[]})");
  const json::object before = p;
  ASSERT_EQ(create(p), std::nullopt);
  EXPECT_EQ(p, before);
}

}  // namespace
}  // namespace runtime_class_test
}  // namespace kapi::admission

// DefaultTolerationSeconds as kube's plugin/pkg/admission/defaulttolerationseconds/admission_test.go exercises it.
#include "tests/unit/server/admission/plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_default_toleration_seconds(const PluginContext& context);

namespace default_toleration_seconds_test {
namespace {

namespace json = boost::json;

class DefaultTolerationSecondsAdmission : public fixture::PluginFixture {
 protected:
  json::value tolerations_after(std::string_view tolerations, std::int64_t not_ready = 300,
                                std::int64_t unreachable = 300) {
    PluginContext with_flags = context();
    with_flags.default_not_ready_toleration_seconds = not_ready;
    with_flags.default_unreachable_toleration_seconds = unreachable;
    auto plugin = make_default_toleration_seconds(with_flags);
    json::object pod = json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[]}})").as_object();
    if (!tolerations.empty()) pod["spec"].as_object()["tolerations"] = json::parse(tolerations);
    Attributes attributes = pod_create(pod);
    EXPECT_EQ(admit(*plugin, attributes), std::nullopt);
    return pod["spec"].as_object()["tolerations"];
  }
};

TEST_F(DefaultTolerationSecondsAdmission, APodToleratesNotReadyAndUnreachableForTheFlagsSeconds) {
  EXPECT_EQ(tolerations_after(""), json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])"));
  EXPECT_EQ(tolerations_after("", 60, 120), json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":120}])"));
}

TEST_F(DefaultTolerationSecondsAdmission, ATolerationThePodHasAlreadyIsNotAdded) {
  const std::string own = R"({"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":5})";
  EXPECT_EQ(tolerations_after("[" + own + "]"), json::parse("[" + own + R"(,
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])"));
  // An empty key tolerates every taint, an empty effect every effect.
  EXPECT_EQ(tolerations_after(R"([{"operator":"Exists"}])"), json::parse(R"([{"operator":"Exists"}])"));
  EXPECT_EQ(tolerations_after(R"([{"operator":"Exists","effect":"NoExecute"}])"),
            json::parse(R"([{"operator":"Exists","effect":"NoExecute"}])"));
  // A NoSchedule toleration does not cover NoExecute.
  EXPECT_EQ(tolerations_after(R"([{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoSchedule"}])")
                .as_array()
                .size(),
            3u);
}

TEST_F(DefaultTolerationSecondsAdmission, PodsCreatedAndUpdatedButNotTheirSubresources) {
  auto plugin = make_default_toleration_seconds(context());
  json::object pod;
  EXPECT_TRUE(plugin->handles(request(Operation::Update, "", "pods", "Pod", "ns", &pod)));
  EXPECT_FALSE(plugin->handles(request(Operation::Update, "", "pods", "Pod", "ns", &pod, "status")));
  EXPECT_FALSE(plugin->handles(request(Operation::Create, "", "nodes", "Node", "", &pod)));
}

}  // namespace
}  // namespace default_toleration_seconds_test
}  // namespace kapi::admission

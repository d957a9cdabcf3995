// TaintNodesByCondition as kube's plugin/pkg/admission/nodetaint/admission_test.go exercises it.
#include "tests/unit/server/admission/plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_taint_nodes_by_condition(const PluginContext& context);

namespace taint_nodes_by_condition_test {
namespace {

namespace json = boost::json;

class TaintNodesByConditionAdmission : public fixture::PluginFixture {
 protected:
  json::value taints_after(std::string_view spec) {
    auto plugin = make_taint_nodes_by_condition(context());
    json::object node = json::parse(R"({"metadata":{"name":"n1"},"spec":)" + std::string(spec) + "}").as_object();
    Attributes attributes = request(Operation::Create, "", "nodes", "Node", "", &node);
    EXPECT_EQ(admit(*plugin, attributes), std::nullopt);
    return node["spec"].as_object()["taints"];
  }
};

TEST_F(TaintNodesByConditionAdmission, ANewNodeIsTaintedNotReady) {
  EXPECT_EQ(taints_after("{}"), json::parse(R"([{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
  EXPECT_EQ(taints_after(R"({"taints":[{"key":"gpu","value":"yes","effect":"NoSchedule"}]})"),
            json::parse(R"([{"key":"gpu","value":"yes","effect":"NoSchedule"},
                            {"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
}

TEST_F(TaintNodesByConditionAdmission, ANodeAlreadyTaintedKeepsItsTaint) {
  EXPECT_EQ(taints_after(R"({"taints":[{"key":"node.kubernetes.io/not-ready","value":"x","effect":"NoSchedule"}]})"),
            json::parse(R"([{"key":"node.kubernetes.io/not-ready","value":"x","effect":"NoSchedule"}])"));
  EXPECT_EQ(taints_after(R"({"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}]})").as_array().size(), 2u)
      << "another effect is another taint";
}

TEST_F(TaintNodesByConditionAdmission, OnlyNodeCreates) {
  auto plugin = make_taint_nodes_by_condition(context());
  json::object node;
  EXPECT_FALSE(plugin->handles(request(Operation::Update, "", "nodes", "Node", "", &node)));
  EXPECT_FALSE(plugin->handles(request(Operation::Create, "", "pods", "Pod", "ns", &node)));
  EXPECT_TRUE(plugin->handles(request(Operation::Create, "", "nodes", "Node", "", &node)));
}

}  // namespace
}  // namespace taint_nodes_by_condition_test
}  // namespace kapi::admission

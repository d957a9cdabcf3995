// Priority admission as kube's plugin/pkg/admission/priority/admission_test.go exercises it: a pod's priority and
// preemption policy from its PriorityClass, the global default or the built-in default; refusals of a missing
// class and of a stated priority the class does not give; one global default only.
#include "tests/unit/server/admission/plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_priority(const PluginContext& context);

namespace priority_test {
namespace {

namespace json = boost::json;

class PriorityAdmission : public fixture::PluginFixture {
 protected:
  PriorityAdmission() : plugin_(make_priority(context())) {
    put("scheduling.k8s.io", "priorityclasses", "",
        R"({"metadata":{"name":"system-node-critical"},"value":2000001000,"preemptionPolicy":"PreemptLowerPriority"})");
    put("scheduling.k8s.io", "priorityclasses", "", R"({"metadata":{"name":"batch"},"value":10,"preemptionPolicy":"Never"})");
  }
  void add_class(std::string_view json_text) { put("scheduling.k8s.io", "priorityclasses", "", json_text); }
  std::optional<apierrors::Status> create(json::object& pod) {
    Attributes attributes = pod_create(pod);
    return admit(*plugin_, attributes);
  }
  std::optional<apierrors::Status> create_class(json::object& priority_class) {
    Attributes attributes = request(Operation::Create, "scheduling.k8s.io", "priorityclasses", "PriorityClass", "",
                                    &priority_class);
    return admit(*plugin_, attributes);
  }

  std::unique_ptr<Plugin> plugin_;
};

json::object pod(std::string_view spec) {
  return json::parse(R"({"metadata":{"name":"p"},"spec":)" + std::string(spec) + "}").as_object();
}
const json::object& spec_of(const json::object& pod) { return pod.at("spec").as_object(); }

TEST_F(PriorityAdmission, APodTakesItsClassesValueAndPreemptionPolicy) {
  json::object p = pod(R"({"priorityClassName":"system-node-critical","containers":[]})");
  ASSERT_EQ(create(p), std::nullopt);
  EXPECT_EQ(spec_of(p).at("priority"), 2000001000);
  EXPECT_EQ(spec_of(p).at("preemptionPolicy"), "PreemptLowerPriority");
  json::object never = pod(R"({"priorityClassName":"batch","priority":10,"containers":[]})");
  ASSERT_EQ(create(never), std::nullopt);
  EXPECT_EQ(spec_of(never).at("preemptionPolicy"), "Never");
}

TEST_F(PriorityAdmission, WithoutAClassNameAPodGetsZeroOrTheGlobalDefault) {
  json::object p = pod(R"({"containers":[]})");
  ASSERT_EQ(create(p), std::nullopt);
  EXPECT_EQ(spec_of(p).at("priority"), 0);
  EXPECT_EQ(spec_of(p).at("preemptionPolicy"), "PreemptLowerPriority");
  EXPECT_FALSE(spec_of(p).contains("priorityClassName"));

  add_class(R"({"metadata":{"name":"high-default"},"value":500,"globalDefault":true,"preemptionPolicy":"Never"})");
  add_class(R"({"metadata":{"name":"low-default"},"value":100,"globalDefault":true,"preemptionPolicy":"Never"})");
  json::object defaulted = pod(R"({"containers":[]})");
  ASSERT_EQ(create(defaulted), std::nullopt);
  EXPECT_EQ(spec_of(defaulted).at("priorityClassName"), "low-default") << "of two defaults, the lowest value";
  EXPECT_EQ(spec_of(defaulted).at("priority"), 100);
  EXPECT_EQ(spec_of(defaulted).at("preemptionPolicy"), "Never");
}

TEST_F(PriorityAdmission, AMissingClassOrAStatedValueTheClassDoesNotGiveIsForbidden) {
  json::object missing = pod(R"({"priorityClassName":"nope","containers":[]})");
  auto refused = create(missing);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->message, "pods \"p\" is forbidden: no PriorityClass with name nope was found");

  json::object stated = pod(R"({"priorityClassName":"batch","priority":5,"containers":[]})");
  EXPECT_EQ(create(stated)->message,
            "pods \"p\" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority "
            "admission controller computed 10 from the given PriorityClass name");
  json::object policy = pod(R"({"priorityClassName":"batch","preemptionPolicy":"PreemptLowerPriority","containers":[]})");
  EXPECT_EQ(create(policy)->message,
            "pods \"p\" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided "
            "in pod spec; priority admission controller computed Never from the given PriorityClass name");
}

TEST_F(PriorityAdmission, AnUpdateKeepsThePriorityCreateSet) {
  json::object old = pod(R"({"priorityClassName":"batch","priority":10,"preemptionPolicy":"Never","containers":[]})");
  json::object updated = pod(R"({"priorityClassName":"batch","containers":[]})");
  Attributes attributes = request(Operation::Update, "", "pods", "Pod", "ns", &updated);
  attributes.old_object = &old;
  ASSERT_EQ(admit(*plugin_, attributes), std::nullopt);
  EXPECT_EQ(spec_of(updated).at("priority"), 10);
  EXPECT_EQ(spec_of(updated).at("preemptionPolicy"), "Never");
}

TEST_F(PriorityAdmission, OnlyOnePriorityClassIsTheGlobalDefault) {
  json::object first = json::parse(R"({"metadata":{"name":"first"},"value":1,"globalDefault":true})").as_object();
  ASSERT_EQ(create_class(first), std::nullopt);
  add_class(R"({"metadata":{"name":"first"},"value":1,"globalDefault":true})");
  json::object second = json::parse(R"({"metadata":{"name":"second"},"value":2,"globalDefault":true})").as_object();
  auto refused = create_class(second);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->message, "priorityclasses.scheduling.k8s.io \"second\" is forbidden: PriorityClass first is "
                              "already marked as default. Only one default can exist");

  json::object same = first;
  json::object old = first;
  Attributes update = request(Operation::Update, "scheduling.k8s.io", "priorityclasses", "PriorityClass", "", &same);
  update.old_object = &old;
  EXPECT_EQ(admit(*plugin_, update), std::nullopt) << "the default itself may be updated";
}

}  // namespace
}  // namespace priority_test
}  // namespace kapi::admission

// policy/v1 PodDisruptionBudgets, scheduling.k8s.io/v1 PriorityClasses and node.k8s.io/v1 RuntimeClasses as kube's
// registries keep them: definitions, validation messages and printers.
#include "server/apis/node/node.h"
#include "server/apis/policy/policy.h"
#include "server/apis/scheduling/scheduling.h"
#include "server/apierrors/errors.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::policy_scheduling_node_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

TEST(PodDisruptionBudgetsTest, ServedAsKubeNamesThem) {
  ResourceStorage storage = poddisruptionbudgets();
  EXPECT_EQ(storage.definition.qualified_resource(), "poddisruptionbudgets.policy");
  EXPECT_EQ(storage.definition.short_names, (std::vector<std::string>{"pdb"}));
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"status"}));
  EXPECT_TRUE(storage.strategy->tracks_generation());
  json::object budget = parse(R"({"metadata":{"name":"b"},"spec":{"minAvailable":1},"status":{"disruptionsAllowed":3}})");
  storage.strategy->prepare_for_create(budget);
  EXPECT_EQ(budget["status"], parse(R"({"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0})"));
}

TEST(PodDisruptionBudgetsTest, ValidatesIntOrPercentBoundsAsKube) {
  ResourceStorage storage = poddisruptionbudgets();
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"spec":{"minAvailable":"100%","selector":{}}})"))), "");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"spec":{"maxUnavailable":"half"}})"))),
            "spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid percent "
            "string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for "
            "validation is '[0-9]+%')\n");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"spec":{"maxUnavailable":1,"unhealthyPodEvictionPolicy":"Never"}})"))),
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: \"AlwaysAllow\", "
            "\"IfHealthyBudget\"\n");
  json::object old = parse(R"({"spec":{"minAvailable":1},"status":{}})");
  EXPECT_EQ(messages(storage.strategy->validate_update(parse(R"({"spec":{"minAvailable":1},"status":{"expectedPods":-2}})"), old)),
            "status.expectedPods: Invalid value: -2: must be greater than or equal to 0\n");
}

TEST(PodDisruptionBudgetsTest, PrintsAsPrintPodDisruptionBudget) {
  ResourceStorage storage = poddisruptionbudgets();
  json::array cells =
      storage.strategy->table_cells(parse(R"({"metadata":{"name":"b"},"spec":{"maxUnavailable":"25%"},"status":{"disruptionsAllowed":2}})"));
  EXPECT_EQ(cells[1], "N/A");
  EXPECT_EQ(cells[2], "25%");
  EXPECT_EQ(cells[3], 2);
}

TEST(PriorityClassesTest, ReservesTheSystemPrefixAndBoundsUserValues) {
  ResourceStorage storage = priorityclasses();
  EXPECT_FALSE(storage.definition.namespaced);
  EXPECT_EQ(storage.definition.short_names, (std::vector<std::string>{"pc"}));
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"system-node-critical"},"value":2000001000})"))), "");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"system-node-critical"},"value":5})"))),
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
            "error: value of system-node-critical PriorityClass must be 2000001000\n");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"big"},"value":1000000001,"preemptionPolicy":"Sometimes"})"))),
            "value: Forbidden: maximum allowed value of a user defined priority is 1000000000\n"
            "preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\"\n");
  json::object old = parse(R"({"metadata":{"name":"p"},"value":1,"preemptionPolicy":"Never"})");
  EXPECT_EQ(messages(storage.strategy->validate_update(parse(R"({"metadata":{"name":"p"},"value":2,"preemptionPolicy":"Never"})"), old)),
            "value: Forbidden: may not be changed in an update.\n");
}

TEST(PriorityClassesTest, SystemClassesCannotBeDeleted) {
  ResourceStorage storage = priorityclasses();
  EXPECT_THROW(storage.strategy->mark_for_deletion(parse(R"({"metadata":{"name":"system-cluster-critical"}})"), std::nullopt),
               apierrors::ApiError);
  EXPECT_EQ(storage.strategy->mark_for_deletion(parse(R"({"metadata":{"name":"mine"}})"), std::nullopt), std::nullopt);
  json::array cells = storage.strategy->table_cells(
      parse(R"({"metadata":{"name":"p"},"value":7,"globalDefault":true,"preemptionPolicy":"Never"})"));
  EXPECT_EQ(cells[1], 7);
  EXPECT_EQ(cells[2], true);
  EXPECT_EQ(cells[4], "Never");
}

TEST(PriorityClassesTest, OnlyOneGlobalDefault) {
  auto defaults = std::make_shared<DefaultPriorityClasses>();
  ResourceStorage storage = priorityclasses(defaults);
  const request::UserInfo admin;
  json::object second = parse(R"({"metadata":{"name":"second"},"value":5,"globalDefault":true})");
  EXPECT_NO_THROW(storage.strategy->authorize_write(admin, second, nullptr));
  defaults->replace({{"first", 10}, {"lower", 1}});
  EXPECT_EQ(defaults->lowest(), "lower");
  try {
    storage.strategy->authorize_write(admin, second, nullptr);
    ADD_FAILURE() << "a second default was let in";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 403);
    EXPECT_EQ(error.status().message, "priorityclasses.scheduling.k8s.io \"second\" is forbidden: PriorityClass lower "
                                      "is already marked as default. Only one default can exist");
  }
  json::object lower = parse(R"({"metadata":{"name":"lower"},"value":1,"globalDefault":true})");
  EXPECT_NO_THROW(storage.strategy->authorize_write(admin, lower, &lower));
  defaults->set("lower", std::nullopt);
  defaults->set("first", std::nullopt);
  EXPECT_EQ(defaults->lowest(), std::nullopt);
}

TEST(RuntimeClassesTest, HandlerIsAnImmutableDnsLabel) {
  ResourceStorage storage = runtimeclasses();
  EXPECT_FALSE(storage.definition.namespaced);
  EXPECT_TRUE(storage.definition.short_names.empty());
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"r"},"handler":"runc"})"))), "");
  EXPECT_NE(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"r"},"handler":"Run_C"})")))
                .find("handler: Invalid value: \"Run_C\": a lowercase RFC 1123 label must consist of"),
            std::string::npos);
  EXPECT_EQ(messages(storage.strategy->validate_update(parse(R"({"handler":"kata"})"), parse(R"({"handler":"runc"})"))),
            "handler: Invalid value: \"kata\": field is immutable\n");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"handler":"runc","overhead":{"podFixed":{"cpu":"-1"}},
      "scheduling":{"tolerations":[{"key":"a","operator":"Exists"},{"key":"a","operator":"Exists"},{"operator":"Equal","value":"x"}]}})"))),
            "overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\n"
            "scheduling.tolerations[2].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, "
            "which means \"match all values and all keys\"\n"
            "scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:\"a\", Operator:\"Exists\", Value:\"\", "
            "Effect:\"\", TolerationSeconds:(*int64)(nil)}\n");
}

}  // namespace
}  // namespace kapi::apis::policy_scheduling_node_test

// The local APIServices autoregistration keeps: kube's priorities for built-in group versions, 1000/100 for a
// CRD's, nothing for a built-in group version kube registers none for; and the plan that makes the stored
// APIServices match, leaving alone the ones nobody manages automatically.
#include "server/aggregator/apiservice_model.h"
#include "server/aggregator/autoregistration.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::aggregator::autoregistration_test {
namespace {

namespace json = boost::json;

std::map<std::string, json::object> by_name(std::vector<json::object> objects) {
  std::map<std::string, json::object> out;
  for (auto& object : objects) out[std::string(object.at("metadata").at("name").as_string())] = std::move(object);
  return out;
}

TEST(AutoRegistrationTest, BuiltInGroupVersionsGetKubesPriorities) {
  auto core = local_apiservice({"", "v1", false});
  ASSERT_TRUE(core);
  EXPECT_EQ(json::serialize(*core),
            R"({"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.","labels":)"
            R"({"kube-aggregator.kubernetes.io/automanaged":"onstart"}},"spec":{"group":"","version":"v1",)"
            R"("groupPriorityMinimum":18000,"versionPriority":1}})");
  auto apps = parse_apiservice(*local_apiservice({"apps", "v1", false}));
  EXPECT_EQ(apps.name, "v1.apps");
  EXPECT_EQ(apps.group_priority, 17800);
  EXPECT_EQ(apps.version_priority, 15);
  EXPECT_FALSE(apps.service);
  auto flowcontrol = parse_apiservice(*local_apiservice({"flowcontrol.apiserver.k8s.io", "v1", false}));
  EXPECT_EQ(flowcontrol.version_priority, 21);
  // The CRD kind's own group is served by a dynamic source, but is built in all the same.
  auto crds = *local_apiservice({"apiextensions.k8s.io", "v1", true});
  EXPECT_EQ(crds.at("metadata").at("labels").at(kAutoManagedLabel).as_string(), "onstart");
  EXPECT_EQ(parse_apiservice(crds).group_priority, 16700);
  // The aggregator's own group has no APIService.
  EXPECT_FALSE(local_apiservice({"apiregistration.k8s.io", "v1", false}));
}

TEST(AutoRegistrationTest, CustomResourceGroupVersionsGetLowPriority) {
  auto widgets = *local_apiservice({"example.com", "v1beta1", true});
  EXPECT_EQ(widgets.at("metadata").at("labels").at(kAutoManagedLabel).as_string(), "true");
  auto parsed = parse_apiservice(widgets);
  EXPECT_EQ(parsed.name, "v1beta1.example.com");
  EXPECT_EQ(parsed.group_priority, 1000);
  EXPECT_EQ(parsed.version_priority, 100);
}

TEST(AutoRegistrationTest, PlansCreatesUpdatesAndRemovalsOfManagedApiServicesOnly) {
  std::vector<discovery::LocalGroupVersion> local = {{"", "v1", false}, {"apps", "v1", false}, {"example.com", "v1", true}};
  auto stale_apps = *local_apiservice({"apps", "v1", false});
  stale_apps["spec"].as_object()["versionPriority"] = 3;
  auto gone_crd = *local_apiservice({"old.example.com", "v1", true});
  auto stored = by_name({*local_apiservice({"", "v1", false}), stale_apps, gone_crd,
                         json::parse(R"({"metadata":{"name":"v1.example.com"},"spec":{"group":"example.com",
                             "version":"v1","service":{"namespace":"n","name":"s","port":443}}})").as_object(),
                         json::parse(R"({"metadata":{"name":"v1.wardle.example.com"},"spec":{}})").as_object()});
  AutoRegistrationPlan plan = plan_autoregistration(local, stored);
  EXPECT_TRUE(plan.create.empty());  // v1. is as wanted; v1.example.com belongs to a user
  ASSERT_EQ(plan.update.size(), 1u);
  EXPECT_EQ(plan.update[0].at("metadata").at("name").as_string(), "v1.apps");
  EXPECT_EQ(plan.update[0].at("spec").at("versionPriority").as_int64(), 15);
  EXPECT_EQ(plan.remove, std::vector<std::string>{"v1.old.example.com"});

  stored.erase("v1.");
  plan = plan_autoregistration(local, stored);
  ASSERT_EQ(plan.create.size(), 1u);
  EXPECT_EQ(plan.create[0].at("metadata").at("name").as_string(), "v1.");
}

TEST(AutoRegistrationTest, AnApiServiceAsTheStoreGivesItBackIsNotRewritten) {
  // Go's omitempty drops the core group's "" and the store gives the absent service back as null: that is the
  // wanted spec still, and updating it every second would change nothing.
  std::vector<discovery::LocalGroupVersion> local = {{"", "v1", false}, {"apps", "v1", false}};
  auto stored = by_name({json::parse(R"({"metadata":{"name":"v1.","labels":{
                             "kube-aggregator.kubernetes.io/automanaged":"onstart"}},"spec":{"service":null,
                             "version":"v1","groupPriorityMinimum":18000,"versionPriority":1}})").as_object(),
                         json::parse(R"({"metadata":{"name":"v1.apps","labels":{
                             "kube-aggregator.kubernetes.io/automanaged":"onstart"}},"spec":{"service":null,
                             "group":"apps","version":"v1","groupPriorityMinimum":17800,"versionPriority":15,
                             "insecureSkipTLSVerify":false}})").as_object()});
  AutoRegistrationPlan plan = plan_autoregistration(local, stored);
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.update.empty()) << plan.update.size() << " rewritten";
  EXPECT_TRUE(plan.remove.empty());
}

TEST(ApiServiceModelTest, ParsesTheRemoteSpecAndSetsTheAvailableCondition) {
  auto object = json::parse(R"({"metadata":{"name":"v1alpha1.wardle.example.com"},
      "spec":{"group":"wardle.example.com","version":"v1alpha1","groupPriorityMinimum":2000,"versionPriority":7,
              "service":{"namespace":"wardle","name":"api"},"caBundle":"aGVsbG8=","insecureSkipTLSVerify":false}})")
                    .as_object();
  ApiService parsed = parse_apiservice(object);
  ASSERT_TRUE(parsed.service);
  EXPECT_EQ(parsed.service->namespace_, "wardle");
  EXPECT_EQ(parsed.service->port, 443);
  EXPECT_EQ(parsed.ca_bundle_pem, "hello");
  EXPECT_FALSE(parsed.available);

  EXPECT_TRUE(set_available_condition(object, "False", "MissingEndpoints", "none"));
  const std::string first_transition(object["status"].at("conditions").at(0).at("lastTransitionTime").as_string());
  EXPECT_FALSE(set_available_condition(object, "False", "MissingEndpoints", "none"));
  EXPECT_TRUE(set_available_condition(object, "False", "FailedDiscoveryCheck", "refused"));
  EXPECT_EQ(object["status"].at("conditions").at(0).at("lastTransitionTime").as_string(), first_transition);
  EXPECT_TRUE(set_available_condition(object, "True", "Passed", "all checks passed"));
  EXPECT_TRUE(parse_apiservice(object).available);
  EXPECT_EQ(object["status"].at("conditions").as_array().size(), 1u);
}

}  // namespace
}  // namespace kapi::aggregator::autoregistration_test

#include "server/flowcontrol/classifier.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::flowcontrol::classifier_test {
namespace {

FlowSchema schema(std::string_view json) { return flow_schema_from_json(boost::json::parse(json).as_object()); }

request::RequestInfo resource_request(std::string verb, std::string group, std::string resource,
                                      std::string namespace_ = "", std::string subresource = "") {
  request::RequestInfo info;
  info.is_resource_request = true;
  info.verb = std::move(verb);
  info.api_group = std::move(group);
  info.resource = std::move(resource);
  info.namespace_ = std::move(namespace_);
  info.subresource = std::move(subresource);
  return info;
}

request::RequestInfo non_resource_request(std::string verb, std::string path) {
  request::RequestInfo info;
  info.verb = std::move(verb);
  info.path = std::move(path);
  return info;
}

request::UserInfo user(std::string name, std::vector<std::string> groups = {"system:authenticated"}) {
  return {std::move(name), "", std::move(groups), {}};
}

const char* kLeases = R"({
  "metadata": {"name": "leases", "uid": "u-1"},
  "spec": {
    "priorityLevelConfiguration": {"name": "leader-election"},
    "matchingPrecedence": 200,
    "distinguisherMethod": {"type": "ByUser"},
    "rules": [{
      "subjects": [{"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system", "name": "*"}},
                   {"kind": "User", "user": {"name": "system:kube-scheduler"}}],
      "resourceRules": [{"verbs": ["get", "update"], "apiGroups": ["coordination.k8s.io"],
                         "resources": ["leases"], "namespaces": ["kube-system"]},
                        {"verbs": ["*"], "apiGroups": [""], "resources": ["nodes/status"], "clusterScope": true}]
    }]
  }
})";

TEST(FlowSchemaConfigurationTest, ReadsTheSpecAndItsDefaults) {
  FlowSchema leases = schema(kLeases);
  EXPECT_EQ(leases.name, "leases");
  EXPECT_EQ(leases.uid, "u-1");
  EXPECT_EQ(leases.matching_precedence, 200);
  EXPECT_EQ(leases.priority_level, "leader-election");
  EXPECT_EQ(leases.distinguisher, DistinguisherMethod::ByUser);
  ASSERT_EQ(leases.rules.size(), 1u);
  EXPECT_EQ(leases.rules[0].subjects.size(), 2u);
  EXPECT_TRUE(leases.rules[0].resource_rules[1].cluster_scope);

  FlowSchema bare = schema(R"({"metadata": {"name": "bare"}, "spec": {"priorityLevelConfiguration": {"name": "x"}}})");
  EXPECT_EQ(bare.matching_precedence, 1000);
  EXPECT_EQ(bare.distinguisher, DistinguisherMethod::None);
}

TEST(FlowSchemaConfigurationTest, ReadsPriorityLevelsWithKubesDefaults) {
  PriorityLevel queued = priority_level_from_json(boost::json::parse(R"({
    "metadata": {"name": "q", "uid": "u"},
    "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 16}}}}})").as_object());
  EXPECT_FALSE(queued.exempt);
  EXPECT_EQ(queued.nominal_concurrency_shares, 30);
  EXPECT_EQ(queued.lendable_percent, 0);
  EXPECT_FALSE(queued.borrowing_limit_percent);
  ASSERT_TRUE(queued.queuing);
  EXPECT_EQ(queued.queuing->queues, 16);
  EXPECT_EQ(queued.queuing->hand_size, 8);
  EXPECT_EQ(queued.queuing->queue_length_limit, 50);

  PriorityLevel rejecting = priority_level_from_json(boost::json::parse(R"({
    "metadata": {"name": "r"},
    "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "borrowingLimitPercent": 0,
                                            "limitResponse": {"type": "Reject"}}}})").as_object());
  EXPECT_FALSE(rejecting.queuing);
  EXPECT_EQ(rejecting.nominal_concurrency_shares, 5);
  EXPECT_EQ(rejecting.borrowing_limit_percent, 0);

  PriorityLevel exempt = priority_level_from_json(
      boost::json::parse(R"({"metadata": {"name": "exempt"}, "spec": {"type": "Exempt"}})").as_object());
  EXPECT_TRUE(exempt.exempt);
  EXPECT_EQ(exempt.nominal_concurrency_shares, 0);
}

TEST(ClassifierTest, MatchesSubjectsAndResourceRules) {
  FlowSchema leases = schema(kLeases);
  auto get_lease = resource_request("get", "coordination.k8s.io", "leases", "kube-system");
  const auto controller = user("system:serviceaccount:kube-system:endpoint-controller");
  EXPECT_TRUE(matches(leases, {get_lease, controller}));
  EXPECT_TRUE(matches(leases, {get_lease, user("system:kube-scheduler")}));
  EXPECT_FALSE(matches(leases, {get_lease, user("system:serviceaccount:default:builder")}));
  EXPECT_FALSE(matches(leases, {get_lease, user("jane")}));

  auto in_default = resource_request("get", "coordination.k8s.io", "leases", "default");
  EXPECT_FALSE(matches(leases, {in_default, controller}));
  auto delete_lease = resource_request("delete", "coordination.k8s.io", "leases", "kube-system");
  EXPECT_FALSE(matches(leases, {delete_lease, controller}));
  auto cluster_leases = resource_request("list", "coordination.k8s.io", "leases");
  EXPECT_FALSE(matches(leases, {cluster_leases, controller})) << "a namespaced rule needs clusterScope for cluster-wide requests";

  auto node_status = resource_request("patch", "", "nodes", "", "status");
  EXPECT_TRUE(matches(leases, {node_status, controller}));
  auto node = resource_request("patch", "", "nodes");
  EXPECT_FALSE(matches(leases, {node, controller})) << "nodes/status does not cover nodes";
  EXPECT_FALSE(matches(leases, {non_resource_request("get", "/healthz"), controller}));
}

TEST(ClassifierTest, MatchesGroupsStarsAndNonResourceUrls) {
  FlowSchema probes = schema(R"({
    "metadata": {"name": "probes"},
    "spec": {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 2,
      "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}}],
                 "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez/*"]}]}]}})");
  const auto anonymous = user("system:anonymous", {"system:unauthenticated"});
  EXPECT_TRUE(matches(probes, {non_resource_request("get", "/healthz"), anonymous}));
  EXPECT_TRUE(matches(probes, {non_resource_request("get", "/livez"), anonymous}));
  EXPECT_TRUE(matches(probes, {non_resource_request("get", "/livez/ping"), anonymous}));
  EXPECT_FALSE(matches(probes, {non_resource_request("get", "/livezz"), anonymous}));
  EXPECT_FALSE(matches(probes, {non_resource_request("get", "/healthz/etcd"), anonymous}));
  EXPECT_FALSE(matches(probes, {non_resource_request("post", "/healthz"), anonymous}));
  EXPECT_FALSE(matches(probes, {non_resource_request("get", "/healthz"), user("jane")}));

  FlowSchema everything = schema(R"({
    "metadata": {"name": "catch-all"},
    "spec": {"priorityLevelConfiguration": {"name": "catch-all"}, "matchingPrecedence": 10000,
      "rules": [{"subjects": [{"kind": "Group", "group": {"name": "*"}}],
                 "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
                                    "namespaces": ["*"]}],
                 "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}})");
  EXPECT_TRUE(matches(everything, {resource_request("create", "apps", "deployments", "prod"), user("jane")}));
  EXPECT_TRUE(matches(everything, {resource_request("list", "", "nodes"), anonymous}));
  EXPECT_TRUE(matches(everything, {non_resource_request("get", "/version"), anonymous}));
  EXPECT_TRUE(matches(everything, {resource_request("get", "", "pods", "prod", "log"), user("jane")}));
}

TEST(ClassifierTest, DistinguishesFlowsByUserOrNamespace) {
  FlowSchema by_user = schema(kLeases);
  auto request = resource_request("get", "coordination.k8s.io", "leases", "kube-system");
  const auto jane = user("jane");
  EXPECT_EQ(flow_distinguisher(by_user, {request, jane}), "jane");
  by_user.distinguisher = DistinguisherMethod::ByNamespace;
  EXPECT_EQ(flow_distinguisher(by_user, {request, jane}), "kube-system");
  by_user.distinguisher = DistinguisherMethod::None;
  EXPECT_EQ(flow_distinguisher(by_user, {request, jane}), "");
}

TEST(ClassifierTest, OrdersByPrecedenceThenName) {
  std::vector<FlowSchema> schemas(4);
  schemas[0] = {.name = "b", .matching_precedence = 500};
  schemas[1] = {.name = "z", .matching_precedence = 100};
  schemas[2] = {.name = "a", .matching_precedence = 500};
  schemas[3] = {.name = "exempt", .matching_precedence = 1};
  sort_for_matching(schemas);
  std::vector<std::string> names;
  for (const auto& s : schemas) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"exempt", "z", "a", "b"}));
}

}  // namespace
}  // namespace kapi::flowcontrol::classifier_test

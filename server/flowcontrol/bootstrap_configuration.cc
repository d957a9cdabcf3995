#include "server/flowcontrol/bootstrap_configuration.h"

#include <boost/json.hpp>

#include <optional>
#include <string>

namespace kapi::flowcontrol {
namespace {

namespace json = boost::json;

constexpr std::string_view kApiVersion = "flowcontrol.apiserver.k8s.io/v1";

// The user and group names of k8s.io/apiserver/pkg/authentication/user and .../serviceaccount.
constexpr std::string_view kSystemPrivilegedGroup = "system:masters";
constexpr std::string_view kNodesGroup = "system:nodes";
constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";
constexpr std::string_view kAllAuthenticated = "system:authenticated";
constexpr std::string_view kAllServiceAccountsGroup = "system:serviceaccounts";
constexpr std::string_view kKubeControllerManager = "system:kube-controller-manager";
constexpr std::string_view kKubeScheduler = "system:kube-scheduler";

json::array strings(std::initializer_list<std::string_view> items) {
  json::array out;
  for (auto item : items) out.emplace_back(item);
  return out;
}

json::object metadata(std::string_view name) {
  return {{"name", name}, {"annotations", json::object{{kAutoUpdateAnnotation, "true"}}}};
}

// The Subject constructors of default.go (users, groups, kubeSystemServiceAccount).
json::object group(std::string_view name) { return {{"kind", "Group"}, {"group", json::object{{"name", name}}}}; }
json::object user(std::string_view name) { return {{"kind", "User"}, {"user", json::object{{"name", name}}}}; }
json::object kube_system_service_account(std::string_view name) {
  return {{"kind", "ServiceAccount"},
          {"serviceAccount", json::object{{"namespace", "kube-system"}, {"name", name}}}};
}

// resourceRule and nonResourceRule, with the fields in the Go structs' order (clusterScope is omitempty).
json::object resource_rule(json::array verbs, json::array api_groups, json::array resources, json::array namespaces,
                           bool cluster_scope) {
  json::object rule{{"verbs", std::move(verbs)}, {"apiGroups", std::move(api_groups)},
                    {"resources", std::move(resources)}};
  if (cluster_scope) rule["clusterScope"] = true;
  rule["namespaces"] = std::move(namespaces);
  return rule;
}
json::object non_resource_rule(json::array verbs, json::array urls) {
  return {{"verbs", std::move(verbs)}, {"nonResourceURLs", std::move(urls)}};
}

// Every verb on every resource, cluster-scoped or in any namespace, and every non-resource URL.
json::array all_resources() { return {resource_rule(strings({"*"}), strings({"*"}), strings({"*"}), strings({"*"}), true)}; }
json::array all_non_resources() { return {non_resource_rule(strings({"*"}), strings({"*"}))}; }

json::object rules_with_subjects(json::array subjects, json::array resource_rules, json::array non_resource_rules) {
  json::object rules{{"subjects", std::move(subjects)}};
  if (!resource_rules.empty()) rules["resourceRules"] = std::move(resource_rules);
  if (!non_resource_rules.empty()) rules["nonResourceRules"] = std::move(non_resource_rules);
  return rules;
}

// newFlowSchema: no distinguisher method when `distinguisher` is empty.
json::object flow_schema(std::string_view name, std::string_view priority_level, int matching_precedence,
                         std::string_view distinguisher, json::object rules) {
  json::object spec{{"priorityLevelConfiguration", json::object{{"name", priority_level}}},
                    {"matchingPrecedence", matching_precedence}};
  if (!distinguisher.empty()) spec["distinguisherMethod"] = json::object{{"type", distinguisher}};
  spec["rules"] = json::array{std::move(rules)};
  return {{"apiVersion", kApiVersion}, {"kind", "FlowSchema"}, {"metadata", metadata(name)}, {"spec", std::move(spec)}};
}

// A flow schema matching every request of `subjects` (default.go's rules of ruleRscAll and ruleNonRscAll).
json::object flow_schema_for_all(std::string_view name, std::string_view priority_level, int matching_precedence,
                                 std::string_view distinguisher, json::array subjects) {
  return flow_schema(name, priority_level, matching_precedence, distinguisher,
                     rules_with_subjects(std::move(subjects), all_resources(), all_non_resources()));
}

json::object priority_level(std::string_view name, json::object spec) {
  return {{"apiVersion", kApiVersion},
          {"kind", "PriorityLevelConfiguration"},
          {"metadata", metadata(name)},
          {"spec", std::move(spec)}};
}

struct Queuing {
  int queues, hand_size, queue_length_limit;
};

// A Limited level; without `queuing` it rejects what it cannot run at once.
json::object limited_level(std::string_view name, int nominal_concurrency_shares, int lendable_percent,
                           std::optional<Queuing> queuing) {
  json::object limit_response;
  if (queuing) {
    limit_response = {{"type", "Queue"},
                      {"queuing", json::object{{"queues", queuing->queues},
                                               {"handSize", queuing->hand_size},
                                               {"queueLengthLimit", queuing->queue_length_limit}}}};
  } else {
    limit_response = {{"type", "Reject"}};
  }
  return priority_level(name, {{"type", "Limited"},
                               {"limited", json::object{{"nominalConcurrencyShares", nominal_concurrency_shares},
                                                        {"limitResponse", std::move(limit_response)},
                                                        {"lendablePercent", lendable_percent}}}});
}

const std::vector<json::object>& mandatory_levels() {
  static const std::vector<json::object> levels{
      // "catch-all" only gets a minimal share of concurrency, and no request reaches it unless the suggested
      // global-default flow schema was deleted.
      limited_level(kCatchAllName, 5, 0, std::nullopt),
      priority_level(kExemptName, {{"type", "Exempt"},
                                   {"exempt", json::object{{"nominalConcurrencyShares", 0}, {"lendablePercent", 0}}}}),
  };
  return levels;
}

const std::vector<json::object>& mandatory_schemas() {
  static const std::vector<json::object> schemas{
      // System administrators' requests are always possible, whatever the load.
      flow_schema_for_all(kExemptName, kExemptName, 1, "", json::array{group(kSystemPrivilegedGroup)}),
      flow_schema_for_all(kCatchAllName, kCatchAllName, 10000, "ByUser",
                          json::array{group(kAllUnauthenticated), group(kAllAuthenticated)}),
  };
  return schemas;
}

}  // namespace

std::vector<json::object> mandatory_priority_levels() { return mandatory_levels(); }

std::vector<json::object> mandatory_flow_schemas() { return mandatory_schemas(); }

std::vector<json::object> suggested_priority_levels() {
  return {
      // The system components that keep the cluster and its pods running (kubelets, kube-proxy).
      limited_level("system", 30, 33, Queuing{64, 6, 50}),
      // Nodes' health reporting, apart from "system" so that it goes on while pods start in masses.
      limited_level("node-high", 40, 25, Queuing{64, 6, 50}),
      // Controllers' leader election.
      limited_level("leader-election", 10, 0, Queuing{16, 4, 50}),
      // The scheduler and the built-in controllers.
      limited_level("workload-high", 40, 50, Queuing{128, 6, 50}),
      // Other service accounts' workloads.
      limited_level("workload-low", 100, 90, Queuing{128, 6, 50}),
      // Everything the other suggested flow schemas do not take.
      limited_level("global-default", 20, 50, Queuing{128, 6, 50}),
  };
}

std::vector<json::object> suggested_flow_schemas() {
  auto get_create_update = [] { return strings({"get", "create", "update"}); };
  return {
      flow_schema_for_all("system-nodes", "system", 500, "ByUser", json::array{group(kNodesGroup)}),
      flow_schema("system-node-high", "node-high", 400, "ByUser",
                  rules_with_subjects(json::array{group(kNodesGroup)},
                                      json::array{resource_rule(strings({"*"}), strings({""}),
                                                                strings({"nodes", "nodes/status"}), strings({"*"}), true),
                                                  resource_rule(strings({"*"}), strings({"coordination.k8s.io"}),
                                                                strings({"leases"}), strings({"*"}), false)},
                                      {})),
      // Probes are exempt, so that a loaded server still answers its health checks.
      flow_schema("probes", kExemptName, 2, "",
                  rules_with_subjects(json::array{group(kAllUnauthenticated), group(kAllAuthenticated)}, {},
                                      json::array{non_resource_rule(strings({"get"}),
                                                                    strings({"/healthz", "/readyz", "/livez"}))})),
      flow_schema("system-leader-election", "leader-election", 100, "ByUser",
                  rules_with_subjects(json::array{user(kKubeControllerManager), user(kKubeScheduler),
                                                  kube_system_service_account("*")},
                                      json::array{resource_rule(get_create_update(), strings({"coordination.k8s.io"}),
                                                                strings({"leases"}), strings({"*"}), false)},
                                      {})),
      flow_schema("workload-leader-election", "leader-election", 200, "ByUser",
                  rules_with_subjects(json::array{kube_system_service_account("*")},
                                      json::array{resource_rule(get_create_update(), strings({""}),
                                                                strings({"endpoints", "configmaps"}), strings({"*"}),
                                                                false),
                                                  resource_rule(get_create_update(), strings({"coordination.k8s.io"}),
                                                                strings({"leases"}), strings({"*"}), false)},
                                      {})),
      // Ahead of workload-leader-election, so that the endpoints controllers' writes are not taken for leader
      // election.
      flow_schema("endpoint-controller", "workload-high", 150, "ByUser",
                  rules_with_subjects(json::array{user(kKubeControllerManager),
                                                  kube_system_service_account("endpoint-controller"),
                                                  kube_system_service_account("endpointslicemirroring-controller")},
                                      json::array{resource_rule(get_create_update(), strings({""}),
                                                                strings({"endpoints"}), strings({"*"}), false)},
                                      {})),
      flow_schema_for_all("kube-controller-manager", "workload-high", 800, "ByNamespace",
                          json::array{user(kKubeControllerManager)}),
      flow_schema_for_all("kube-scheduler", "workload-high", 800, "ByNamespace", json::array{user(kKubeScheduler)}),
      flow_schema_for_all("kube-system-service-accounts", "workload-high", 900, "ByNamespace",
                          json::array{kube_system_service_account("*")}),
      flow_schema_for_all("service-accounts", "workload-low", 9000, "ByUser",
                          json::array{group(kAllServiceAccountsGroup)}),
      flow_schema_for_all("global-default", "global-default", 9900, "ByUser",
                          json::array{group(kAllUnauthenticated), group(kAllAuthenticated)}),
  };
}

const json::object* mandatory_priority_level(std::string_view name) {
  for (const auto& level : mandatory_levels())
    if (level.at("metadata").as_object().at("name").as_string() == name) return &level;
  return nullptr;
}

const json::object* mandatory_flow_schema(std::string_view name) {
  for (const auto& schema : mandatory_schemas())
    if (schema.at("metadata").as_object().at("name").as_string() == name) return &schema;
  return nullptr;
}

}  // namespace kapi::flowcontrol

#pragma once
// kube 1.32's bootstrap API Priority and Fairness configuration (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap,
// default.go) as data: the mandatory objects every server needs (the `exempt` and `catch-all` priority levels and
// flow schemas) and the suggested ones a cluster starts with (system, node-high, leader-election, workload-high,
// workload-low, global-default and the flow schemas that lead to them). Each is a complete
// flowcontrol.apiserver.k8s.io/v1 object (apiVersion, kind, metadata.name, the `apf.kubernetes.io/autoupdate-spec:
// "true"` annotation, spec) with kube's v1 defaults already applied, in kube's list order; the config producer
// (server/apis/flowcontrol/config_producer.h) stores them and the validation of the two resources compares against
// the mandatory ones.
#include <boost/json/object.hpp>

#include <string_view>
#include <vector>

namespace kapi::flowcontrol {

// flowcontrol.apiserver.k8s.io/v1's AutoUpdateAnnotationKey.
inline constexpr std::string_view kAutoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec";
// The names kube reserves for the mandatory objects (PriorityLevelConfigurationNameExempt, ...NameCatchAll, and
// the flow schemas of the same names).
inline constexpr std::string_view kExemptName = "exempt";
inline constexpr std::string_view kCatchAllName = "catch-all";

// MandatoryPriorityLevelConfigurations: catch-all, exempt.
std::vector<boost::json::object> mandatory_priority_levels();
// MandatoryFlowSchemas: exempt, catch-all.
std::vector<boost::json::object> mandatory_flow_schemas();
// SuggestedPriorityLevelConfigurations: system, node-high, leader-election, workload-high, workload-low,
// global-default.
std::vector<boost::json::object> suggested_priority_levels();
// SuggestedFlowSchemas: system-nodes, system-node-high, probes, system-leader-election, workload-leader-election,
// endpoint-controller, kube-controller-manager, kube-scheduler, kube-system-service-accounts, service-accounts,
// global-default.
std::vector<boost::json::object> suggested_flow_schemas();

// The mandatory object of that name (kube's internalbootstrap maps), or nullptr: built once, never changed.
const boost::json::object* mandatory_priority_level(std::string_view name);
const boost::json::object* mandatory_flow_schema(std::string_view name);

}  // namespace kapi::flowcontrol

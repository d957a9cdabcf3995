// The workload, service, node and event type schemas (protos/k8s/api/{core,apps,autoscaling,policy}): kinds
// resolve, field numbers are Kubernetes' (wire compatibility with client-go), strategic-merge and list markers
// and static defaults are kube's, and every reachable message is complete and resolvable.
#include "server/schema/catalog.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::schema::types_test {
namespace {

namespace pb = google::protobuf;

constexpr std::string_view kCore = "k8s.io.api.core.v1.";
constexpr std::string_view kApps = "k8s.io.api.apps.v1.";

const Catalog& catalog() {
  static const Catalog kCatalog = Catalog::builtin();
  return kCatalog;
}

const pb::FieldDescriptor* field(std::string_view message, std::string_view name) {
  const pb::Descriptor* descriptor = catalog().message(message);
  if (!descriptor) {
    ADD_FAILURE() << "no message " << message;
    return nullptr;
  }
  const pb::FieldDescriptor* found = descriptor->FindFieldByName(std::string(name));
  if (!found) ADD_FAILURE() << message << " has no field " << name;
  return found;
}

std::string core(std::string_view name) { return std::string(kCore) + std::string(name); }
std::string apps(std::string_view name) { return std::string(kApps) + std::string(name); }

struct KindCase {
  std::string_view group;
  std::string_view kind;
  bool has_list;
};

TEST(TypesTest, KindsAndTheirListsResolve) {
  const KindCase kinds[] = {
      {"", "Pod", true},           {"", "PodTemplate", true},     {"", "Binding", false},
      {"", "Service", true},       {"", "Endpoints", true},       {"", "Node", true},
      {"", "Event", true},         {"apps", "Deployment", true},  {"apps", "ReplicaSet", true},
      {"apps", "StatefulSet", true}, {"apps", "DaemonSet", true}, {"apps", "ControllerRevision", true},
      {"autoscaling", "Scale", false}, {"policy", "Eviction", false},
  };
  for (const KindCase& kind : kinds) {
    const pb::Descriptor* descriptor = catalog().kind(kind.group, "v1", kind.kind);
    ASSERT_NE(descriptor, nullptr) << kind.kind;
    EXPECT_EQ(descriptor->full_name(), Catalog::package_of(kind.group, "v1") + "." + std::string(kind.kind));
    const pb::FieldDescriptor* metadata = descriptor->FindFieldByName("metadata");
    ASSERT_NE(metadata, nullptr) << kind.kind;
    EXPECT_EQ(metadata->number(), 1);
    EXPECT_EQ(metadata->message_type()->full_name(), "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    EXPECT_FALSE(catalog().markers(descriptor).description.empty()) << kind.kind;
    if (!kind.has_list) continue;
    const pb::Descriptor* list = catalog().kind(kind.group, "v1", std::string(kind.kind) + "List");
    ASSERT_NE(list, nullptr) << kind.kind << "List";
    ASSERT_NE(list->FindFieldByName("items"), nullptr);
    EXPECT_EQ(list->FindFieldByName("items")->number(), 2);
    EXPECT_EQ(list->FindFieldByName("items")->message_type(), descriptor);
    EXPECT_EQ(list->FindFieldByName("metadata")->message_type()->full_name(),
              "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta");
  }
}

struct NumberCase {
  std::string message;
  std::string_view field;
  int number;
};

TEST(TypesTest, FieldNumbersAreKubernetes) {
  const NumberCase cases[] = {
      // Pod and what it contains.
      {core("PodSpec"), "containers", 2},
      {core("PodSpec"), "initContainers", 20},
      {core("PodSpec"), "ephemeralContainers", 34},
      {core("PodSpec"), "shareProcessNamespace", 27},
      {core("PodSpec"), "setHostnameAsFQDN", 35},
      {core("PodSpec"), "hostUsers", 37},
      {core("PodSpec"), "schedulingGates", 38},
      {core("PodSpec"), "resourceClaims", 39},
      {core("PodSpec"), "resources", 40},
      {core("PodStatus"), "nominatedNodeName", 11},
      {core("PodStatus"), "resize", 14},
      {core("PodStatus"), "resourceClaimStatuses", 15},
      {core("PodStatus"), "hostIPs", 16},
      {core("Container"), "envFrom", 19},
      {core("Container"), "terminationMessagePolicy", 20},
      {core("Container"), "startupProbe", 22},
      {core("Container"), "resizePolicy", 23},
      {core("Container"), "restartPolicy", 24},
      {core("EphemeralContainerCommon"), "restartPolicy", 24},
      {core("EphemeralContainer"), "targetContainerName", 2},
      {core("ContainerStatus"), "allocatedResources", 10},
      {core("ContainerStatus"), "volumeMounts", 12},
      {core("ContainerStatus"), "user", 13},
      {core("ContainerStatus"), "allocatedResourcesStatus", 14},
      {core("SecurityContext"), "windowsOptions", 10},
      {core("SecurityContext"), "appArmorProfile", 12},
      {core("PodSecurityContext"), "supplementalGroupsPolicy", 12},
      {core("PodSecurityContext"), "seLinuxChangePolicy", 13},
      {core("VolumeMount"), "recursiveReadOnly", 7},
      {core("Probe"), "terminationGracePeriodSeconds", 7},
      {core("LifecycleHandler"), "sleep", 4},
      {core("VolumeSource"), "projected", 26},
      {core("VolumeSource"), "storageos", 27},
      {core("VolumeSource"), "ephemeral", 29},
      {core("VolumeSource"), "image", 30},
      {core("ISCSIVolumeSource"), "chapAuthSession", 11},
      {core("ISCSIVolumeSource"), "initiatorName", 12},
      {core("VolumeProjection"), "clusterTrustBundle", 5},
      {core("ClusterTrustBundleProjection"), "optional", 5},
      {core("PersistentVolumeClaimSpec"), "volumeAttributesClassName", 9},
      {core("PersistentVolumeClaimStatus"), "modifyVolumeStatus", 9},
      {core("TopologySpreadConstraint"), "matchLabelKeys", 8},
      {core("PodAffinityTerm"), "mismatchLabelKeys", 6},
      // Service and Endpoints.
      {core("ServiceSpec"), "clusterIPs", 18},
      {core("ServiceSpec"), "ipFamilies", 19},
      {core("ServiceSpec"), "internalTrafficPolicy", 22},
      {core("ServiceSpec"), "trafficDistribution", 23},
      {core("ServicePort"), "appProtocol", 6},
      {core("LoadBalancerIngress"), "ipMode", 3},
      {core("EndpointAddress"), "nodeName", 4},
      {core("EndpointAddress"), "targetRef", 2},
      {core("EndpointPort"), "appProtocol", 4},
      {core("EndpointSubset"), "notReadyAddresses", 2},
      // Node.
      {core("NodeSpec"), "podCIDRs", 7},
      {core("NodeStatus"), "runtimeHandlers", 12},
      {core("NodeStatus"), "features", 13},
      {core("NodeSystemInfo"), "architecture", 10},
      {core("DaemonEndpoint"), "Port", 1},
      // Event, Binding, PodTemplate.
      {core("Event"), "eventTime", 10},
      {core("Event"), "series", 11},
      {core("Event"), "reportingInstance", 15},
      {core("Binding"), "target", 2},
      {core("PodTemplate"), "template", 2},
      {core("PodTemplateSpec"), "spec", 2},
      // apps/v1.
      {apps("DeploymentSpec"), "strategy", 4},
      {apps("DeploymentSpec"), "paused", 7},
      {apps("DeploymentSpec"), "progressDeadlineSeconds", 9},
      {apps("DeploymentStatus"), "readyReplicas", 7},
      {apps("DeploymentStatus"), "collisionCount", 8},
      {apps("DeploymentCondition"), "lastUpdateTime", 6},
      {apps("DeploymentCondition"), "lastTransitionTime", 7},
      {apps("ReplicaSetSpec"), "minReadySeconds", 4},
      {apps("ReplicaSetStatus"), "availableReplicas", 5},
      {apps("ReplicaSetStatus"), "conditions", 6},
      {apps("StatefulSetSpec"), "minReadySeconds", 9},
      {apps("StatefulSetSpec"), "persistentVolumeClaimRetentionPolicy", 10},
      {apps("StatefulSetSpec"), "ordinals", 11},
      {apps("StatefulSetStatus"), "collisionCount", 9},
      {apps("StatefulSetStatus"), "availableReplicas", 11},
      {apps("DaemonSetSpec"), "minReadySeconds", 4},
      {apps("DaemonSetSpec"), "revisionHistoryLimit", 6},
      {apps("DaemonSetStatus"), "collisionCount", 9},
      {apps("DaemonSetStatus"), "conditions", 10},
      {apps("ControllerRevision"), "data", 2},
      {apps("ControllerRevision"), "revision", 3},
      // Subresource bodies.
      {"k8s.io.api.autoscaling.v1.Scale", "status", 3},
      {"k8s.io.api.autoscaling.v1.ScaleSpec", "replicas", 1},
      {"k8s.io.api.autoscaling.v1.ScaleStatus", "selector", 2},
      {"k8s.io.api.policy.v1.Eviction", "deleteOptions", 2},
  };
  for (const NumberCase& c : cases) {
    const pb::FieldDescriptor* found = field(c.message, c.field);
    if (found) {
      EXPECT_EQ(found->number(), c.number) << c.message << "." << c.field;
    }
  }
}

// Fields Kubernetes added after 1.32: their absence keeps the served schema that of 1.32.
TEST(TypesTest, NoFieldsNewerThan132) {
  EXPECT_EQ(catalog().message(core("PodSpec"))->FindFieldByName("hostnameOverride"), nullptr);
  EXPECT_EQ(catalog().message(core("PodStatus"))->FindFieldByName("observedGeneration"), nullptr);
  EXPECT_EQ(catalog().message(core("PodCondition"))->FindFieldByName("observedGeneration"), nullptr);
  EXPECT_EQ(catalog().message(core("Lifecycle"))->FindFieldByName("stopSignal"), nullptr);
  EXPECT_EQ(catalog().message(core("ContainerStatus"))->FindFieldByName("stopSignal"), nullptr);
  EXPECT_EQ(catalog().message(core("Container"))->FindFieldByName("restartPolicyRules"), nullptr);
  EXPECT_EQ(catalog().message(core("NodeSystemInfo"))->FindFieldByName("swap"), nullptr);
  EXPECT_EQ(catalog().message(apps("DeploymentStatus"))->FindFieldByName("terminatingReplicas"), nullptr);
}

struct ListCase {
  std::string message;
  std::string_view field;
  std::string_view patch_strategy;
  std::string_view patch_merge_key;
  std::string_view list_type;
  std::vector<std::string> list_map_keys;
};

TEST(TypesTest, StrategicMergeAndListMarkersAreKubes) {
  const ListCase cases[] = {
      {core("PodSpec"), "containers", "merge", "name", "map", {"name"}},
      {core("PodSpec"), "initContainers", "merge", "name", "map", {"name"}},
      {core("PodSpec"), "ephemeralContainers", "merge", "name", "map", {"name"}},
      {core("PodSpec"), "volumes", "merge,retainKeys", "name", "map", {"name"}},
      {core("PodSpec"), "imagePullSecrets", "merge", "name", "map", {"name"}},
      {core("PodSpec"), "hostAliases", "merge", "ip", "map", {"ip"}},
      {core("PodSpec"), "topologySpreadConstraints", "merge", "topologyKey", "map",
       {"topologyKey", "whenUnsatisfiable"}},
      {core("PodSpec"), "resourceClaims", "merge,retainKeys", "name", "map", {"name"}},
      {core("PodSpec"), "tolerations", "", "", "atomic", {}},
      {core("PodSpec"), "readinessGates", "", "", "atomic", {}},
      {core("Container"), "env", "merge", "name", "map", {"name"}},
      {core("Container"), "ports", "merge", "containerPort", "map", {"containerPort", "protocol"}},
      {core("Container"), "volumeMounts", "merge", "mountPath", "map", {"mountPath"}},
      {core("Container"), "volumeDevices", "merge", "devicePath", "map", {"devicePath"}},
      {core("Container"), "command", "", "", "atomic", {}},
      {core("Container"), "envFrom", "", "", "atomic", {}},
      {core("EphemeralContainerCommon"), "env", "merge", "name", "map", {"name"}},
      {core("PodStatus"), "conditions", "merge", "type", "map", {"type"}},
      {core("PodStatus"), "podIPs", "merge", "ip", "map", {"ip"}},
      {core("PodStatus"), "hostIPs", "merge", "ip", "atomic", {}},  // k8s.io/api v0.32: +listType=atomic
      {core("PodStatus"), "containerStatuses", "", "", "atomic", {}},
      {core("ServiceSpec"), "ports", "merge", "port", "map", {"port", "protocol"}},
      {core("ServiceStatus"), "conditions", "merge", "type", "map", {"type"}},
      {core("NodeSpec"), "podCIDRs", "merge", "", "set", {}},
      {core("NodeSpec"), "taints", "", "", "atomic", {}},
      {core("NodeStatus"), "addresses", "merge", "type", "map", {"type"}},
      {core("EndpointSubset"), "addresses", "", "", "atomic", {}},
      {apps("DeploymentStatus"), "conditions", "merge", "type", "map", {"type"}},
      {apps("StatefulSetSpec"), "volumeClaimTemplates", "", "", "atomic", {}},
  };
  for (const ListCase& c : cases) {
    const pb::FieldDescriptor* found = field(c.message, c.field);
    if (!found) continue;
    const Markers& markers = catalog().markers(found);
    EXPECT_EQ(markers.patch_strategy, c.patch_strategy) << c.message << "." << c.field;
    EXPECT_EQ(markers.patch_merge_key, c.patch_merge_key) << c.message << "." << c.field;
    EXPECT_EQ(markers.list_type, c.list_type) << c.message << "." << c.field;
    EXPECT_EQ(markers.list_map_keys, c.list_map_keys) << c.message << "." << c.field;
  }
  EXPECT_EQ(catalog().markers(field(apps("DeploymentSpec"), "strategy")).patch_strategy, "retainKeys");
  EXPECT_EQ(catalog().markers(field(core("PodSpec"), "nodeSelector")).map_type, "atomic");
  EXPECT_EQ(catalog().markers(catalog().message(core("NodeSelector"))).struct_type, "atomic");
  EXPECT_EQ(catalog().markers(catalog().message(core("ConfigMapKeySelector"))).struct_type, "atomic");
}

struct DefaultCase {
  std::string message;
  std::string_view field;
  std::string_view json;
};

TEST(TypesTest, UnconditionalDefaultsAreDeclared) {
  const DefaultCase cases[] = {
      {core("Container"), "terminationMessagePath", "\"/dev/termination-log\""},
      {core("Container"), "terminationMessagePolicy", "\"File\""},
      {core("EphemeralContainerCommon"), "terminationMessagePolicy", "\"File\""},
      {core("ContainerPort"), "protocol", "\"TCP\""},
      {core("PodSpec"), "restartPolicy", "\"Always\""},
      {core("PodSpec"), "dnsPolicy", "\"ClusterFirst\""},
      {core("PodSpec"), "schedulerName", "\"default-scheduler\""},
      {core("PodSpec"), "terminationGracePeriodSeconds", "30"},
      {core("PodSpec"), "securityContext", "{}"},
      {core("Probe"), "timeoutSeconds", "1"},
      {core("Probe"), "periodSeconds", "10"},
      {core("Probe"), "failureThreshold", "3"},
      {core("HTTPGetAction"), "scheme", "\"HTTP\""},
      {core("SecretVolumeSource"), "defaultMode", "420"},
      {core("ConfigMapVolumeSource"), "defaultMode", "420"},
      {core("ServiceAccountTokenProjection"), "expirationSeconds", "3600"},
      {core("PersistentVolumeClaimSpec"), "volumeMode", "\"Filesystem\""},
      {core("ServicePort"), "protocol", "\"TCP\""},
      {core("ServiceSpec"), "type", "\"ClusterIP\""},
      {core("ServiceSpec"), "sessionAffinity", "\"None\""},
      {core("EndpointPort"), "protocol", "\"TCP\""},
      {apps("DeploymentSpec"), "replicas", "1"},
      {apps("DeploymentSpec"), "revisionHistoryLimit", "10"},
      {apps("DeploymentSpec"), "progressDeadlineSeconds", "600"},
      {apps("DeploymentStrategy"), "type", "\"RollingUpdate\""},
      {apps("StatefulSetSpec"), "podManagementPolicy", "\"OrderedReady\""},
      {apps("StatefulSetPersistentVolumeClaimRetentionPolicy"), "whenDeleted", "\"Retain\""},
      {apps("DaemonSetUpdateStrategy"), "type", "\"RollingUpdate\""},
      {apps("ReplicaSetSpec"), "replicas", "1"},
  };
  for (const DefaultCase& c : cases) {
    const pb::FieldDescriptor* found = field(c.message, c.field);
    if (found) {
      EXPECT_EQ(catalog().markers(found).default_json, std::string(c.json)) << c.message << "." << c.field;
    }
  }
  // Conditional defaults are code's: a static default would be wrong in some objects.
  EXPECT_FALSE(catalog().markers(field(core("Container"), "imagePullPolicy")).default_json);
  EXPECT_FALSE(catalog().markers(field(core("PodSpec"), "enableServiceLinks")).default_json);
  EXPECT_FALSE(catalog().markers(field(core("ServicePort"), "targetPort")).default_json);
  EXPECT_FALSE(catalog().markers(field(apps("RollingUpdateDeployment"), "maxSurge")).default_json);
  EXPECT_FALSE(catalog().markers(field(apps("RollingUpdateStatefulSetStrategy"), "partition")).default_json);
}

TEST(TypesTest, RequiredFieldsAreMarked) {
  EXPECT_TRUE(catalog().markers(field(core("Container"), "name")).required);
  EXPECT_TRUE(catalog().markers(field(core("PodSpec"), "containers")).required);
  EXPECT_TRUE(catalog().markers(field(core("ContainerPort"), "containerPort")).required);
  EXPECT_TRUE(catalog().markers(field(core("VolumeMount"), "mountPath")).required);
  EXPECT_TRUE(catalog().markers(field(core("ServicePort"), "port")).required);
  EXPECT_TRUE(catalog().markers(field(apps("DeploymentSpec"), "selector")).required);
  EXPECT_FALSE(catalog().markers(field(core("Container"), "image")).required);
  EXPECT_FALSE(catalog().markers(field(apps("StatefulSetSpec"), "serviceName")).required);
}

// Go's embedded structs are a nested message on the wire but inline in JSON; the +inline marker says so.
TEST(TypesTest, EmbeddedStructsAreMarkedInline) {
  const std::pair<std::string, std::string_view> embedded[] = {
      {core("Volume"), "volumeSource"},
      {core("Probe"), "handler"},
      {core("EphemeralContainer"), "ephemeralContainerCommon"},
      {core("ConfigMapKeySelector"), "localObjectReference"},
      {core("SecretKeySelector"), "localObjectReference"},
      {core("ConfigMapEnvSource"), "localObjectReference"},
      {core("SecretEnvSource"), "localObjectReference"},
      {core("ConfigMapVolumeSource"), "localObjectReference"},
      {core("ConfigMapProjection"), "localObjectReference"},
      {core("SecretProjection"), "localObjectReference"},
  };
  for (const auto& [message, name] : embedded) {
    const pb::FieldDescriptor* found = field(message, name);
    if (!found) continue;
    pb::SourceLocation location;
    ASSERT_TRUE(found->GetSourceLocation(&location)) << message << "." << name;
    EXPECT_NE(location.leading_comments.find("+inline"), std::string::npos) << message << "." << name;
  }
}

// Every message reachable from the kinds resolves and is described; a missing type would make protoc fail, a
// missing description would leave kubectl explain blank.
TEST(TypesTest, EveryReachableMessageResolvesAndIsDescribed) {
  const char* roots[] = {"k8s.io.api.core.v1.PodList",        "k8s.io.api.core.v1.PodTemplateList",
                         "k8s.io.api.core.v1.Binding",        "k8s.io.api.core.v1.ServiceList",
                         "k8s.io.api.core.v1.EndpointsList",  "k8s.io.api.core.v1.NodeList",
                         "k8s.io.api.core.v1.EventList",      "k8s.io.api.apps.v1.DeploymentList",
                         "k8s.io.api.apps.v1.ReplicaSetList", "k8s.io.api.apps.v1.StatefulSetList",
                         "k8s.io.api.apps.v1.DaemonSetList",  "k8s.io.api.apps.v1.ControllerRevisionList",
                         "k8s.io.api.autoscaling.v1.Scale",   "k8s.io.api.policy.v1.Eviction"};
  std::set<const pb::Descriptor*> seen;
  std::deque<const pb::Descriptor*> pending;
  for (const char* root : roots) {
    const pb::Descriptor* descriptor = catalog().message(root);
    ASSERT_NE(descriptor, nullptr) << root;
    pending.push_back(descriptor);
  }
  while (!pending.empty()) {
    const pb::Descriptor* message = pending.front();
    pending.pop_front();
    if (!seen.insert(message).second) continue;
    const bool is_map_entry = message->options().map_entry();
    const bool is_list = message->name().ends_with("List");
    if (!is_map_entry && !is_list && message->full_name().starts_with("k8s.io.api.")) {
      EXPECT_FALSE(catalog().markers(message).description.empty()) << message->full_name();
    }
    for (int i = 0; i < message->field_count(); ++i) {
      const pb::FieldDescriptor* member = message->field(i);
      if (member->type() != pb::FieldDescriptor::TYPE_MESSAGE) continue;
      ASSERT_NE(member->message_type(), nullptr) << message->full_name() << "." << member->name();
      pending.push_back(member->message_type());
    }
  }
  EXPECT_TRUE(seen.count(catalog().message("k8s.io.api.core.v1.ScaleIOVolumeSource")));
  EXPECT_TRUE(seen.count(catalog().message("k8s.io.api.core.v1.PersistentVolumeClaimStatus")));
  EXPECT_TRUE(seen.count(catalog().message("k8s.io.apimachinery.pkg.apis.meta.v1.Condition")));
  EXPECT_GT(seen.size(), 150u);
}

}  // namespace
}  // namespace kapi::schema::types_test

// The smd types of built-in kinds, as kube 1.32 derives them from its OpenAPI v3 definitions through kube-openapi's
// schemaconv. The extension values quoted below are those openapi-gen writes from k8s.io/api v0.32's markers; the
// core ones (Container, ContainerPort, VolumeMount, HTTPGetAction) were compared with kube's published
// api/openapi-spec/v3/api__v1_openapi.json (kubernetes/kubernetes 001a778), ClusterRole's with
// apis__rbac.authorization.k8s.io__v1_openapi.json (01aa0f3, older: no x-kubernetes-list-type and no patch strategy
// on rules or clusterRoleSelectors, atomic all the same).
#include "server/fieldmanager/type_converter.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::fieldmanager::type_converter_test {
namespace {

namespace sm = structured_merge;
using sm::ElementRelationship;
using sm::ScalarKind;
using sm::TypeRef;

const schema::Catalog& catalog() {
  static const schema::Catalog kCatalog = schema::Catalog::builtin();
  return kCatalog;
}

const sm::Schema& builtin() {
  static const auto kSchema = schema_from_catalog(catalog());
  return *kSchema;
}

TypeRef kind(std::string_view group, std::string_view version, std::string_view name) {
  TypeRef type = kind_type(builtin(), catalog(), group, version, name);
  EXPECT_NE(type, nullptr) << group << "/" << version << " " << name;
  return type;
}

// The type at a path of member names ("spec", "template", ...); "[]" steps into a list's items.
TypeRef at(TypeRef type, std::initializer_list<std::string_view> path) {
  for (std::string_view step : path) {
    if (!type) return nullptr;
    if (step == "[]") {
      if (!type->list) ADD_FAILURE() << "not a list at " << step;
      type = type->list_element;
    } else {
      if (!type->map) ADD_FAILURE() << "not a map at " << step;
      type = type->member_type(step);
    }
  }
  EXPECT_NE(type, nullptr);
  return type;
}

void expect_map_list(TypeRef type, std::vector<std::string> keys) {
  ASSERT_NE(type, nullptr);
  ASSERT_TRUE(type->list);
  EXPECT_FALSE(type->map);
  EXPECT_EQ(type->list_relationship, ElementRelationship::kAssociative);
  EXPECT_EQ(type->keys, keys);
}

void expect_set(TypeRef type) {
  ASSERT_NE(type, nullptr);
  ASSERT_TRUE(type->list);
  EXPECT_EQ(type->list_relationship, ElementRelationship::kAssociative);
  EXPECT_TRUE(type->keys.empty());
  ASSERT_NE(type->list_element, nullptr);
  EXPECT_TRUE(type->list_element->scalar);
}

void expect_atomic_list(TypeRef type) {
  ASSERT_NE(type, nullptr);
  ASSERT_TRUE(type->list);
  EXPECT_EQ(type->list_relationship, ElementRelationship::kAtomic);
  EXPECT_TRUE(type->keys.empty());
}

void expect_map(TypeRef type, ElementRelationship relationship) {
  ASSERT_NE(type, nullptr);
  ASSERT_TRUE(type->map);
  EXPECT_FALSE(type->list);
  EXPECT_FALSE(type->scalar);
  EXPECT_EQ(type->map_relationship, relationship);
}

void expect_scalar(TypeRef type, ScalarKind kind) {
  ASSERT_NE(type, nullptr);
  EXPECT_TRUE(type->scalar);
  EXPECT_FALSE(type->list);
  EXPECT_FALSE(type->map);
  EXPECT_EQ(type->scalar_kind, kind);
}

TEST(TypeConverterCatalogTest, PodContainersAreKeyedByNameAndTheirListsByTheirMarkers) {
  TypeRef pod = kind("", "v1", "Pod");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->name, "io.k8s.api.core.v1.Pod");
  // io.k8s.api.core.v1.PodSpec.containers: "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map",
  // "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge".
  expect_map_list(at(pod, {"spec", "containers"}), {"name"});
  expect_map_list(at(pod, {"spec", "initContainers"}), {"name"});
  // Container.ports: "x-kubernetes-list-map-keys": ["containerPort", "protocol"], "x-kubernetes-list-type": "map".
  expect_map_list(at(pod, {"spec", "containers", "[]", "ports"}), {"containerPort", "protocol"});
  // Container.env: "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map".
  expect_map_list(at(pod, {"spec", "containers", "[]", "env"}), {"name"});
  // Container.volumeMounts: "x-kubernetes-list-map-keys": ["mountPath"], "x-kubernetes-list-type": "map".
  expect_map_list(at(pod, {"spec", "containers", "[]", "volumeMounts"}), {"mountPath"});
  // PodSpec.volumes: "x-kubernetes-list-type": "map" keyed by name (patch strategy "merge,retainKeys").
  expect_map_list(at(pod, {"spec", "volumes"}), {"name"});
  // PodSpec.tolerations: "x-kubernetes-list-type": "atomic".
  expect_atomic_list(at(pod, {"spec", "tolerations"}));
  // Container.args and command: "x-kubernetes-list-type": "atomic".
  expect_atomic_list(at(pod, {"spec", "containers", "[]", "args"}));
  // PodSpec.nodeSelector: "x-kubernetes-map-type": "atomic".
  expect_map(at(pod, {"spec", "nodeSelector"}), ElementRelationship::kAtomic);
  // Container is a plain struct: granular, no other members.
  TypeRef container = at(pod, {"spec", "containers", "[]"});
  expect_map(container, ElementRelationship::kSeparable);
  EXPECT_EQ(container->name, "io.k8s.api.core.v1.Container");
  EXPECT_EQ(container->map_element, nullptr);
  EXPECT_EQ(container->member_type("noSuchField"), nullptr);
}

TEST(TypeConverterCatalogTest, ListTypeWinsOverPatchStrategy) {
  TypeRef pod = kind("", "v1", "Pod");
  // PodStatus.hostIPs: "x-kubernetes-list-type": "atomic" beside "x-kubernetes-patch-strategy": "merge" and
  // "x-kubernetes-patch-merge-key": "ip" (k8s.io/api v0.32): the list type decides.
  expect_atomic_list(at(pod, {"status", "hostIPs"}));
  // PodStatus.podIPs: "x-kubernetes-list-map-keys": ["ip"], "x-kubernetes-list-type": "map".
  expect_map_list(at(pod, {"status", "podIPs"}), {"ip"});
}

TEST(TypeConverterCatalogTest, PatchStrategyMergeWithoutListTypeIsAMapListByTheMergeKey) {
  // kube-aggregator's APIServiceStatus.conditions: "x-kubernetes-patch-merge-key": "type",
  // "x-kubernetes-patch-strategy": "merge", no x-kubernetes-list-type.
  expect_map_list(at(kind("apiregistration.k8s.io", "v1", "APIService"), {"status", "conditions"}), {"type"});
}

TEST(TypeConverterCatalogTest, ContainerPortProtocolCarriesItsDefaultForTheListKey) {
  // ContainerPort.protocol: "default": "TCP" — smd keys a port without a protocol by it.
  TypeRef port = at(kind("", "v1", "Pod"), {"spec", "containers", "[]", "ports", "[]"});
  ASSERT_NE(port, nullptr);
  const sm::StructField* protocol = nullptr;
  for (const auto& field : port->fields)
    if (field.name == "protocol") protocol = &field;
  ASSERT_NE(protocol, nullptr);
  EXPECT_EQ(protocol->default_value, boost::json::value("TCP"));
  expect_scalar(protocol->type, ScalarKind::kString);
  expect_scalar(port->member_type("containerPort"), ScalarKind::kNumeric);
}

// openapi-gen gives a scalar Go always encodes (not a pointer, no omitempty) its zero value as "default":
// Container.name is {"default": "", "type": "string"}, ContainerPort.containerPort {"default": 0, "format":
// "int32", "type": "integer"}; ContainerPort.name (omitempty) has none.
TEST(TypeConverterCatalogTest, AlwaysEncodedScalarsDefaultToTheirZeroValue) {
  auto default_of = [](TypeRef type, std::string_view name) -> boost::json::value {
    for (const auto& field : type->fields)
      if (field.name == name) return field.default_value;
    ADD_FAILURE() << "no field " << name;
    return nullptr;
  };
  TypeRef container = at(kind("", "v1", "Pod"), {"spec", "containers", "[]"});
  EXPECT_EQ(default_of(container, "name"), boost::json::value(""));
  EXPECT_TRUE(default_of(container, "image").is_null());
  TypeRef port = at(container, {"ports", "[]"});
  EXPECT_EQ(default_of(port, "containerPort"), boost::json::value(0));
  EXPECT_TRUE(default_of(port, "name").is_null());
  // OwnerReference.uid: {"default": "", "type": "string"}.
  EXPECT_EQ(default_of(at(kind("", "v1", "Pod"), {"metadata", "ownerReferences", "[]"}), "uid"),
            boost::json::value(""));
}

TEST(TypeConverterCatalogTest, ObjectMetaMapsAndLists) {
  TypeRef meta = at(kind("", "v1", "ConfigMap"), {"metadata"});
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->name, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  // labels and annotations: maps without x-kubernetes-map-type, i.e. granular.
  expect_map(at(meta, {"labels"}), ElementRelationship::kSeparable);
  expect_scalar(at(meta, {"labels"})->map_element, ScalarKind::kString);
  expect_map(at(meta, {"annotations"}), ElementRelationship::kSeparable);
  // finalizers: "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge".
  expect_set(at(meta, {"finalizers"}));
  // ownerReferences: "x-kubernetes-list-map-keys": ["uid"], "x-kubernetes-list-type": "map".
  expect_map_list(at(meta, {"ownerReferences"}), {"uid"});
  // OwnerReference: "x-kubernetes-map-type": "atomic".
  expect_map(at(meta, {"ownerReferences", "[]"}), ElementRelationship::kAtomic);
  // creationTimestamp: Time, {"type": "string", "format": "date-time"}: an untyped scalar.
  expect_scalar(at(meta, {"creationTimestamp"}), ScalarKind::kUntyped);
  // managedFields[].fieldsV1: FieldsV1, {"type": "object"} without properties: a granular map of deduced members.
  TypeRef fields_v1 = at(meta, {"managedFields", "[]", "fieldsV1"});
  expect_map(fields_v1, ElementRelationship::kSeparable);
  EXPECT_EQ(fields_v1->map_element, builtin().deduced());
  // managedFields: "x-kubernetes-list-type": "atomic".
  expect_atomic_list(at(meta, {"managedFields"}));
}

TEST(TypeConverterCatalogTest, KindsHaveApiVersionAndKindAsStrings) {
  TypeRef config_map = kind("", "v1", "ConfigMap");
  expect_scalar(at(config_map, {"apiVersion"}), ScalarKind::kString);
  expect_scalar(at(config_map, {"kind"}), ScalarKind::kString);
  expect_map(at(config_map, {"data"}), ElementRelationship::kSeparable);
  // binaryData: {"type": "string", "format": "byte"}: a string.
  expect_scalar(at(config_map, {"binaryData"})->map_element, ScalarKind::kString);
  expect_scalar(at(config_map, {"immutable"}), ScalarKind::kBoolean);
  // A kind's own "kind" field is not mistaken for TypeMeta's: ObjectReference.kind is its field.
  TypeRef reference = at(kind("", "v1", "Event"), {"involvedObject"});
  expect_map(reference, ElementRelationship::kAtomic);  // ObjectReference: "x-kubernetes-map-type": "atomic"
  expect_scalar(at(reference, {"kind"}), ScalarKind::kString);
}

TEST(TypeConverterCatalogTest, DeploymentSelectorIsAnAtomicLabelSelector) {
  TypeRef deployment = kind("apps", "v1", "Deployment");
  // LabelSelector: "x-kubernetes-map-type": "atomic" (+structType=atomic).
  TypeRef selector = at(deployment, {"spec", "selector"});
  expect_map(selector, ElementRelationship::kAtomic);
  EXPECT_EQ(selector->name, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector");
  expect_map_list(at(deployment, {"spec", "template", "spec", "containers"}), {"name"});
  expect_map(at(deployment, {"spec", "template", "metadata", "labels"}), ElementRelationship::kSeparable);
  // replicas: integer; strategy.rollingUpdate.maxSurge: IntOrString, {"type": "string", "format": "int-or-string"}.
  expect_scalar(at(deployment, {"spec", "replicas"}), ScalarKind::kNumeric);
  expect_scalar(at(deployment, {"spec", "strategy", "rollingUpdate", "maxSurge"}), ScalarKind::kUntyped);
  // status.conditions: "x-kubernetes-list-map-keys": ["type"], "x-kubernetes-list-type": "map".
  expect_map_list(at(deployment, {"status", "conditions"}), {"type"});
}

TEST(TypeConverterCatalogTest, ServicePortsAreKeyedByPortAndProtocol) {
  TypeRef service = kind("", "v1", "Service");
  // ServiceSpec.ports: "x-kubernetes-list-map-keys": ["port", "protocol"], "x-kubernetes-list-type": "map".
  expect_map_list(at(service, {"spec", "ports"}), {"port", "protocol"});
  // targetPort: IntOrString.
  expect_scalar(at(service, {"spec", "ports", "[]", "targetPort"}), ScalarKind::kUntyped);
  // selector: "x-kubernetes-map-type": "atomic".
  expect_map(at(service, {"spec", "selector"}), ElementRelationship::kAtomic);
}

TEST(TypeConverterCatalogTest, NodeResourcesAreQuantitiesAndTaintsAtomic) {
  TypeRef node = kind("", "v1", "Node");
  // Quantity: hard-coded by schemaconv as an untyped scalar.
  expect_scalar(at(node, {"status", "capacity"})->map_element, ScalarKind::kUntyped);
  EXPECT_EQ(at(node, {"status", "capacity"})->map_element->name, "io.k8s.apimachinery.pkg.api.resource.Quantity");
  // NodeSpec.taints: "x-kubernetes-list-type": "atomic"; podCIDRs: "set" (patch strategy merge).
  expect_atomic_list(at(node, {"spec", "taints"}));
  expect_set(at(node, {"spec", "podCIDRs"}));
  // NodeStatus.addresses: "x-kubernetes-list-map-keys": ["type"], "x-kubernetes-list-type": "map".
  expect_map_list(at(node, {"status", "addresses"}), {"type"});
}

TEST(TypeConverterCatalogTest, ClusterRoleRulesAtomicAndAggregationSelectorsAtomic) {
  TypeRef role = kind("rbac.authorization.k8s.io", "v1", "ClusterRole");
  // ClusterRole.rules: "x-kubernetes-list-type": "atomic"; PolicyRule.verbs: "atomic".
  expect_atomic_list(at(role, {"rules"}));
  expect_atomic_list(at(role, {"rules", "[]", "verbs"}));
  // AggregationRule.clusterRoleSelectors: "x-kubernetes-list-type": "atomic", of atomic LabelSelectors.
  expect_atomic_list(at(role, {"aggregationRule", "clusterRoleSelectors"}));
  expect_map(at(role, {"aggregationRule", "clusterRoleSelectors", "[]"}), ElementRelationship::kAtomic);
}

TEST(TypeConverterCatalogTest, IngressAndNetworkPolicyLists) {
  TypeRef ingress = kind("networking.k8s.io", "v1", "Ingress");
  // IngressSpec.rules and tls, HTTPIngressRuleValue.paths: "x-kubernetes-list-type": "atomic".
  expect_atomic_list(at(ingress, {"spec", "rules"}));
  expect_atomic_list(at(ingress, {"spec", "tls"}));
  expect_atomic_list(at(ingress, {"spec", "rules", "[]", "http", "paths"}));
  TypeRef policy = kind("networking.k8s.io", "v1", "NetworkPolicy");
  // NetworkPolicySpec.ingress/egress/policyTypes: "x-kubernetes-list-type": "atomic"; podSelector: LabelSelector.
  expect_atomic_list(at(policy, {"spec", "ingress"}));
  expect_atomic_list(at(policy, {"spec", "policyTypes"}));
  expect_map(at(policy, {"spec", "podSelector"}), ElementRelationship::kAtomic);
  // NetworkPolicyPort.port: IntOrString.
  expect_scalar(at(policy, {"spec", "ingress", "[]", "ports", "[]", "port"}), ScalarKind::kUntyped);
}

TEST(TypeConverterCatalogTest, RawExtensionIsUntypedAtomic) {
  // schemaconv hard-codes io.k8s.apimachinery.pkg.runtime.RawExtension as its untyped atomic type.
  TypeRef data = at(kind("apps", "v1", "ControllerRevision"), {"data"});
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(data->scalar && data->list && data->map);
  EXPECT_EQ(data->map_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(data->list_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(builtin().find("__untyped_atomic_"), data->map_element);
}

TEST(TypeConverterCatalogTest, UnknownKindHasNoType) {
  EXPECT_EQ(kind_type(builtin(), catalog(), "", "v1", "NoSuchKind"), nullptr);
}

TEST(TypeConverterCatalogTest, EveryMessageIsANamedType) {
  for (const auto* message : catalog().messages()) {
    if (schema::Catalog::special(message) == schema::Special::kStringList) continue;  // inlined, as kube does
    if (message->options().map_entry()) continue;  // protobuf's form of a map field
    EXPECT_NE(builtin().find(schema::Catalog::openapi_name(message)), nullptr) << message->full_name();
  }
}

}  // namespace
}  // namespace kapi::fieldmanager::type_converter_test

// LimitRange, ResourceQuota, PodTemplate, ReplicationController, PersistentVolume, PersistentVolumeClaim and
// ComponentStatus as kube's registries keep them: validation messages and field paths, defaults, printer cells,
// and the ephemeral containers' update rules.
#include "server/apis/core/pod_validation.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/resource_storage.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::core_more_resources_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

TEST(LimitRangeTest, ValidatesBoundsTypesAndRatios) {
  json::object range = parse(R"({"spec":{"limits":[
      {"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"},"maxLimitRequestRatio":{"memory":"500m"}},
      {"type":"Pod","default":{"cpu":"1"}},
      {"type":"PersistentVolumeClaim","max":{"cpu":"1"}},
      {"type":"Other"},
      {"type":"Container","default":{"memory":"1Gi"},"defaultRequest":{"memory":"2Gi"}}]}})");
  EXPECT_EQ(messages(core::validate_limit_range(range)),
            "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1\n"
            "spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: \"500m\": ratio 500m is less than 1\n"
            "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'\n"
            "spec.limits[2].limits: Required value: either minimum or maximum storage value is required, but neither "
            "was provided\n"
            "spec.limits[3].type: Invalid value: \"Other\": must be a standard limit type or fully qualified\n"
            "spec.limits[4].type: Duplicate value: \"Container\"\n"
            "spec.limits[4].defaultRequest[memory]: Invalid value: \"2Gi\": default request value 2Gi is greater "
            "than default limit value 1Gi\n");
}

TEST(LimitRangeTest, ContainerDefaultsComeFromMaxThenMin) {
  ResourceStorage storage = limitranges();
  EXPECT_EQ(storage.definition.short_names, std::vector<std::string>{"limits"});
  json::object range = parse(R"({"metadata":{"name":"l"},"spec":{"limits":[
      {"type":"Container","max":{"cpu":"2"},"min":{"memory":"64Mi"}},{"type":"Pod","max":{"cpu":"4"}}]}})");
  storage.strategy->prepare_for_create(range);
  const auto& container = range["spec"].at("limits").at(0).as_object();
  EXPECT_EQ(json::serialize(container.at("default")), R"({"cpu":"2"})");
  EXPECT_EQ(json::serialize(container.at("defaultRequest")), R"({"cpu":"2","memory":"64Mi"})");
  EXPECT_FALSE(range["spec"].at("limits").at(1).as_object().contains("default"));
}

TEST(ResourceQuotaTest, ValidatesNamesValuesAndScopes) {
  json::object quota = parse(R"({"spec":{"hard":{"widgets":"1","pods":"1.5","cpu":"-1"},
      "scopes":["BestEffort","NotBestEffort"]}})");
  EXPECT_EQ(messages(core::validate_resource_quota(quota)),
            "spec.hard[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\n"
            "spec.hard[pods]: Invalid value: \"1.5\": must be an integer\n"
            "spec.hard[widgets]: Invalid value: \"widgets\": must be a standard resource type or fully qualified\n"
            "spec.hard[widgets]: Invalid value: \"widgets\": must be a standard resource for quota\n"
            "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}: unsupported "
            "scope applied to resource\n"
            "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}: conflicting "
            "scopes\n");
  json::object old = parse(R"({"spec":{"hard":{"pods":"1"},"scopes":["NotTerminating"]}})");
  json::object changed = parse(R"({"spec":{"hard":{"pods":"1"},"scopes":["Terminating"]}})");
  EXPECT_EQ(messages(core::validate_resource_quota_update(changed, old)),
            "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"Terminating\"}: field is immutable\n");
}

TEST(ResourceQuotaTest, ValidatesTheScopeSelector) {
  json::object quota = parse(R"({"spec":{"hard":{"pods":"1"},"scopeSelector":{"matchExpressions":[
      {"scopeName":"Terminating","operator":"In","values":[]},
      {"scopeName":"PriorityClass","operator":"Exists","values":["high"]},
      {"scopeName":"Weekend","operator":"Sometimes"}]}}})");
  EXPECT_EQ(messages(core::validate_resource_quota(quota)),
            "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' only operator when "
            "scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
            "ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort\n"
            "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` "
            "is 'In' or 'NotIn' for scope selector\n"
            "spec.scopeSelector.matchExpressions.values: Invalid value: []string{\"high\"}: must be no value when "
            "`operator` is 'Exist' or 'DoesNotExist' for scope selector\n"
            "spec.scopeSelector.matchExpressions.scopeName: Invalid value: \"Weekend\": unsupported scope\n"
            "spec.scopeSelector.matchExpressions.operator: Invalid value: \"Sometimes\": not a valid selector "
            "operator\n");
  EXPECT_EQ(messages(core::validate_resource_quota(parse(R"({"spec":{"hard":{"quota":"1","example.com/gpu":"1.5"}}})"))),
            "spec.hard[example.com/gpu]: Invalid value: \"1.5\": must be an integer\n"
            "spec.hard[quota]: Invalid value: \"quota\": must be a standard resource type or fully qualified\n"
            "spec.hard[quota]: Invalid value: \"quota\": must be a standard resource for quota\n");
}

TEST(ResourceQuotaTest, PrintsUsedOverHardSplitByLimits) {
  ResourceStorage storage = resourcequotas();
  json::object quota = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"4","limits.cpu":"2","cpu":"1"}},
      "status":{"hard":{"pods":"4","limits.cpu":"2","cpu":"1"},"used":{"pods":"1"}}})");
  json::array cells = storage.strategy->table_cells(quota);
  EXPECT_EQ(cells[2], "cpu: 0/1, pods: 1/4");
  EXPECT_EQ(cells[3], "limits.cpu: 0/2");
  json::object created = parse(R"({"metadata":{"name":"q"},"status":{"used":{"pods":"1"}}})");
  storage.strategy->prepare_for_create(created);
  EXPECT_EQ(created["status"], json::object());
}

TEST(PodTemplateTest, ValidatesTheTemplateAsAPodTemplateSpec) {
  json::object template_ = parse(R"({"metadata":{"labels":{"a b":"c"}},"spec":{"containers":[{"name":"c"}],
      "restartPolicy":"Always","dnsPolicy":"ClusterFirst","ephemeralContainers":[{"name":"e","image":"i"}]}})");
  std::string text = messages(core::validate_pod_template_spec(template_, validation::Path("template")));
  EXPECT_NE(text.find("template.metadata.labels: Invalid value: \"a b\""), std::string::npos) << text;
  EXPECT_NE(text.find("template.spec.containers[0].imagePullPolicy: Required value"), std::string::npos) << text;
  EXPECT_NE(text.find("template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("image: Required"), std::string::npos) << "a template may leave the image out";
  ResourceStorage storage = podtemplates();
  EXPECT_TRUE(storage.strategy->tracks_generation());
  json::object object = parse(R"({"metadata":{"name":"t"},"template":{"metadata":{"labels":{"app":"x"}},
      "spec":{"containers":[{"name":"a","image":"i1"},{"name":"b","image":"i2"}]}}})");
  json::array cells = storage.strategy->table_cells(object);
  EXPECT_EQ(json::serialize(cells), R"(["t","a,b","i1,i2","app=x"])");
}

TEST(ReplicationControllerTest, DefaultsSelectorAndLabelsFromTheTemplate) {
  ResourceStorage storage = replicationcontrollers();
  EXPECT_EQ(storage.definition.categories, std::vector<std::string>{"all"});
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"scale", "status"}));
  EXPECT_EQ(storage.definition.storage_resource, "controllers");
  json::object rc = parse(R"({"metadata":{"name":"rc"},"spec":{"template":{"metadata":{"labels":{"app":"a"}},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}}},"status":{"replicas":3}})");
  storage.strategy->prepare_for_create(rc);
  EXPECT_EQ(json::serialize(rc["spec"].at("selector")), R"({"app":"a"})");
  EXPECT_EQ(json::serialize(rc["metadata"].at("labels")), R"({"app":"a"})");
  EXPECT_EQ(rc["spec"].at("replicas"), 1);
  EXPECT_EQ(json::serialize(rc["status"]), R"({"replicas":0})");
  EXPECT_EQ(rc["spec"].at("template").at("spec").at("restartPolicy"), "Always");
  EXPECT_EQ(messages(core::validate_replication_controller(rc)), "");
  registry::SelectableFields fields;
  storage.strategy->selectable_fields(rc, fields);
  EXPECT_EQ(fields["status.replicas"], "0");
}

TEST(ReplicationControllerTest, ValidatesSelectorAndTemplate) {
  json::object rc = parse(R"({"spec":{"replicas":-1,"selector":{"app":"x"},"template":{"metadata":{"labels":{"app":"y"}},
      "spec":{"restartPolicy":"OnFailure","dnsPolicy":"ClusterFirst","activeDeadlineSeconds":5,
      "containers":[{"name":"c","image":"i","imagePullPolicy":"Always"}]}}}})");
  EXPECT_EQ(messages(core::validate_replication_controller(rc)),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` does not "
            "match template `labels`\n"
            "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"\n"
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is "
            "not Supported\n");
  EXPECT_EQ(messages(core::validate_replication_controller(parse(R"({"spec":{}})"))),
            "spec.selector: Required value\nspec.template: Required value\n");
}

TEST(ReplicationControllerTest, StatusWritesAreCheckedAsKubeChecksThem) {
  ResourceStorage storage = replicationcontrollers();
  json::object old = parse(R"({"spec":{},"status":{"replicas":1}})");
  json::object written = parse(R"({"spec":{},"status":{"replicas":1,"readyReplicas":2,"availableReplicas":3,
      "observedGeneration":-1}})");
  EXPECT_EQ(messages(storage.strategy->validate_subresource_update("status", written, old)),
            "status.observedGeneration: Invalid value: -1: must be greater than or equal to 0\n"
            "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas\n"
            "status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas\n"
            "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas\n");
}

TEST(PersistentVolumeTest, ANewPhaseGetsANewTransitionTime) {
  ResourceStorage storage = persistentvolumes();
  json::object old = parse(R"({"status":{"phase":"Pending","lastPhaseTransitionTime":"2020-01-01T00:00:00Z"}})");
  json::object same = parse(R"({"status":{"phase":"Pending"}})");
  storage.strategy->prepare_for_subresource_update("status", same, old);
  EXPECT_EQ(same["status"].at("lastPhaseTransitionTime"), "2020-01-01T00:00:00Z");
  json::object bound = parse(R"({"status":{"phase":"Bound","lastPhaseTransitionTime":"2020-01-01T00:00:00Z"}})");
  storage.strategy->prepare_for_subresource_update("status", bound, old);
  EXPECT_NE(bound["status"].at("lastPhaseTransitionTime"), "2020-01-01T00:00:00Z");
  json::object chosen = parse(R"({"status":{"phase":"Bound","lastPhaseTransitionTime":"2021-01-01T00:00:00Z"}})");
  storage.strategy->prepare_for_subresource_update("status", chosen, old);
  EXPECT_EQ(chosen["status"].at("lastPhaseTransitionTime"), "2021-01-01T00:00:00Z");
}

TEST(PersistentVolumeTest, ValidatesTheCoreRules) {
  json::object volume = parse(R"({"spec":{"capacity":{"storage":"0","cpu":"1"},"accessModes":["ReadWriteSometimes"],
      "persistentVolumeReclaimPolicy":"Keep","hostPath":{"path":"/a"},"nfs":{"server":"s","path":"/b"},
      "volumeMode":"Raw"}})");
  EXPECT_EQ(messages(core::validate_persistent_volume(volume)),
            "spec.accessModes: Unsupported value: \"ReadWriteSometimes\": supported values: \"ReadOnlyMany\", "
            "\"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"\n"
            "spec.capacity: Unsupported value: core.ResourceList{\"cpu\":1, \"storage\":0}: supported values: "
            "\"storage\"\n"
            "spec.capacity[storage]: Invalid value: \"0\": must be greater than zero\n"
            "spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\": supported values: \"Delete\", "
            "\"Recycle\", \"Retain\"\n"
            "spec.nfs: Forbidden: may not specify more than 1 volume type\n"
            "spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", \"Filesystem\"\n");
  EXPECT_EQ(messages(core::validate_persistent_volume(parse(R"({"spec":{}})"))),
            "spec.accessModes: Required value\n"
            "spec.capacity: Required value\n"
            "spec.capacity: Unsupported value: core.ResourceList{}: supported values: \"storage\"\n"
            "spec: Required value: must specify a volume type\n");
}

TEST(PersistentVolumeTest, ALocalVolumeNeedsNodeAffinity) {
  json::object local = parse(R"({"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
      "local":{"path":"/mnt/disk"}}})");
  EXPECT_EQ(messages(core::validate_persistent_volume(local)),
            "spec.nodeAffinity: Required value: Local volume requires node affinity\n");
}

TEST(PersistentVolumeTest, CreatedPendingAndPrinted) {
  ResourceStorage storage = persistentvolumes();
  EXPECT_FALSE(storage.definition.namespaced);
  json::object volume = parse(R"({"metadata":{"name":"pv"},"spec":{"capacity":{"storage":"5Gi"},
      "accessModes":["ReadWriteMany","ReadWriteOnce"],"persistentVolumeReclaimPolicy":"Retain",
      "claimRef":{"namespace":"ns","name":"c"},"storageClassName":"fast","volumeMode":"Block",
      "volumeAttributesClassName":"gold","hostPath":{"path":"/x"}},"status":{"phase":"Bound"}})");
  storage.strategy->prepare_for_create(volume);
  EXPECT_EQ(volume["status"].at("phase"), "Pending");
  EXPECT_TRUE(volume["status"].as_object().contains("lastPhaseTransitionTime"));
  EXPECT_FALSE(volume["spec"].as_object().contains("volumeAttributesClassName")) << "the feature gate is off";
  json::array cells = storage.strategy->table_cells(volume);
  cells.erase(cells.begin() + 9);  // the age
  EXPECT_EQ(json::serialize(cells), R"(["pv","5Gi","RWO,RWX","Retain","Pending","ns/c","fast","<unset>","","Block"])");
}

TEST(PersistentVolumeClaimTest, ValidatesAndKeepsTheSpec) {
  const std::string invalid =
      messages(core::validate_persistent_volume_claim(parse(R"({"spec":{"storageClassName":"Bad_Class"}})")));
  EXPECT_EQ(invalid.rfind("spec.accessModes: Required value: at least 1 access mode is required\n"
                          "spec.resources[storage]: Required value\n"
                          "spec.storageClassName: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain",
                          0),
            0u)
      << invalid;
  json::object old = parse(R"({"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}},
      "status":{"phase":"Pending"}})");
  json::object named = old;
  named["spec"].as_object()["volumeName"] = "pv";
  EXPECT_EQ(messages(core::validate_persistent_volume_claim_update(named, old)), "");
  json::object grown = parse(R"({"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}},
      "status":{"phase":"Pending"}})");
  EXPECT_NE(messages(core::validate_persistent_volume_claim_update(grown, old))
                .find("spec: Forbidden: spec is immutable after creation except resources.requests and "
                      "volumeAttributesClassName for bound claims"),
            std::string::npos);
  grown["status"].as_object()["phase"] = "Bound";
  EXPECT_EQ(messages(core::validate_persistent_volume_claim_update(grown, old)), "");
}

TEST(ComponentStatusTest, GetAndListOnlyWithKubesColumns) {
  ResourceStorage storage = componentstatuses();
  EXPECT_EQ(storage.definition.verbs, (std::vector<std::string>{"get", "list"}));
  EXPECT_EQ(storage.strategy->request_warnings(), std::vector<std::string>{"v1 ComponentStatus is deprecated in v1.19+"});
  json::object unhealthy = parse(R"({"metadata":{"name":"etcd-0"},"conditions":[
      {"type":"Healthy","status":"False","error":"connection refused"}]})");
  EXPECT_EQ(json::serialize(storage.strategy->table_cells(unhealthy)), R"(["etcd-0","Unhealthy","","connection refused"])");
}

TEST(EphemeralContainersTest, OnlyTheSubresourceMayAddThem) {
  ResourceStorage storage = pods({}, nullptr);
  json::object old = parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"web","image":"nginx"}]}})");
  storage.strategy->prepare_for_create(old);
  json::object added = old;
  added["spec"].as_object()["ephemeralContainers"] = json::array{json::object{{"name", "debug"}, {"image", "busybox"}}};
  storage.strategy->prepare_for_subresource_update("ephemeralcontainers", added, old);
  EXPECT_EQ(added["spec"].at("ephemeralContainers").at(0).at("imagePullPolicy"), "Always");
  EXPECT_EQ(messages(storage.strategy->validate_subresource_update("ephemeralcontainers", added, old)), "");
  // A main-resource update may not change them (ValidatePodUpdate's spec comparison).
  EXPECT_NE(messages(storage.strategy->validate_update(added, old)).find("spec: Forbidden: pod updates may not change"),
            std::string::npos);
}

TEST(EphemeralContainersTest, ExistingOnesMayNotChangeOrGo) {
  json::object old = parse(R"({"metadata":{"name":"p"},"spec":{"ephemeralContainers":[{"name":"a","image":"busybox"},
      {"name":"b","image":"busybox"}]}})");
  json::object changed = parse(R"({"metadata":{"name":"p"},"spec":{"ephemeralContainers":[{"name":"a","image":"alpine"},
      {"name":"c","image":"busybox"}]}})");
  std::string text = messages(core::validate_ephemeral_containers_update(changed, old));
  EXPECT_NE(text.find("spec.ephemeralContainers: Forbidden: existing ephemeral containers \"a\" may not be changed\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("spec.ephemeralContainers: Forbidden: existing ephemeral containers \"b\" may not be removed\n"),
            std::string::npos)
      << text;
  json::object pod = parse(R"({"spec":{"containers":[{"name":"web","image":"nginx","imagePullPolicy":"Always"}],
      "restartPolicy":"Always","dnsPolicy":"ClusterFirst","ephemeralContainers":[{"name":"web","image":"busybox",
      "imagePullPolicy":"Always","resources":{"limits":{"cpu":"1"}},"targetContainerName":"db",
      "volumeMounts":[]}]}})");
  EXPECT_EQ(messages(core::validate_pod(pod)),
            "spec.ephemeralContainers[0].name: Duplicate value: \"web\"\n"
            "spec.ephemeralContainers[0].targetContainerName: Not found: \"db\"\n"
            "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container\n");
}

}  // namespace
}  // namespace kapi::apis::core_more_resources_test

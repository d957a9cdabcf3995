// The rest of core/v1 through the real kubectl and raw HTTPS: limitranges, resourcequotas, podtemplates,
// replicationcontrollers, persistentvolumes and persistentvolumeclaims each created, read (plain, -o wide, list,
// a bounded watch), replaced, patched and deleted; kube's defaults and 422 causes; the status and scale
// subresources; componentstatuses, bindings and pods/ephemeralcontainers; the discovery rows kubectl shows.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <chrono>
#include <filesystem>
#include <thread>

namespace kapi::integration::core_more_resources_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kMergePatch{{"Content-Type", "application/merge-patch+json"}};
const Headers kStrategicPatch{{"Content-Type", "application/strategic-merge-patch+json"}};

// One kind's round through kubectl: its manifest, what `get` and `get -o wide` print first, a replacement.
struct KindCase {
  std::string resource;  // "limitranges"
  std::string name;
  std::string manifest;
  std::string header;       // the first line of `kubectl get <resource>`
  std::string wide_header;  // of `kubectl get <resource> -o wide`
  std::string replacement;  // the manifest again, changed, for `kubectl replace`
};

const std::string kLimitRange = R"(apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    max:
      cpu: "1"
    min:
      cpu: 100m
)";

const std::string kQuota = R"(apiVersion: v1
kind: ResourceQuota
metadata:
  name: quota
spec:
  hard:
    pods: "10"
    requests.cpu: "1"
    limits.memory: 1Gi
)";

const std::string kPodTemplate = R"(apiVersion: v1
kind: PodTemplate
metadata:
  name: template
template:
  metadata:
    labels:
      app: web
  spec:
    containers:
    - name: web
      image: nginx:1.25
)";

const std::string kReplicationController = R"(apiVersion: v1
kind: ReplicationController
metadata:
  name: rc
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: rc
    spec:
      containers:
      - name: web
        image: nginx:1.25
)";

const std::string kPersistentVolume = R"(apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
spec:
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /tmp/pv1
)";

const std::string kClaim = R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claim
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
)";

std::string replaced(std::string manifest, const std::string& from, const std::string& to) {
  manifest.replace(manifest.find(from), from.size(), to);
  return manifest;
}

std::vector<KindCase> kind_cases() {
  return {
      {"limitranges", "limits", kLimitRange, "NAME CREATED AT", "NAME CREATED AT",
       replaced(kLimitRange, "cpu: \"1\"", "cpu: \"2\"")},
      {"resourcequotas", "quota", kQuota, "NAME AGE REQUEST LIMIT",
       "NAME AGE REQUEST LIMIT", replaced(kQuota, "pods: \"10\"", "pods: \"20\"")},
      {"podtemplates", "template", kPodTemplate, "NAME CONTAINERS IMAGES POD LABELS",
       "NAME CONTAINERS IMAGES POD LABELS", replaced(kPodTemplate, "nginx:1.25", "nginx:1.26")},
      {"replicationcontrollers", "rc", kReplicationController, "NAME DESIRED CURRENT READY AGE",
       "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR",
       replaced(kReplicationController, "replicas: 2", "replicas: 1")},
      {"persistentvolumes", "pv1", kPersistentVolume,
       "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE",
       "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE",
       replaced(kPersistentVolume, "  name: pv1\n", "  name: pv1\n  labels:\n    tier: gold\n")},
      {"persistentvolumeclaims", "claim", kClaim,
       "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE",
       "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE",
       replaced(kClaim, "  name: claim\n", "  name: claim\n  labels:\n    tier: gold\n")},
  };
}

// The first line with its column padding collapsed to single spaces.
std::string first_line(const std::string& text) {
  std::string squeezed;
  for (char c : text.substr(0, text.find('\n')))
    if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

const Headers kTable{{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}};

// The cells of a server-side Table's first row, without the age (`age_column`), as JSON.
std::string row_cells(const HttpResponse& response, std::size_t age_column) {
  auto table = json_object(response.body);
  const auto* rows = table.if_contains("rows");
  if (!rows || !rows->is_array() || rows->as_array().empty()) return response.body;
  json::array cells = rows->as_array()[0].at("cells").as_array();
  cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(age_column));
  return json::serialize(cells);
}

std::vector<std::string> cause_fields(const HttpResponse& response) {
  std::vector<std::string> fields;
  auto status = json_object(response.body);
  const auto* details = status.if_contains("details");
  if (!details || !details->is_object()) return fields;
  if (const auto* causes = details->as_object().if_contains("causes"); causes && causes->is_array())
    for (const auto& cause : causes->as_array())
      fields.push_back(std::string(cause.at("field").as_string()) + ": " + std::string(cause.at("message").as_string()));
  return fields;
}

bool has_cause(const HttpResponse& response, const std::string& wanted) {
  for (const auto& cause : cause_fields(response))
    if (cause.find(wanted) != std::string::npos) return true;
  return false;
}

std::string causes_text(const HttpResponse& response) {
  std::string out;
  for (const auto& cause : cause_fields(response)) out += cause + "\n";
  return out.empty() ? response.body : out;
}

class CoreMoreResourcesTest : public KapiSuite<CoreMoreResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  std::string apply_file(const std::string& name, const std::string& manifest) {
    return write_manifest(kapi(), name, manifest);
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(CoreMoreResourcesTest, EveryKindGoesThroughKubectl) {
  for (const auto& kind : kind_cases()) {
    SCOPED_TRACE(kind.resource);
    const std::string file = apply_file(kind.resource + ".yaml", kind.manifest);
    CommandResult created = kubectl("create -f " + file);
    ASSERT_EQ(created.exit_code, 0) << created.output;
    CommandResult got = kubectl("get " + kind.resource + " " + kind.name);
    EXPECT_EQ(first_line(got.output), kind.header) << got.output;
    CommandResult wide = kubectl("get " + kind.resource + " " + kind.name + " -o wide");
    EXPECT_EQ(first_line(wide.output), kind.wide_header) << wide.output;
    CommandResult listed = kubectl("get " + kind.resource + " -o name");
    EXPECT_NE(listed.output.find("/" + kind.name + "\n"), std::string::npos) << listed.output;
    // A bounded watch: the current object arrives as the first event, then kubectl is ended by its time bound.
    CommandResult watched = kubectl("get " + kind.resource + " -w -o name", 3);
    EXPECT_EQ(watched.exit_code, 124) << watched.output;
    EXPECT_NE(watched.output.find("/" + kind.name), std::string::npos) << watched.output;
    CommandResult replaced_object = kubectl("replace -f " + apply_file(kind.resource + "-2.yaml", kind.replacement));
    EXPECT_EQ(replaced_object.exit_code, 0) << replaced_object.output;
    CommandResult patched = kubectl("patch " + kind.resource + " " + kind.name +
                                    " --type=merge -p '{\"metadata\":{\"annotations\":{\"touched\":\"yes\"}}}'");
    EXPECT_EQ(patched.exit_code, 0) << patched.output;
    EXPECT_EQ(kubectl("get " + kind.resource + " " + kind.name + " -o jsonpath={.metadata.annotations.touched}").output,
              "yes");
    CommandResult deleted = kubectl("delete " + kind.resource + " " + kind.name);
    EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
    EXPECT_EQ(kubectl("get " + kind.resource + " " + kind.name).exit_code, 1);
  }
}

TEST_F(CoreMoreResourcesTest, DiscoveryRowsMatchKube) {
  CommandResult resources = kubectl("api-resources --api-group= -o wide");
  ASSERT_EQ(resources.exit_code, 0) << resources.output;
  auto row = [&](const std::string& name) {
    const auto at = resources.output.find("\n" + name + " ");
    if (at == std::string::npos) return std::string();
    const auto end = resources.output.find('\n', at + 1);
    std::string line = resources.output.substr(at + 1, end - at - 1);
    // Columns are padded: compare with single spaces.
    std::string squeezed;
    for (char c : line)
      if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
    while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
    return squeezed;
  };
  EXPECT_EQ(row("bindings"), "bindings v1 true Binding create") << resources.output;
  EXPECT_EQ(row("componentstatuses"), "componentstatuses cs v1 false ComponentStatus get,list");
  EXPECT_EQ(row("limitranges"),
            "limitranges limits v1 true LimitRange create,delete,deletecollection,get,list,patch,update,watch");
  EXPECT_EQ(row("persistentvolumeclaims"), "persistentvolumeclaims pvc v1 true PersistentVolumeClaim "
                                           "create,delete,deletecollection,get,list,patch,update,watch");
  EXPECT_EQ(row("persistentvolumes"), "persistentvolumes pv v1 false PersistentVolume "
                                      "create,delete,deletecollection,get,list,patch,update,watch");
  EXPECT_EQ(row("podtemplates"),
            "podtemplates v1 true PodTemplate create,delete,deletecollection,get,list,patch,update,watch");
  EXPECT_EQ(row("replicationcontrollers"), "replicationcontrollers rc v1 true ReplicationController "
                                           "create,delete,deletecollection,get,list,patch,update,watch all");
  EXPECT_EQ(row("resourcequotas"),
            "resourcequotas quota v1 true ResourceQuota create,delete,deletecollection,get,list,patch,update,watch");

  CommandResult subresources = kubectl("get --raw /api/v1");
  for (const char* subresource :
       {"\"name\":\"pods/ephemeralcontainers\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"Pod\","
        "\"verbs\":[\"get\",\"patch\",\"update\"]",
        "\"name\":\"replicationcontrollers/scale\",\"singularName\":\"\",\"namespaced\":true,\"group\":\"autoscaling\","
        "\"version\":\"v1\",\"kind\":\"Scale\"",
        "\"name\":\"replicationcontrollers/status\"", "\"name\":\"resourcequotas/status\"",
        "\"name\":\"persistentvolumes/status\"", "\"name\":\"persistentvolumeclaims/status\""})
    EXPECT_NE(subresources.output.find(subresource), std::string::npos) << subresource << "\n" << subresources.output;
}

TEST_F(CoreMoreResourcesTest, LimitRangeDefaultsAndValidation) {
  ASSERT_EQ(kubectl("create -f " + apply_file("lr.yaml", replaced(kLimitRange, "name: limits", "name: lr"))).exit_code, 0);
  // SetDefaults_LimitRangeItem: the default limit is the max, the default request the default limit.
  EXPECT_EQ(kubectl("get limits lr -o jsonpath={.spec.limits[0].default.cpu}/{.spec.limits[0].defaultRequest.cpu}").output,
            "1/1");
  HttpResponse invalid = call("POST", "/api/v1/namespaces/default/limitranges",
                              R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"bad"},"spec":{"limits":[)"
                              R"({"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"}},)"
                              R"({"type":"Pod","default":{"cpu":"1"}},{"type":"Other"}]}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1"))
      << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'"))
      << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.limits[2].type: Invalid value: \"Other\": must be a standard limit type or fully qualified"))
      << causes_text(invalid);
  kubectl("delete limits lr");
}

TEST_F(CoreMoreResourcesTest, ResourceQuotaStatusAndValidation) {
  const std::string path = "/api/v1/namespaces/default/resourcequotas";
  HttpResponse created = call("POST", path,
                              R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"rq"},)"
                              R"("spec":{"hard":{"pods":"4","limits.cpu":"2"},"scopes":["NotBestEffort"]},)"
                              R"("status":{"used":{"pods":"3"}}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["status"], json::object()) << created.body;  // stripped on create
  // The resource quota controller measures the new quota; a status written before it would be measured over.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       std::chrono::steady_clock::now() < deadline;) {
    const json::object quota = json_object(call("GET", path + "/rq").body);
    const json::value* measured = quota.if_contains("status");
    if (measured && measured->is_object() && measured->as_object().contains("used")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  HttpResponse status = call("PATCH", path + "/rq/status",
                             R"({"status":{"hard":{"pods":"4","limits.cpu":"2"},"used":{"pods":"1","limits.cpu":"500m"}},)"
                             R"("spec":{"hard":{"pods":"9"}}})",
                             kMergePatch);
  ASSERT_EQ(status.status, 200) << status.body;
  CommandResult got = kubectl("get quota rq");
  EXPECT_NE(got.output.find("pods: 1/4   limits.cpu: 500m/2"), std::string::npos) << got.output;
  EXPECT_EQ(kubectl("get quota rq -o jsonpath={.spec.hard.pods}").output, "4");  // the status write kept spec

  HttpResponse scopes = call("PATCH", path + "/rq", R"({"spec":{"scopes":["BestEffort"]}})", kMergePatch);
  ASSERT_TRUE(is_status(scopes, 422, "Invalid")) << scopes.body;
  EXPECT_TRUE(has_cause(scopes, "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\"}: field is immutable"))
      << causes_text(scopes);
  HttpResponse invalid = call("POST", path,
                              R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"bad"},)"
                              R"("spec":{"hard":{"widgets":"1","pods":"1.5"}}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "spec.hard[widgets]: Invalid value: \"widgets\": must be a standard resource type or fully qualified"))
      << causes_text(invalid);
  // The decoder holds the quantity in its canonical spelling, as kube's typed decoding does, before validation.
  EXPECT_TRUE(has_cause(invalid, "spec.hard[pods]: Invalid value: \"1500m\": must be an integer")) << causes_text(invalid);
  kubectl("delete quota rq");

  // kubectl's generator, which sends a protobuf ResourceQuota.
  EXPECT_EQ(kubectl("create quota compute --hard=cpu=1,memory=1G,pods=2 --scopes=NotTerminating").output,
            "resourcequota/compute created\n");
  EXPECT_EQ(kubectl("get quota compute -o jsonpath={.spec.hard.cpu}/{.spec.hard.pods}/{.spec.scopes[0]}").output,
            "1/2/NotTerminating");
  kubectl("delete quota compute");
}

TEST_F(CoreMoreResourcesTest, PodTemplateCountsGenerationsAndValidates) {
  ASSERT_EQ(kubectl("create -f " + apply_file("pt.yaml", replaced(kPodTemplate, "name: template", "name: pt"))).exit_code, 0);
  CommandResult got = kubectl("get podtemplates pt");
  EXPECT_NE(got.output.find("pt     web          nginx:1.25   app=web"), std::string::npos) << got.output;
  EXPECT_EQ(kubectl("get podtemplate pt -o jsonpath={.metadata.generation}/{.template.spec.restartPolicy}").output,
            "1/Always");
  kubectl("patch podtemplate pt --type=json -p '[{\"op\":\"replace\",\"path\":\"/template/spec/containers/0/image\","
          "\"value\":\"nginx:1.26\"}]'");
  EXPECT_EQ(kubectl("get podtemplate pt -o jsonpath={.metadata.generation}").output, "2");
  HttpResponse invalid = call("POST", "/api/v1/namespaces/default/podtemplates",
                              R"({"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"bad"},)"
                              R"("template":{"spec":{"containers":[]}}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "template.spec.containers: Required value")) << causes_text(invalid);
  kubectl("delete podtemplate pt");
}

TEST_F(CoreMoreResourcesTest, ReplicationControllerDefaultsScaleAndStatus) {
  ASSERT_EQ(kubectl("create -f " + apply_file("rc.yaml", replaced(kReplicationController, "name: rc", "name: web"))).exit_code, 0);
  // SetDefaults_ReplicationController: selector and labels from the template.
  EXPECT_EQ(kubectl("get rc web -o jsonpath={.spec.selector.app}/{.metadata.labels.app}/{.metadata.generation}").output,
            "rc/rc/1");
  CommandResult wide = kubectl("get rc web -o wide");
  EXPECT_NE(wide.output.find("web    2         0         0       "), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("web          nginx:1.25   app=rc"), std::string::npos) << wide.output;

  EXPECT_EQ(kubectl("scale rc web --replicas=3").output, "replicationcontroller/web scaled\n");
  EXPECT_EQ(kubectl("get rc web -o jsonpath={.spec.replicas}/{.metadata.generation}").output, "3/2");
  CommandResult scale = kubectl("get --raw /api/v1/namespaces/default/replicationcontrollers/web/scale");
  EXPECT_NE(scale.output.find("\"kind\":\"Scale\""), std::string::npos) << scale.output;
  EXPECT_NE(scale.output.find("\"selector\":\"app=rc\""), std::string::npos) << scale.output;

  kubectl("patch rc web --type=merge -p '{\"status\":{\"replicas\":5}}'");
  EXPECT_EQ(kubectl("get rc web -o jsonpath={.status.replicas}").output, "0");
  kubectl("patch rc web --subresource=status --type=merge -p '{\"status\":{\"replicas\":2,\"readyReplicas\":1},"
          "\"spec\":{\"replicas\":9}}'");
  EXPECT_EQ(kubectl("get rc web -o jsonpath={.status.replicas}/{.spec.replicas}/{.metadata.generation}").output, "2/3/2");
  EXPECT_EQ(kubectl("get rc --field-selector=status.replicas=2 -o name").output, "replicationcontroller/web\n");
  EXPECT_EQ(kubectl("get rc --field-selector=status.replicas=7 -o name").output, "");

  HttpResponse invalid = call("POST", "/api/v1/namespaces/default/replicationcontrollers",
                              R"({"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"bad"},)"
                              R"("spec":{"selector":{"app":"x"},"template":{"metadata":{"labels":{"app":"y"}},)"
                              R"("spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: "
                                 "`selector` does not match template `labels`"))
      << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""))
      << causes_text(invalid);
  kubectl("delete rc web");
}

TEST_F(CoreMoreResourcesTest, PersistentVolumeStartsPendingWithDefaults) {
  ASSERT_EQ(kubectl("create -f " + apply_file("pv.yaml", replaced(kPersistentVolume, "name: pv1", "name: pv2"))).exit_code, 0);
  CommandResult fields = kubectl("get pv pv2 -o jsonpath={.status.phase}/{.spec.persistentVolumeReclaimPolicy}/"
                                 "{.spec.volumeMode}");
  EXPECT_EQ(fields.output, "Pending/Retain/Filesystem");
  EXPECT_NE(kubectl("get pv pv2 -o jsonpath={.status.lastPhaseTransitionTime}").output, "");
  HttpResponse row = call("GET", "/api/v1/persistentvolumes/pv2", "", kTable);
  EXPECT_EQ(row_cells(row, 9), R"(["pv2","1Gi","RWO","Retain","Pending","","","<unset>","","Filesystem"])");
  HttpResponse status = call("PATCH", "/api/v1/persistentvolumes/pv2/status",
                             R"({"status":{"phase":"Available"},"spec":{"persistentVolumeReclaimPolicy":"Delete"}})",
                             kMergePatch);
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(kubectl("get pv pv2 -o jsonpath={.status.phase}/{.spec.persistentVolumeReclaimPolicy}").output,
            "Available/Retain");
  HttpResponse source = call("PATCH", "/api/v1/persistentvolumes/pv2", R"({"spec":{"hostPath":{"path":"/other"}}})",
                             kMergePatch);
  ASSERT_TRUE(is_status(source, 422, "Invalid")) << source.body;
  EXPECT_TRUE(has_cause(source, "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation"))
      << causes_text(source);
  HttpResponse invalid = call("POST", "/api/v1/persistentvolumes",
                              R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"bad"},)"
                              R"("spec":{"persistentVolumeReclaimPolicy":"Keep"}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "spec.accessModes: Required value")) << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.capacity: Required value")) << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\"")) << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec: Required value: must specify a volume type")) << causes_text(invalid);
  // StorageObjectInUseProtection gave the volume kubernetes.io/pv-protection and kapi runs no pv-protection
  // controller (kube-controller-manager's): the test drops the finalizer as it does for an unbound volume.
  kubectl("delete pv pv2 --wait=false");
  HttpResponse released = call("PATCH", "/api/v1/persistentvolumes/pv2", R"({"metadata":{"finalizers":null}})",
                               kMergePatch);
  EXPECT_EQ(released.status, 200) << released.body;
  EXPECT_TRUE(is_status(call("GET", "/api/v1/persistentvolumes/pv2"), 404, "NotFound"));
}

TEST_F(CoreMoreResourcesTest, PersistentVolumeClaimIsImmutableButForItsVolume) {
  const std::string path = "/api/v1/namespaces/default/persistentvolumeclaims";
  ASSERT_EQ(kubectl("create -f " + apply_file("pvc.yaml", replaced(kClaim, "name: claim", "name: data"))).exit_code, 0);
  EXPECT_EQ(kubectl("get pvc data -o jsonpath={.status.phase}/{.spec.volumeMode}").output, "Pending/Filesystem");
  HttpResponse grow = call("PATCH", path + "/data", R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})",
                           kMergePatch);
  ASSERT_TRUE(is_status(grow, 422, "Invalid")) << grow.body;
  EXPECT_TRUE(has_cause(grow, "spec: Forbidden: spec is immutable after creation except resources.requests and "
                              "volumeAttributesClassName for bound claims"))
      << causes_text(grow);
  HttpResponse bind = call("PATCH", path + "/data", R"({"spec":{"volumeName":"pv-data"}})", kMergePatch);
  ASSERT_EQ(bind.status, 200) << bind.body;
  HttpResponse bound = call("PATCH", path + "/data/status",
                            R"({"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"}}})",
                            kMergePatch);
  ASSERT_EQ(bound.status, 200) << bound.body;
  HttpResponse row = call("GET", path + "/data", "", kTable);
  EXPECT_EQ(row_cells(row, 7), R"(["data","Bound","pv-data","1Gi","RWO","","<unset>","Filesystem"])");
  // A bound claim passes validation when it grows, but PersistentVolumeClaimResize refuses it: it has no
  // StorageClass that allows expansion.
  HttpResponse expand = call("PATCH", path + "/data", R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})",
                             kMergePatch);
  EXPECT_TRUE(is_status(expand, 403, "Forbidden")) << expand.body;
  EXPECT_EQ(status_message(expand),
            "persistentvolumeclaims \"data\" is forbidden: only dynamically provisioned pvc can be resized and the "
            "storageclass that provisions the pvc must support resize");
  HttpResponse invalid = call("POST", path,
                              R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"bad"},)"
                              R"("spec":{"accessModes":["ReadWriteOncePod","ReadOnlyMany"]}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_TRUE(has_cause(invalid, "spec.resources[storage]: Required value")) << causes_text(invalid);
  EXPECT_TRUE(has_cause(invalid, "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"))
      << causes_text(invalid);
  // StorageObjectInUseProtection gave the claim kubernetes.io/pvc-protection: deleting it only marks it. kapi runs
  // no pvc-protection controller (kube-controller-manager's), so the test drops the finalizer as that controller
  // does for a claim no pod uses.
  kubectl("delete pvc data --wait=false");
  HttpResponse released = call("PATCH", path + "/data", R"({"metadata":{"finalizers":null}})", kMergePatch);
  EXPECT_EQ(released.status, 200) << released.body;
  EXPECT_TRUE(is_status(call("GET", path + "/data"), 404, "NotFound"));
}

TEST_F(CoreMoreResourcesTest, ComponentStatusesReportTheStorage) {
  CommandResult got = kubectl("get cs");
  EXPECT_EQ(got.exit_code, 0) << got.output;
  EXPECT_NE(got.output.find("Warning: v1 ComponentStatus is deprecated in v1.19+"), std::string::npos) << got.output;
  EXPECT_NE(got.output.find("NAME     STATUS    MESSAGE   ERROR\netcd-0   Healthy   ok"), std::string::npos)
      << got.output;
  HttpResponse one = call("GET", "/api/v1/componentstatuses/etcd-0");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(json_object(one.body)["conditions"].at(0).at("type"), "Healthy") << one.body;
  EXPECT_TRUE(is_status(call("GET", "/api/v1/componentstatuses/scheduler"), 404, "NotFound"));
  EXPECT_TRUE(is_status(call("DELETE", "/api/v1/componentstatuses/etcd-0"), 405, "MethodNotAllowed"));
}

TEST_F(CoreMoreResourcesTest, BindingsAssignThePodTheyName) {
  ASSERT_EQ(kubectl("run bound --image=nginx:1.25").exit_code, 0);
  HttpResponse bound = call("POST", "/api/v1/namespaces/default/bindings",
                            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"bound"},)"
                            R"("target":{"kind":"Node","name":"node-1"}})");
  ASSERT_EQ(bound.status, 201) << bound.body;
  EXPECT_EQ(json_object(bound.body)["status"], "Success") << bound.body;
  EXPECT_EQ(kubectl("get pod bound -o jsonpath={.spec.nodeName}").output, "node-1");
  HttpResponse again = call("POST", "/api/v1/namespaces/default/bindings",
                            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"bound"},)"
                            R"("target":{"kind":"Node","name":"node-2"}})");
  EXPECT_TRUE(is_status(again, 409, "Conflict")) << again.body;
  EXPECT_TRUE(is_status(call("GET", "/api/v1/namespaces/default/bindings"), 405, "MethodNotAllowed"));
  kubectl("delete pod bound --grace-period=0 --force");
}

TEST_F(CoreMoreResourcesTest, EphemeralContainersAreAddedThroughTheirSubresource) {
  ASSERT_EQ(kubectl("run debugged --image=nginx:1.25").exit_code, 0);
  const std::string path = "/api/v1/namespaces/default/pods/debugged/ephemeralcontainers";
  HttpResponse added = call("PATCH", path,
                            R"({"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox",)"
                            R"("targetContainerName":"debugged","stdin":true}],"nodeName":"elsewhere"}})",
                            kStrategicPatch);
  ASSERT_EQ(added.status, 200) << added.body;
  auto pod = json_object(added.body);
  const auto& ephemeral = pod["spec"].at("ephemeralContainers").at(0).as_object();
  EXPECT_EQ(ephemeral.at("name"), "debugger");
  EXPECT_EQ(ephemeral.at("imagePullPolicy"), "Always");  // defaulted as kube's decoding defaults it
  EXPECT_EQ(pod["spec"].as_object().if_contains("nodeName"), nullptr) << "only ephemeral containers change";

  HttpResponse changed = call("PATCH", path,
                              R"({"spec":{"ephemeralContainers":[{"name":"debugger","image":"alpine"}]}})",
                              kStrategicPatch);
  ASSERT_TRUE(is_status(changed, 422, "Invalid")) << changed.body;
  EXPECT_TRUE(has_cause(changed, "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be changed"))
      << causes_text(changed);
  // Strategic merge puts a new element of the patch before those only the server has (normalizeElementOrder).
  HttpResponse ports = call("PATCH", path,
                            R"({"spec":{"ephemeralContainers":[{"name":"web2","image":"busybox",)"
                            R"("ports":[{"containerPort":80}],"targetContainerName":"nope"}]}})",
                            kStrategicPatch);
  ASSERT_TRUE(is_status(ports, 422, "Invalid")) << ports.body;
  EXPECT_TRUE(has_cause(ports, "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"))
      << causes_text(ports);
  EXPECT_TRUE(has_cause(ports, "spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"")) << causes_text(ports);

  // The pod itself may not change them (ValidatePodUpdate).
  HttpResponse main_write = call("PATCH", "/api/v1/namespaces/default/pods/debugged",
                                 R"({"spec":{"ephemeralContainers":[{"name":"sneaky","image":"busybox"}]}})",
                                 kStrategicPatch);
  ASSERT_TRUE(is_status(main_write, 422, "Invalid")) << main_write.body;
  EXPECT_TRUE(has_cause(main_write, "spec: Forbidden: pod updates may not change fields other than"))
      << causes_text(main_write);

  // kubectl debug adds one with a strategic merge patch of the subresource.
  CommandResult debug = kubectl("debug debugged --image=busybox -c second");
  EXPECT_EQ(debug.exit_code, 0) << debug.output;
  EXPECT_EQ(kubectl("get pod debugged -o jsonpath={.spec.ephemeralContainers[*].name}").output, "debugger second");
  EXPECT_EQ(call("GET", path).status, 200);
  kubectl("delete pod debugged --grace-period=0 --force");
}

// On a real etcd, each kind is kept under kube's key: replication controllers under "controllers", as kube has
// always stored them, the others under their resource name.
TEST(CoreMoreResourcesKeysTest, StoredUnderKubesKeys) {
  test_support::EtcdProcess etcd;
  KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  for (const auto& kind : kind_cases()) {
    CommandResult created = run_kubectl(kapi, "create -f " + write_manifest(kapi, kind.resource + ".yaml", kind.manifest));
    ASSERT_EQ(created.exit_code, 0) << created.output;
  }
  const std::string keys = etcd.etcdctl("get /registry --prefix --keys-only");
  for (const char* key : {"/registry/limitranges/default/limits", "/registry/resourcequotas/default/quota",
                          "/registry/podtemplates/default/template", "/registry/controllers/default/rc",
                          "/registry/persistentvolumes/pv1", "/registry/persistentvolumeclaims/default/claim"})
    EXPECT_NE(keys.find(key), std::string::npos) << key << " missing from\n" << keys;
  EXPECT_EQ(keys.find("/registry/componentstatuses"), std::string::npos) << "componentstatuses are not stored";
  EXPECT_EQ(kapi.shut_down(std::chrono::seconds(20)), 0) << kapi.logs();
}

}  // namespace
}  // namespace kapi::integration::core_more_resources_test

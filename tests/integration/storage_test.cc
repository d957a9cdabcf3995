// storage.k8s.io/v1 through the real kubectl 1.32 on both stores: StorageClasses (defaults, the "(default)"
// marker, the immutable-parameters 422), CSIDrivers (defaults, printer), CSINodes and CSIStorageCapacities
// and VolumeAttachments (create, get, -o wide, list, watch, apply, replace, patch, status, delete), and every new
// kind of this part (networking, discovery, storage) written and read as protobuf.
#include "server/schema/transcoder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>
#include <regex>

namespace kapi::integration::storage_test {
namespace {

namespace json = boost::json;

using Headers = std::vector<std::pair<std::string, std::string>>;
const Headers kJson{{"Content-Type", "application/json"}};

class StorageTest : public KapiSuite<StorageTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
  std::string apply(const std::string& name, const std::string& manifest) {
    return kubectl("apply -f " + write_manifest(kapi(), name, manifest)).output;
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

bool has_line(const std::string& output, const std::string& pattern) {
  return std::regex_search(output, std::regex(pattern));
}

TEST_F(StorageTest, DiscoveryListsTheResourcesAsKubeDoes) {
  CommandResult listed = kubectl("api-resources --api-group=storage.k8s.io -o wide");
  const std::string verbs = "create,delete,deletecollection,get,list,patch,update,watch";
  EXPECT_TRUE(has_line(listed.output, "csidrivers +storage.k8s.io/v1 +false +CSIDriver +" + verbs)) << listed.output;
  EXPECT_TRUE(has_line(listed.output, "csinodes +storage.k8s.io/v1 +false +CSINode +" + verbs)) << listed.output;
  EXPECT_TRUE(has_line(listed.output, "csistoragecapacities +storage.k8s.io/v1 +true +CSIStorageCapacity +" + verbs))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "storageclasses +sc +storage.k8s.io/v1 +false +StorageClass +" + verbs))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "volumeattachments +storage.k8s.io/v1 +false +VolumeAttachment +" + verbs))
      << listed.output;
}

TEST_F(StorageTest, StorageClassLifecycleAndImmutableParameters) {
  const std::string manifest = R"(apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/no-provisioner
parameters:
  type: ssd
)";
  EXPECT_EQ(apply("sc.yaml", manifest), "storageclass.storage.k8s.io/fast created\n");
  EXPECT_EQ(kubectl("get sc fast -o jsonpath={.reclaimPolicy}/{.volumeBindingMode}").output, "Delete/Immediate");
  CommandResult listed = kubectl("get storageclasses -o wide");
  EXPECT_TRUE(has_line(listed.output,
                       "^NAME +PROVISIONER +RECLAIMPOLICY +VOLUMEBINDINGMODE +ALLOWVOLUMEEXPANSION +AGE\n"))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "\nfast \\(default\\) +kubernetes.io/no-provisioner +Delete +Immediate +false +"))
      << listed.output;
  EXPECT_EQ(apply("sc.yaml", manifest), "storageclass.storage.k8s.io/fast unchanged\n");
  kubectl("patch sc fast --type=merge -p '{\"allowVolumeExpansion\":true}'");
  EXPECT_EQ(kubectl("get sc fast -o jsonpath={.allowVolumeExpansion}").output, "true");

  CommandResult immutable = kubectl(
      "patch sc fast --type=merge -p '{\"parameters\":{\"type\":\"hdd\"},\"provisioner\":\"example.com/other\",\"reclaimPolicy\":\"Retain\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}'");
  EXPECT_NE(immutable.output.find("The StorageClass \"fast\" is invalid: \n"
                                  "* parameters: Forbidden: updates to parameters are forbidden.\n"
                                  "* provisioner: Forbidden: updates to provisioner are forbidden.\n"
                                  "* reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.\n"
                                  "* volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable"),
            std::string::npos)
      << immutable.output;

  HttpResponse invalid = call("POST", "/apis/storage.k8s.io/v1/storageclasses",
                              R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"bad"},
                                  "reclaimPolicy":"Recycle","volumeBindingMode":"Later"})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_EQ(status_causes(invalid),
            "provisioner: FieldValueRequired: Required value\n"
            "reclaimPolicy: FieldValueNotSupported: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"\n"
            "volumeBindingMode: FieldValueNotSupported: Unsupported value: \"Later\": supported values: \"Immediate\", "
            "\"WaitForFirstConsumer\"\n");

  CommandResult watched = kubectl("get sc fast -w --output-watch-events", 4);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_TRUE(has_line(watched.output, "ADDED +fast \\(default\\) +kubernetes.io/no-provisioner")) << watched.output;
  EXPECT_EQ(kubectl("delete sc fast").output, "storageclass.storage.k8s.io \"fast\" deleted\n");
}

TEST_F(StorageTest, CSIDriversNodesAndCapacities) {
  EXPECT_EQ(apply("driver.yaml", R"(apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: hostpath.csi.k8s.io
spec:
  podInfoOnMount: true
  tokenRequests:
  - audience: vault
)"),
            "csidriver.storage.k8s.io/hostpath.csi.k8s.io created\n");
  EXPECT_EQ(kubectl("get csidriver hostpath.csi.k8s.io -o jsonpath={.spec.attachRequired}/{.spec.fsGroupPolicy}/"
                    "{.spec.volumeLifecycleModes}/{.spec.requiresRepublish}/{.spec.storageCapacity}/{.spec.seLinuxMount}")
                .output,
            "true/ReadWriteOnceWithFSType/[\"Persistent\"]/false/false/false");
  CommandResult drivers = kubectl("get csidrivers -o wide");
  EXPECT_TRUE(has_line(drivers.output, "^NAME +ATTACHREQUIRED +PODINFOONMOUNT +STORAGECAPACITY +TOKENREQUESTS +"
                                       "REQUIRESREPUBLISH +MODES +AGE\n"))
      << drivers.output;
  EXPECT_TRUE(has_line(drivers.output, "hostpath.csi.k8s.io +true +true +false +vault +false +Persistent +"))
      << drivers.output;
  EXPECT_EQ(kubectl("get csidriver hostpath.csi.k8s.io -o jsonpath={.metadata.generation}").output, "");
  kubectl("patch csidriver hostpath.csi.k8s.io --type=merge -p '{\"spec\":{\"podInfoOnMount\":false}}'");
  EXPECT_EQ(kubectl("get csidriver hostpath.csi.k8s.io -o jsonpath={.metadata.generation}").output, "1");
  CommandResult immutable = kubectl("patch csidriver hostpath.csi.k8s.io --type=merge -p '{\"spec\":{\"attachRequired\":false}}'");
  EXPECT_NE(immutable.output.find("spec.attachedRequired: Invalid value: false: field is immutable"), std::string::npos)
      << immutable.output;
  EXPECT_EQ(kubectl("delete csidriver hostpath.csi.k8s.io").exit_code, 0);

  EXPECT_EQ(apply("csinode.yaml", R"(apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: node-1
spec:
  drivers:
  - name: hostpath.csi.k8s.io
    nodeID: node-1
    topologyKeys: [topology.hostpath.csi/node]
)"),
            "csinode.storage.k8s.io/node-1 created\n");
  CommandResult nodes = kubectl("get csinodes");
  EXPECT_TRUE(has_line(nodes.output, "^NAME +DRIVERS +AGE\nnode-1 +1 +")) << nodes.output;
  kubectl("patch csinode node-1 --type=strategic -p '{\"spec\":{\"drivers\":[{\"name\":\"other.csi.k8s.io\",\"nodeID\":\"n1\",\"topologyKeys\":null}]}}'");
  EXPECT_TRUE(has_line(kubectl("get csinode node-1").output, "node-1 +2 +"));
  EXPECT_EQ(kubectl("delete csinode node-1").exit_code, 0);

  EXPECT_EQ(apply("capacity.yaml", R"(apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata:
  name: cap-1
storageClassName: fast
capacity: 10Gi
nodeTopology:
  matchLabels:
    topology.hostpath.csi/node: node-1
)"),
            "csistoragecapacity.storage.k8s.io/cap-1 created\n");
  CommandResult capacities = kubectl("get csistoragecapacities");
  EXPECT_TRUE(has_line(capacities.output, "^NAME +STORAGECLASSNAME +CAPACITY\ncap-1 +fast +10Gi\n")) << capacities.output;
  CommandResult class_change = kubectl("patch csistoragecapacity cap-1 --type=merge -p '{\"storageClassName\":\"slow\"}'");
  EXPECT_NE(class_change.output.find("storageClassName: Invalid value: \"slow\": field is immutable"), std::string::npos)
      << class_change.output;
  CommandResult replaced = kubectl("replace -f " + write_manifest(kapi(), "capacity2.yaml", R"(apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata:
  name: cap-1
storageClassName: fast
capacity: 20Gi
nodeTopology:
  matchLabels:
    topology.hostpath.csi/node: node-1
)"));
  EXPECT_EQ(replaced.output, "csistoragecapacity.storage.k8s.io/cap-1 replaced\n");
  EXPECT_EQ(kubectl("get csistoragecapacity cap-1 -o jsonpath={.capacity}").output, "20Gi");
  EXPECT_EQ(kubectl("delete csistoragecapacity cap-1").exit_code, 0);
}

TEST_F(StorageTest, VolumeAttachmentsWithStatus) {
  const std::string manifest = R"(apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: csi-123
spec:
  attacher: hostpath.csi.k8s.io
  nodeName: node-1
  source:
    persistentVolumeName: pv-1
status:
  attached: true
)";
  EXPECT_EQ(apply("va.yaml", manifest), "volumeattachment.storage.k8s.io/csi-123 created\n");
  EXPECT_EQ(kubectl("get volumeattachment csi-123 -o jsonpath={.status.attached}").output, "false");
  CommandResult listed = kubectl("get volumeattachments -o wide");
  EXPECT_TRUE(has_line(listed.output, "^NAME +ATTACHER +PV +NODE +ATTACHED +AGE\ncsi-123 +hostpath.csi.k8s.io +pv-1 +node-1 +false +"))
      << listed.output;
  CommandResult status = kubectl("patch volumeattachment csi-123 --subresource=status --type=merge -p "
                                 "'{\"status\":{\"attached\":true,\"attachmentMetadata\":{\"dev\":\"/dev/sdb\"}}}'");
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_TRUE(has_line(kubectl("get volumeattachment csi-123").output, "csi-123 +hostpath.csi.k8s.io +pv-1 +node-1 +true +"));
  CommandResult moved = kubectl("patch volumeattachment csi-123 --type=merge -p '{\"spec\":{\"nodeName\":\"node-2\"}}'");
  EXPECT_NE(moved.output.find("spec: Invalid value: "), std::string::npos) << moved.output;
  EXPECT_NE(moved.output.find("field is immutable"), std::string::npos) << moved.output;
  HttpResponse invalid = call("POST", "/apis/storage.k8s.io/v1/volumeattachments",
                              R"({"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"bad"},
                                  "spec":{"attacher":"","nodeName":"Node_1","source":{}}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_EQ(status_causes(invalid),
            "spec.attacher: FieldValueRequired: Required value\n"
            "spec.source: FieldValueRequired: Required value: must specify exactly one of inlineVolumeSpec and "
            "persistentVolumeName\n"
            "spec.nodeName: FieldValueInvalid: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist "
            "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "spec.attacher: FieldValueRequired: Required value\n"
            "spec.attacher: FieldValueInvalid: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of "
            "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n");
  EXPECT_EQ(kubectl("delete volumeattachment csi-123").exit_code, 0);
}

// Issue 18's acceptance for every kind of this part: kubectl creates, gets (also -o wide), lists, watches, replaces,
// patches and deletes it.
TEST_F(StorageTest, KubectlDrivesEveryKind) {
  struct Case {
    std::string resource, name, namespace_, body;
  };
  const std::vector<Case> cases{
      {"ingresses.networking.k8s.io", "all-ing", "default",
       "apiVersion: networking.k8s.io/v1\nkind: Ingress\nspec:\n  defaultBackend:\n    service:\n      name: svc\n"
       "      port:\n        number: 80\n"},
      {"ingressclasses.networking.k8s.io", "all-class", "", "apiVersion: networking.k8s.io/v1\nkind: IngressClass\n"
       "spec:\n  controller: example.com/ingress\n"},
      {"networkpolicies.networking.k8s.io", "all-netpol", "default",
       "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nspec:\n  podSelector: {}\n"},
      {"endpointslices.discovery.k8s.io", "all-slice", "default",
       "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\naddressType: IPv4\nendpoints:\n- addresses: [10.0.0.5]\n"},
      {"storageclasses.storage.k8s.io", "all-sc", "", "apiVersion: storage.k8s.io/v1\nkind: StorageClass\n"
       "provisioner: example.com/p\n"},
      {"csidrivers.storage.k8s.io", "all.example.com", "", "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nspec: {}\n"},
      {"csinodes.storage.k8s.io", "all-node", "", "apiVersion: storage.k8s.io/v1\nkind: CSINode\nspec:\n  drivers: []\n"},
      {"csistoragecapacities.storage.k8s.io", "all-cap", "default",
       "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nstorageClassName: all-sc\n"},
      {"volumeattachments.storage.k8s.io", "all-va", "", "apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\n"
       "spec:\n  attacher: all.example.com\n  nodeName: node-1\n  source:\n    persistentVolumeName: pv\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.resource);
    const std::string ns = c.namespace_.empty() ? "" : " -n " + c.namespace_;
    auto manifest = [&](const std::string& label, const std::string& resource_version = "") {
      return write_manifest(kapi(), c.name + ".yaml",
                            c.body + "metadata:\n  name: " + c.name + "\n  labels:\n    step: " + label + "\n" +
                                (resource_version.empty() ? "" : "  resourceVersion: \"" + resource_version + "\"\n"));
    };
    CommandResult created = kubectl("create -f " + manifest("created") + ns);
    ASSERT_EQ(created.exit_code, 0) << created.output;
    EXPECT_EQ(kubectl("get " + c.resource + " " + c.name + ns + " -o jsonpath={.metadata.labels.step}").output, "created");
    CommandResult wide = kubectl("get " + c.resource + ns + " -o wide");
    EXPECT_TRUE(has_line(wide.output, "\n" + std::regex_replace(c.name, std::regex("\\."), "\\.") + " ")) << wide.output;
    CommandResult listed = kubectl("get " + c.resource + (c.namespace_.empty() ? "" : " -A") + " -o name");
    EXPECT_NE(listed.output.find("/" + c.name + "\n"), std::string::npos) << listed.output;
    // A watch from the cache's state, ended by the server (timeoutSeconds): the object arrives as ADDED.
    const std::string group_version = c.resource == "endpointslices.discovery.k8s.io" ? "discovery.k8s.io/v1"
                                      : c.resource.find("networking") != std::string::npos ? "networking.k8s.io/v1"
                                                                                          : "storage.k8s.io/v1";
    const std::string plural = c.resource.substr(0, c.resource.find('.'));
    const std::string watch_path = "/apis/" + group_version + (c.namespace_.empty() ? "" : "/namespaces/" + c.namespace_) +
                                   "/" + plural + "?watch=1&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3D" + c.name;
    CommandResult watched = kubectl("get --raw '" + watch_path + "'");
    EXPECT_NE(watched.output.find("{\"type\":\"ADDED\""), std::string::npos) << watched.output;
    // CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments refuse updates without a resourceVersion
    // (kube's AllowUnconditionalUpdate false), naming the resource where the kind would be; the others take them.
    // (kubectl replace fills in the version it reads first, so the PUT is sent as is.)
    const std::string object_path = "/apis/" + group_version + (c.namespace_.empty() ? "" : "/namespaces/" + c.namespace_) +
                                    "/" + plural + "/" + c.name;
    HttpResponse current = call("GET", object_path);
    json::object unversioned = json_object(current.body);
    unversioned["metadata"].as_object().erase("resourceVersion");
    HttpResponse unconditional = call("PUT", object_path, json::serialize(unversioned));
    if (c.resource.starts_with("csi") || c.resource.starts_with("volumeattachments.")) {
      ASSERT_TRUE(is_status(unconditional, 422, "Invalid")) << unconditional.body;
      EXPECT_EQ(json_object(unconditional.body).at("message").as_string(),
                c.resource + " \"" + c.name + "\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be "
                "specified for an update");
      EXPECT_EQ(status_causes(unconditional), "metadata.resourceVersion: FieldValueInvalid: Invalid value: 0x0: must be "
                                       "specified for an update\n");
    } else {
      EXPECT_EQ(unconditional.status, 200) << unconditional.body;
    }
    const std::string version =
        kubectl("get " + c.resource + " " + c.name + ns + " -o jsonpath={.metadata.resourceVersion}").output;
    CommandResult replaced = kubectl("replace -f " + manifest("replaced", version) + ns);
    EXPECT_EQ(replaced.exit_code, 0) << replaced.output;
    EXPECT_EQ(kubectl("get " + c.resource + " " + c.name + ns + " -o jsonpath={.metadata.labels.step}").output, "replaced");
    CommandResult patched = kubectl("patch " + c.resource + " " + c.name + ns + " -p '{\"metadata\":{\"labels\":{\"step\":\"patched\"}}}'");
    EXPECT_EQ(patched.exit_code, 0) << patched.output;
    EXPECT_EQ(kubectl("get " + c.resource + " " + c.name + ns + " -o jsonpath={.metadata.labels.step}").output, "patched");
    CommandResult deleted = kubectl("delete " + c.resource + " " + c.name + ns);
    EXPECT_NE(deleted.output.find("\"" + c.name + "\" deleted"), std::string::npos) << deleted.output;
  }
}

// Each kind is created from a protobuf body and read back as protobuf, as client-go's typed clients do.
TEST_F(StorageTest, EveryKindTravelsAsProtobuf) {
  const schema::Catalog catalog = schema::Catalog::builtin();
  const schema::Transcoder transcoder(catalog);
  struct Case {
    std::string path, json, checked_member;
  };
  const std::vector<Case> cases{
      {"/apis/networking.k8s.io/v1/namespaces/default/ingresses",
       R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"pb"},"spec":{"ingressClassName":"c",
           "rules":[{"host":"pb.example.com","http":{"paths":[{"path":"/","pathType":"Prefix",
           "backend":{"service":{"name":"svc","port":{"name":"http"}}}}]}}]}})",
       "spec"},
      {"/apis/networking.k8s.io/v1/ingressclasses",
       R"({"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"pb"},"spec":{"controller":"example.com/c"}})",
       "spec"},
      {"/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
       R"({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"pb"},"spec":{"podSelector":{},
           "ingress":[{"ports":[{"port":"http","protocol":"TCP"}]}],"policyTypes":["Ingress"]}})",
       "spec"},
      {"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
       R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"pb"},"addressType":"IPv4",
           "endpoints":[{"addresses":["10.0.0.7"],"conditions":{"ready":true},"nodeName":"n"}],
           "ports":[{"name":"","port":80,"protocol":"TCP"}]})",
       "endpoints"},
      {"/apis/storage.k8s.io/v1/storageclasses",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"pb"},"provisioner":"example.com/p",
           "parameters":{"a":"b"},"reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer"})",
       "parameters"},
      {"/apis/storage.k8s.io/v1/csidrivers",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"pb.example.com"},
           "spec":{"attachRequired":false,"fsGroupPolicy":"File","podInfoOnMount":false,"requiresRepublish":false,
           "seLinuxMount":false,"storageCapacity":true,"volumeLifecycleModes":["Ephemeral"]}})",
       "spec"},
      {"/apis/storage.k8s.io/v1/csinodes",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"pb"},
           "spec":{"drivers":[{"name":"pb.example.com","nodeID":"n","topologyKeys":["zone"]}]}})",
       "spec"},
      {"/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"pb"},
           "storageClassName":"pb","capacity":"1Gi"})",
       "capacity"},
      {"/apis/storage.k8s.io/v1/volumeattachments",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"pb"},
           "spec":{"attacher":"pb.example.com","nodeName":"n","source":{"persistentVolumeName":"pv"}}})",
       "spec"},
  };
  const std::string protobuf = "application/vnd.kubernetes.protobuf";
  for (const Case& c : cases) {
    const json::object sent = json_object(c.json);
    HttpResponse created = kapi().connect_admin().request(
        "POST", c.path, {{"Content-Type", protobuf}, {"Accept", protobuf}}, transcoder.encode(sent));
    ASSERT_EQ(created.status, 201) << c.path << ": " << created.body;
    const std::string object_path = c.path + "/" + std::string(sent.at("metadata").at("name").as_string());
    HttpResponse read = kapi().connect_admin().request("GET", object_path, {{"Accept", protobuf}}, "");
    ASSERT_EQ(read.status, 200) << c.path;
    EXPECT_EQ(read.header("Content-Type").value_or(""), protobuf) << c.path;
    json::object got = transcoder.decode(read.body);
    EXPECT_EQ(got.at("kind"), sent.at("kind"));
    EXPECT_EQ(got.at(c.checked_member), sent.at(c.checked_member)) << c.path;
    EXPECT_EQ(kapi().connect_admin().request("DELETE", object_path, kJson, "").status, 200) << c.path;
  }
}

}  // namespace
}  // namespace kapi::integration::storage_test

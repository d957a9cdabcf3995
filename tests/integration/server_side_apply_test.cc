// Server-side apply through the real kubectl 1.32, HTTP and the Python and JavaScript clients, on both stores:
// apply's create and update, conflicts (kubectl's exit code and kube's message), --force-conflicts, shared
// ownership, removal of fields an applier drops, ownership of replicas moving between /scale and the main resource,
// the client-side → server-side migration, server dry-run and diff, a CRD's list-type map (two keys) and set, the
// options checks, and the managedFields kube writes for kubectl create / label / scale / apply.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <regex>

namespace kapi::integration::server_side_apply_test {
namespace {

namespace json = boost::json;

using Headers = std::vector<std::pair<std::string, std::string>>;

class ServerSideApplyTest : public KapiSuite<ServerSideApplyTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  // `kubectl apply --server-side` of `manifest` (written to `file`) with extra flags.
  CommandResult apply(const std::string& file, const std::string& manifest, const std::string& flags = "") {
    return kubectl("apply --server-side " + flags + " -f " + write_manifest(kapi(), file, manifest));
  }
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body = {},
                       const std::string& content_type = "application/json") {
    Headers headers;
    if (!body.empty()) headers.emplace_back("Content-Type", content_type);
    return kapi().connect_admin().request(method, target, headers, body);
  }
  // The object's managedFields, each entry without its time (which the test checks apart).
  json::array managed_fields(const std::string& path) {
    HttpResponse got = request("GET", path);
    EXPECT_EQ(got.status, 200) << got.body;
    json::object object = json_object(got.body);
    json::array out;
    const json::value* entries = object["metadata"].as_object().if_contains("managedFields");
    if (!entries) return out;
    // (json::object::erase moves the last member into the gap: the entries are copied member by member instead.)
    for (const json::value& entry : entries->as_array()) {
      json::object without_time;
      for (const auto& [name, value] : entry.as_object())
        if (name != "time") without_time.emplace(name, value);
      out.push_back(std::move(without_time));
    }
    return out;
  }
  // The managers of an object, "manager/operation[/subresource]", in the order kube sorts them.
  std::vector<std::string> managers(const std::string& path) {
    std::vector<std::string> out;
    for (const auto& entry : managed_fields(path)) {
      const json::object& e = entry.as_object();
      std::string name = std::string(e.at("manager").as_string()) + "/" + std::string(e.at("operation").as_string());
      if (auto* subresource = e.if_contains("subresource")) name += "/" + std::string(subresource->as_string());
      out.push_back(std::move(name));
    }
    return out;
  }
  // One manager's fieldsV1, as compact JSON.
  std::string fields_of(const std::string& path, const std::string& manager, const std::string& operation) {
    for (const auto& entry : managed_fields(path)) {
      const json::object& e = entry.as_object();
      if (e.at("manager").as_string() == manager && e.at("operation").as_string() == operation)
        return json::serialize(e.at("fieldsV1"));
    }
    return "";
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

constexpr const char* kConflictAdvice =
    "Please review the fields above--they currently have other managers. Here\n"
    "are the ways you can resolve this warning:\n"
    "* If you intend to manage all of these fields, please re-run the apply\n"
    "  command with the `--force-conflicts` flag.\n"
    "* If you do not intend to manage all of the fields, please edit your\n"
    "  manifest to remove references to the fields that should keep their\n"
    "  current managers.\n"
    "* You may co-own fields by updating your manifest to match the existing\n"
    "  value; in this case, you'll become the manager if the other manager(s)\n"
    "  stop managing the field (remove it from their configuration).\n"
    "See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n";

std::string config_map(const std::string& name, const std::string& data) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n" + data;
}

TEST_F(ServerSideApplyTest, ApplyCreatesThenUpdatesAndRecordsTheApplier) {
  CommandResult created = apply("create.yaml", config_map("ssa-create", "  a: \"1\"\n"));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(created.output, "configmap/ssa-create serverside-applied\n");
  const std::string path = "/api/v1/namespaces/default/configmaps/ssa-create";
  EXPECT_EQ(json::serialize(managed_fields(path)),
            R"([{"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",)"
            R"("fieldsV1":{"f:data":{"f:a":{}}}}])");
  HttpResponse got = request("GET", path);
  json::object object = json_object(got.body);
  const json::object& entry = object["metadata"].as_object()["managedFields"].as_array()[0].as_object();
  EXPECT_TRUE(std::regex_match(std::string(entry.at("time").as_string()),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << got.body;

  CommandResult updated = apply("update.yaml", config_map("ssa-create", "  a: \"1\"\n  b: \"2\"\n"));
  ASSERT_EQ(updated.exit_code, 0) << updated.output;
  EXPECT_EQ(updated.output, "configmap/ssa-create serverside-applied\n");
  EXPECT_EQ(kubectl("get cm ssa-create -o jsonpath={.data}").output, R"({"a":"1","b":"2"})");
  EXPECT_EQ(fields_of(path, "kubectl", "Apply"), R"({"f:data":{"f:a":{},"f:b":{}}})");
}

TEST_F(ServerSideApplyTest, ConflictsFailWithKubesMessageUntilForced) {
  ASSERT_EQ(apply("c1.yaml", config_map("ssa-conflict", "  a: \"1\"\n")).exit_code, 0);
  CommandResult conflict = apply("c2.yaml", config_map("ssa-conflict", "  a: \"2\"\n"), "--field-manager=other");
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_EQ(conflict.output,
            std::string("error: Apply failed with 1 conflict: conflict with \"kubectl\": .data.a\n") + kConflictAdvice);

  // The 409 itself: kube's Status with one cause per conflicting field.
  HttpResponse refused = request("PATCH", "/api/v1/namespaces/default/configmaps/ssa-conflict?fieldManager=other",
                                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa-conflict"},)"
                                 R"("data":{"a":"2","b":"3"}})",
                                 "application/apply-patch+yaml");
  EXPECT_TRUE(is_status(refused, 409, "Conflict"));
  json::object status = json_object(refused.body);
  EXPECT_EQ(status["message"].as_string(), "Apply failed with 1 conflict: conflict with \"kubectl\": .data.a");
  EXPECT_EQ(json::serialize(status["details"].as_object()["causes"]),
            R"([{"reason":"FieldManagerConflict","message":"conflict with \"kubectl\"","field":".data.a"}])");

  CommandResult forced =
      apply("c2.yaml", config_map("ssa-conflict", "  a: \"2\"\n"), "--field-manager=other --force-conflicts");
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_EQ(kubectl("get cm ssa-conflict -o jsonpath={.data.a}").output, "2");
  const std::string path = "/api/v1/namespaces/default/configmaps/ssa-conflict";
  // kubectl no longer owns .data.a: its entry is gone with its last field.
  EXPECT_EQ(managers(path), (std::vector<std::string>{"other/Apply"}));
  EXPECT_EQ(fields_of(path, "other", "Apply"), R"({"f:data":{"f:a":{}}})");
}

// An Update manager is named with its version (kube's printManager; its identifier never holds a time).
TEST_F(ServerSideApplyTest, AConflictWithAnUpdaterNamesItsVersion) {
  ASSERT_EQ(kubectl("create configmap ssa-updater --from-literal=a=1").exit_code, 0);
  CommandResult conflict = apply("u.yaml", config_map("ssa-updater", "  a: \"2\"\n"));
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_EQ(conflict.output, std::string("error: Apply failed with 1 conflict: conflict with \"kubectl-create\" using "
                                         "v1: .data.a\n") +
                                 kConflictAdvice);
}

// kubectl edit (its editor here a script that changes a) is an Update of "kubectl-edit", kubectl's default manager
// for edit: it takes the field it changed from kubectl-create, which keeps the rest.
TEST_F(ServerSideApplyTest, EditIsAnUpdateOfKubectlEdit) {
  const std::string path = "/api/v1/namespaces/default/configmaps/ssa-edited";
  ASSERT_EQ(kubectl("create configmap ssa-edited --from-literal=a=1 --from-literal=b=1").exit_code, 0);
  const std::string editor = write_manifest(kapi(), "editor.sh", "#!/bin/sh\nsed -i 's/^  a: \"1\"$/  a: \"2\"/' \"$1\"\n");
  std::filesystem::permissions(editor, std::filesystem::perms::owner_all);
  CommandResult edited = run_kubectl(kapi(), "edit cm ssa-edited", 60, "KUBE_EDITOR='" + editor + "'");
  ASSERT_EQ(edited.exit_code, 0) << edited.output;
  EXPECT_EQ(edited.output, "configmap/ssa-edited edited\n");
  EXPECT_EQ(kubectl("get cm ssa-edited -o jsonpath={.data}").output, R"({"a":"2","b":"1"})");
  EXPECT_EQ(managers(path), (std::vector<std::string>{"kubectl-create/Update", "kubectl-edit/Update"}));
  EXPECT_EQ(fields_of(path, "kubectl-create", "Update"), R"({"f:data":{".":{},"f:b":{}}})");
  EXPECT_EQ(fields_of(path, "kubectl-edit", "Update"), R"({"f:data":{"f:a":{}}})");
}

TEST_F(ServerSideApplyTest, TwoManagersShareAFieldAndItGoesWithItsLastOwner) {
  const std::string path = "/api/v1/namespaces/default/configmaps/ssa-shared";
  ASSERT_EQ(apply("s1.yaml", config_map("ssa-shared", "  a: \"1\"\n  b: \"1\"\n"), "--field-manager=one").exit_code, 0);
  // The same value: no conflict, both own .data.a.
  CommandResult second = apply("s2.yaml", config_map("ssa-shared", "  a: \"1\"\n"), "--field-manager=two");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(fields_of(path, "one", "Apply"), R"({"f:data":{"f:a":{},"f:b":{}}})");
  EXPECT_EQ(fields_of(path, "two", "Apply"), R"({"f:data":{"f:a":{}}})");

  // one drops both: b goes (nobody else owns it), a stays with two.
  ASSERT_EQ(apply("s3.yaml", config_map("ssa-shared", "  c: \"3\"\n"), "--field-manager=one").exit_code, 0);
  EXPECT_EQ(kubectl("get cm ssa-shared -o jsonpath={.data}").output, R"({"a":"1","c":"3"})");
  // two drops a: it goes too.
  ASSERT_EQ(apply("s4.yaml", config_map("ssa-shared", "  d: \"4\"\n"), "--field-manager=two").exit_code, 0);
  EXPECT_EQ(kubectl("get cm ssa-shared -o jsonpath={.data}").output, R"({"c":"3","d":"4"})");
}

TEST_F(ServerSideApplyTest, ScaleTakesReplicasAndApplyTakesThemBack) {
  const std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa-scaled
spec:
  replicas: 1
  selector:
    matchLabels: {app: ssa-scaled}
  template:
    metadata:
      labels: {app: ssa-scaled}
    spec:
      containers:
      - name: nginx
        image: nginx
)";
  ASSERT_EQ(apply("d1.yaml", deployment).exit_code, 0);
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/ssa-scaled";
  // kubectl scale sends no fieldManager: its manager is its User-Agent's "kubectl", an Update through /scale.
  ASSERT_EQ(kubectl("scale deployment ssa-scaled --replicas=3").output, "deployment.apps/ssa-scaled scaled\n");
  EXPECT_EQ(managers(path), (std::vector<std::string>{"kubectl/Apply", "kubectl/Update/scale"}));
  EXPECT_EQ(fields_of(path, "kubectl", "Update"), R"({"f:spec":{"f:replicas":{}}})");
  EXPECT_EQ(fields_of(path, "kubectl", "Apply").find("f:replicas"), std::string::npos);

  // Applying replicas again conflicts with the scaler (whose entry kube writes without a time).
  std::string replicas_2 = deployment;
  replicas_2.replace(replicas_2.find("replicas: 1"), 11, "replicas: 2");
  CommandResult conflict = apply("d2.yaml", replicas_2);
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_EQ(conflict.output, std::string("error: Apply failed with 1 conflict: conflict with \"kubectl\" with "
                                         "subresource \"scale\" using apps/v1: .spec.replicas\n") +
                                 kConflictAdvice);
  CommandResult forced = apply("d2.yaml", replicas_2, "--force-conflicts");
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_EQ(kubectl("get deployment ssa-scaled -o jsonpath={.spec.replicas}").output, "2");
  EXPECT_EQ(managers(path), (std::vector<std::string>{"kubectl/Apply"}));
  EXPECT_NE(fields_of(path, "kubectl", "Apply").find("\"f:replicas\":{}"), std::string::npos);
}

TEST_F(ServerSideApplyTest, ClientSideApplyMigratesToServerSide) {
  const std::string path = "/api/v1/namespaces/default/configmaps/ssa-migrated";
  CommandResult client_side = kubectl(
      "apply -f " + write_manifest(kapi(), "m1.yaml", config_map("ssa-migrated", "  a: \"1\"\n  b: \"2\"\n")));
  ASSERT_EQ(client_side.exit_code, 0) << client_side.output;
  EXPECT_EQ(managers(path), (std::vector<std::string>{"kubectl-client-side-apply/Update"}));
  EXPECT_EQ(fields_of(path, "kubectl-client-side-apply", "Update"),
            R"({"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},)"
            R"("f:kubectl.kubernetes.io/last-applied-configuration":{}}}})");

  // kubectl hands the client-side manager's fields to its applier, then applies without b: b goes.
  CommandResult server_side = apply("m2.yaml", config_map("ssa-migrated", "  a: \"1\"\n"));
  ASSERT_EQ(server_side.exit_code, 0) << server_side.output;
  // kubectl keeps the last-applied annotation current through an apply of its own ("kubectl-last-applied"); the two
  // Apply entries are sorted by the second each was written in, so their order is the clock's.
  std::vector<std::string> names = managers(path);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kubectl-last-applied/Apply", "kubectl/Apply"}));
  EXPECT_EQ(fields_of(path, "kubectl-last-applied", "Apply"),
            R"({"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}})");
  EXPECT_EQ(kubectl("get cm ssa-migrated -o jsonpath={.data}").output, R"({"a":"1"})");
  EXPECT_NE(fields_of(path, "kubectl", "Apply").find(R"("f:data":{"f:a":{}})"), std::string::npos);
}

TEST_F(ServerSideApplyTest, ServerDryRunAndDiffChangeNothing) {
  ASSERT_EQ(apply("r1.yaml", config_map("ssa-dry", "  a: \"1\"\n")).exit_code, 0);
  const std::string changed = write_manifest(kapi(), "r2.yaml", config_map("ssa-dry", "  a: \"2\"\n"));
  CommandResult dry = kubectl("apply --server-side --dry-run=server -f " + changed);
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_EQ(dry.output, "configmap/ssa-dry serverside-applied (server dry run)\n");
  CommandResult diff = kubectl("diff --server-side -f " + changed);
  EXPECT_EQ(diff.exit_code, 1) << diff.output;  // differences found
  EXPECT_TRUE(std::regex_search(diff.output, std::regex("\n-  a: \"1\"\n\\+  a: \"2\"\n"))) << diff.output;
  EXPECT_EQ(diff.output.find("managedFields"), std::string::npos) << diff.output;
  EXPECT_EQ(kubectl("get cm ssa-dry -o jsonpath={.data.a}").output, "1");
  CommandResult same = kubectl("diff --server-side -f " + write_manifest(kapi(), "r3.yaml",
                                                                         config_map("ssa-dry", "  a: \"1\"\n")));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_EQ(same.output, "");
}

TEST_F(ServerSideApplyTest, CustomResourceListTypesMergeByKeyAndValue) {
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name, protocol]
                items:
                  type: object
                  required: [name, protocol]
                  properties:
                    name: {type: string}
                    protocol: {type: string}
                    port: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
)";
  // The CRD itself is applied server-side too (its kind has no catalog type: kube's OpenAPI makes its structs
  // granular and its lists atomic).
  CommandResult defined = apply("gadget-crd.yaml", crd);
  ASSERT_EQ(defined.exit_code, 0) << defined.output;
  EXPECT_EQ(defined.output, "customresourcedefinition.apiextensions.k8s.io/gadgets.ssa.example.com serverside-applied\n");
  const std::string crd_fields =
      fields_of("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.ssa.example.com", "kubectl", "Apply");
  // Its versions list is atomic (one leaf, no k: items). Deviation: the nested structs also carry "." entries,
  // which kube's typed CRD schema does not write.
  EXPECT_NE(crd_fields.find(R"("f:group":{})"), std::string::npos) << crd_fields;
  EXPECT_NE(crd_fields.find(R"("f:versions":{})"), std::string::npos) << crd_fields;
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=20s crd/gadgets.ssa.example.com").exit_code, 0);
  auto gadget = [](const std::string& spec) {
    return "apiVersion: ssa.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n" + spec;
  };
  CommandResult first = apply("g1.yaml",
                              gadget("  ports:\n  - {name: http, protocol: TCP, port: 80}\n  tags: [red]\n"),
                              "--field-manager=one");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output, "gadget.ssa.example.com/g1 serverside-applied\n");
  CommandResult second = apply("g2.yaml",
                               gadget("  ports:\n  - {name: http, protocol: UDP, port: 81}\n  tags: [blue]\n"),
                               "--field-manager=two");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  // Items are merged by their two keys and by value: both managers' items are kept.
  CommandResult ports = kubectl("get gadget g1 -o jsonpath={.spec.ports[*].protocol}/{.spec.tags[*]}");
  EXPECT_TRUE(ports.output == "TCP UDP/red blue" || ports.output == "UDP TCP/blue red") << ports.output;
  const std::string path = "/apis/ssa.example.com/v1/namespaces/default/gadgets/g1";
  EXPECT_EQ(fields_of(path, "one", "Apply"),
            R"({"f:spec":{"f:ports":{"k:{\"name\":\"http\",\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},)"
            R"("f:protocol":{}}},"f:tags":{"v:\"red\"":{}}}})");
  // one stops applying its port and tag: they go, two's stay.
  ASSERT_EQ(apply("g3.yaml", gadget("  tags: []\n"), "--field-manager=one").exit_code, 0);
  EXPECT_EQ(kubectl("get gadget g1 -o jsonpath={.spec.ports[*].protocol}/{.spec.tags[*]}").output, "UDP/blue");
  // The same item with a different value conflicts.
  CommandResult conflict = apply("g4.yaml", gadget("  ports:\n  - {name: http, protocol: UDP, port: 82}\n"),
                                 "--field-manager=one");
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_EQ(conflict.output.substr(0, conflict.output.find('\n') + 1),
            "error: Apply failed with 1 conflict: conflict with \"two\": "
            ".spec.ports[name=\"http\",protocol=\"UDP\"].port\n");
}

// A CRD larger than the 256 KiB annotation limit (Gateway API's HTTPRoute is ~430 KB): client-side apply cannot
// store its last-applied annotation, server-side apply installs it.
TEST_F(ServerSideApplyTest, ACrdBeyondTheAnnotationLimitInstallsServerSide) {
  std::string properties;
  for (int i = 0; i < 1500; ++i)
    properties += "              field" + std::to_string(i) + ":\n                type: string\n                description: \"" +
                  std::string(160, 'd') + "\"\n";
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bigs.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names: {plural: bigs, singular: big, kind: Big, listKind: BigList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
)" + properties;
  ASSERT_GT(crd.size(), 262144u);
  CommandResult client_side = kubectl("apply -f " + write_manifest(kapi(), "big-crd-csa.yaml", crd));
  EXPECT_NE(client_side.exit_code, 0);
  EXPECT_NE(client_side.output.find("metadata.annotations: Too long: must have at most 262144 bytes"),
            std::string::npos)
      << client_side.output.substr(0, 2000);
  CommandResult server_side = apply("big-crd.yaml", crd);
  ASSERT_EQ(server_side.exit_code, 0) << server_side.output.substr(0, 2000);
  EXPECT_EQ(server_side.output, "customresourcedefinition.apiextensions.k8s.io/bigs.ssa.example.com serverside-applied\n");
  EXPECT_EQ(kubectl("wait --for=condition=Established --timeout=20s crd/bigs.ssa.example.com").exit_code, 0);
}

TEST_F(ServerSideApplyTest, DeploymentManagedFieldsAfterCreateLabelScaleAndApplyAreKubes) {
  ASSERT_EQ(kubectl("create deployment ssa-web --image=nginx").exit_code, 0);
  ASSERT_EQ(kubectl("label deployment ssa-web tier=frontend").exit_code, 0);
  ASSERT_EQ(kubectl("scale deployment ssa-web --replicas=3").exit_code, 0);  // manager "kubectl" (its User-Agent)
  const std::string manifest = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa-web
  labels: {app: ssa-web}
spec:
  selector:
    matchLabels: {app: ssa-web}
  template:
    metadata:
      labels: {app: ssa-web}
    spec:
      containers:
      - name: nginx
        image: nginx
)";
  CommandResult applied = apply("web.yaml", manifest);
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  // What kube-apiserver 1.32 writes for this sequence (derived from its field manager and kubectl's requests:
  // kubectl-create's Update of the defaulted object, kubectl-label's merge patch, kubectl scale's /scale patch
  // taking .spec.replicas from kubectl-create, kubectl's apply sharing the fields it sets), in kube's order:
  // Apply before Update, then by time (the /scale entry has none), then by manager.
  const std::string expected =
      R"([{"apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}},)"
      R"("f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":)"
      R"({"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}},"manager":"kubectl","operation":"Apply"},)"
      R"({"apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},)"
      R"("manager":"kubectl","operation":"Update","subresource":"scale"},)"
      R"({"apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},)"
      R"("f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:revisionHistoryLimit":{},"f:selector":{},)"
      R"("f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},)"
      R"("f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":)"
      R"({"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},)"
      R"("f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},)"
      R"("f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}},)"
      R"("manager":"kubectl-create","operation":"Update"},)"
      R"({"apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:tier":{}}}},)"
      R"("manager":"kubectl-label","operation":"Update"}])";
  EXPECT_EQ(json::value(managed_fields("/apis/apps/v1/namespaces/default/deployments/ssa-web")), json::parse(expected));
  // The Updates carry the time of their write; the /scale entry has none (ScaleHandler.ToParent takes the parent's,
  // which a new manager lacks), and neither has the apply, which changed nothing in the object (kube's
  // managedFieldsUpdater times an apply only when it returns an object).
  HttpResponse got = request("GET", "/apis/apps/v1/namespaces/default/deployments/ssa-web");
  json::object deployment = json_object(got.body);
  std::vector<bool> timed;
  for (const auto& entry : deployment["metadata"].as_object()["managedFields"].as_array())
    timed.push_back(entry.as_object().contains("time"));
  EXPECT_EQ(timed, (std::vector<bool>{false, false, true, true})) << got.body;
}

TEST_F(ServerSideApplyTest, ApplyOverHttpCreatesChecksItsOptionsAndDecodesYaml) {
  const std::string base = "/api/v1/namespaces/default/configmaps/ssa-http";
  const std::string body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-http\ndata:\n  a: \"1\"\n";
  HttpResponse no_manager = request("PATCH", base, body, "application/apply-patch+yaml");
  EXPECT_TRUE(is_status(no_manager, 422, "Invalid"));
  EXPECT_EQ(json_object(no_manager.body)["message"].as_string(),
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
  HttpResponse created = request("PATCH", base + "?fieldManager=http", body, "application/apply-patch+yaml");
  EXPECT_EQ(created.status, 201) << created.body;
  HttpResponse again = request("PATCH", base + "?fieldManager=http", body, "application/apply-patch+yaml");
  EXPECT_EQ(again.status, 200) << again.body;

  HttpResponse forced_merge =
      request("PATCH", base + "?force=true", R"({"data":{"b":"2"}})", "application/merge-patch+json");
  EXPECT_TRUE(is_status(forced_merge, 422, "Invalid"));
  EXPECT_EQ(json_object(forced_merge.body)["message"].as_string(),
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
  HttpResponse too_long = request("POST", "/api/v1/namespaces/default/configmaps?fieldManager=" + std::string(129, 'x'),
                                  R"({"metadata":{"name":"ssa-long"}})");
  EXPECT_TRUE(is_status(too_long, 422, "Invalid"));
  EXPECT_EQ(json_object(too_long.body)["message"].as_string(),
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes");

  // YAML's repeated keys: refused under Strict, a warning under Warn, ignored under Ignore.
  const std::string duplicated = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-http\ndata:\n  a: \"1\"\n"
                                 "  a: \"1\"\n";
  HttpResponse strict = request("PATCH", base + "?fieldManager=http&fieldValidation=Strict", duplicated,
                                "application/apply-patch+yaml");
  EXPECT_TRUE(is_status(strict, 400, "BadRequest"));
  EXPECT_EQ(json_object(strict.body)["message"].as_string(),
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
            "  line 7: key \"a\" already set in map");
  HttpResponse warned = request("PATCH", base + "?fieldManager=http&fieldValidation=Warn", duplicated,
                                "application/apply-patch+yaml");
  EXPECT_EQ(warned.status, 200) << warned.body;
  EXPECT_EQ(warned.header_values("Warning"),
            (std::vector<std::string>{"299 - \"error converting YAML to JSON: yaml: unmarshal errors:   line 7: "
                                      "key \\\"a\\\" already set in map\""}));
  HttpResponse not_a_map = request("PATCH", base + "?fieldManager=http", "[1]", "application/apply-patch+yaml");
  EXPECT_TRUE(is_status(not_a_map, 400, "BadRequest"));
  EXPECT_EQ(json_object(not_a_map.body)["message"].as_string(),
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go "
            "value of type map[string]interface {}");

  HttpResponse unknown_type = request("PATCH", base, "{}", "application/x-unknown");
  EXPECT_TRUE(is_status(unknown_type, 415, "UnsupportedMediaType"));
  EXPECT_EQ(json_object(unknown_type.body)["message"].as_string(),
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
            "application/apply-patch+yaml");
}

TEST_F(ServerSideApplyTest, StatusSubresourceAppliesStatusOnly) {
  ASSERT_EQ(kubectl("create deployment ssa-status --image=nginx").exit_code, 0);
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/ssa-status";
  HttpResponse applied = request(
      "PATCH", path + "/status?fieldManager=status-writer",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ssa-status"},"status":{"replicas":5},)"
      R"("spec":{"replicas":7}})",
      "application/apply-patch+yaml");
  ASSERT_EQ(applied.status, 200) << applied.body;
  EXPECT_EQ(kubectl("get deployment ssa-status -o jsonpath={.status.replicas}/{.spec.replicas}").output, "5/1");
  EXPECT_EQ(fields_of(path, "status-writer", "Apply"), R"({"f:status":{"f:replicas":{}}})");
  EXPECT_EQ(managers(path), (std::vector<std::string>{"status-writer/Apply/status", "kubectl-create/Update"}));
}

// HorizontalPodAutoscalers are served at autoscaling/v1 from v2's storage: managers of either version are compared
// on one, through the version conversion.
TEST_F(ServerSideApplyTest, ManagersOfTwoServedVersionsConflict) {
  const std::string v2 = R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ssa-hpa
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
)";
  ASSERT_EQ(apply("hpa2.yaml", v2, "--field-manager=v2-applier").exit_code, 0);
  HttpResponse conflict = request(
      "PATCH", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/ssa-hpa?fieldManager=v1-applier",
      R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"ssa-hpa"},)"
      R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5}})",
      "application/apply-patch+yaml");
  EXPECT_TRUE(is_status(conflict, 409, "Conflict"));
  EXPECT_EQ(json_object(conflict.body)["message"].as_string(),
            "Apply failed with 1 conflict: conflict with \"v2-applier\": .spec.maxReplicas");
  EXPECT_EQ(managers("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/ssa-hpa"),
            (std::vector<std::string>{"v2-applier/Apply"}));
}

TEST_F(ServerSideApplyTest, PythonClientAppliesServerSide) {
  const char* source_root = std::getenv("KAPI_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "KAPI_SOURCE_ROOT names the repository (meson test sets it)";
  const auto script = std::filesystem::path(source_root) / "tests/integration/clients/python_apply.py";
  CommandResult result = test_support::run_command("timeout 120 /usr/bin/python3 '" + script.string() + "' '" +
                                                   kapi().admin_kubeconfig().string() + "' 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "created py-applied\nconflict 409\nforced py-applied\n");
}

TEST_F(ServerSideApplyTest, JavaScriptClientAppliesServerSide) {
  constexpr const char* kNodeModules = "/usr/local/lib/kapi-test-clients/node_modules";
  const char* source_root = std::getenv("KAPI_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "KAPI_SOURCE_ROOT names the repository (meson test sets it)";
  ASSERT_TRUE(std::filesystem::exists(std::string(kNodeModules) + "/@kubernetes/client-node"))
      << "@kubernetes/client-node is not installed (scripts/install-deps)";
  const auto script = std::filesystem::path(source_root) / "tests/integration/clients/js_apply.cjs";
  CommandResult result = test_support::run_command("NODE_PATH='" + std::string(kNodeModules) + "' timeout 120 node '" +
                                                    script.string() + "' '" + kapi().admin_kubeconfig().string() +
                                                    "' 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "applied js-applied js\nconflict 409\nforced js-applied\n");
}

}  // namespace
}  // namespace kapi::integration::server_side_apply_test

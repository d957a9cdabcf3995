// The real kubectl with the generated admin kubeconfig. /usr/bin/kubectl is a dispatcher that asks /version
// first and runs the bundled kubectl matching the server's minor version (1.32 for kapi).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <thread>

namespace kapi::integration::kubectl_test {
namespace {

class KubectlTest : public KapiSuite<KubectlTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
    ASSERT_TRUE(std::filesystem::exists(kapi().admin_kubeconfig()));
  }
};

TEST_F(KubectlTest, VersionPrintsTheServerVersion) {
  CommandResult result = kubectl("version");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("Server Version: v1.32"), std::string::npos) << result.output;
}

TEST_F(KubectlTest, GetRawHealthz) {
  CommandResult result = kubectl("get --raw /healthz");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "ok") << result.output;
}

TEST_F(KubectlTest, GetNamespacesPrintsTheBootstrappedOnes) {
  CommandResult result = kubectl("get namespaces");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("NAME"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("STATUS"), std::string::npos) << result.output;
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"})
    EXPECT_NE(result.output.find(name), std::string::npos) << result.output;
}

TEST_F(KubectlTest, ConfigMapLifecycle) {
  const auto manifest = kapi().work_dir() / "cm.yaml";
  auto write_manifest = [&](const std::string& data) {
    FILE* file = std::fopen(manifest.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::string text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  labels: {app: demo}\ndata:\n" + data;
    std::fwrite(text.data(), 1, text.size(), file);
    std::fclose(file);
  };
  write_manifest("  a: \"1\"\n  b: \"2\"\n");
  // kubectl's default --validate=strict: it reads /openapi/v3, sees the server validates, and sends
  // fieldValidation=Strict.
  CommandResult applied = kubectl("apply -f " + manifest.string());
  EXPECT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_NE(applied.output.find("configmap/app-config created"), std::string::npos) << applied.output;

  write_manifest("  a: \"1\"\n  c: \"3\"\n");
  CommandResult reapplied = kubectl("apply -f " + manifest.string());
  EXPECT_NE(reapplied.output.find("configmap/app-config configured"), std::string::npos) << reapplied.output;
  CommandResult data = kubectl("get configmap app-config -o jsonpath={.data}");
  EXPECT_EQ(data.output, R"({"a":"1","c":"3"})") << data.output;

  CommandResult labeled = kubectl("label configmap app-config env=prod");
  EXPECT_NE(labeled.output.find("configmap/app-config labeled"), std::string::npos) << labeled.output;
  CommandResult selected = kubectl("get configmaps -l env=prod");
  EXPECT_EQ(selected.exit_code, 0) << selected.output;
  EXPECT_NE(selected.output.find("NAME         DATA   AGE"), std::string::npos) << selected.output;
  EXPECT_NE(selected.output.find("app-config   2"), std::string::npos) << selected.output;

  CommandResult stale = kubectl("label configmap app-config x=1 --resource-version=1");
  EXPECT_NE(stale.exit_code, 0);
  EXPECT_NE(stale.output.find("Error from server (Conflict): Operation cannot be fulfilled on configmaps "
                              "\"app-config\": the object has been modified"),
            std::string::npos)
      << stale.output;

  CommandResult deleted = kubectl("delete configmap app-config");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_NE(deleted.output.find("configmap \"app-config\" deleted"), std::string::npos) << deleted.output;
  CommandResult missing = kubectl("get configmap app-config");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("Error from server (NotFound): configmaps \"app-config\" not found"), std::string::npos)
      << missing.output;
}

TEST_F(KubectlTest, CreateFromFileRejectsUnknownFieldsAsKubeApiserverDoes) {
  const auto manifest = kapi().work_dir() / "unknown.yaml";
  FILE* file = std::fopen(manifest.c_str(), "w");
  ASSERT_NE(file, nullptr);
  const std::string text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\ndata:\n  a: b\nextra: 1\n";
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
  CommandResult strict = kubectl("create -f " + manifest.string());
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_NE(strict.output.find("Error from server (BadRequest): error when creating \"" + manifest.string() +
                               "\": ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding "
                               "error: unknown field \"extra\""),
            std::string::npos)
      << strict.output;
  CommandResult warned = kubectl("create --validate=warn -f " + manifest.string());
  EXPECT_EQ(warned.exit_code, 0) << warned.output;
  EXPECT_NE(warned.output.find("Warning: unknown field \"extra\""), std::string::npos) << warned.output;
  EXPECT_NE(warned.output.find("configmap/strict created"), std::string::npos) << warned.output;
}

// resource.Quantity as kube decodes it: what ParseQuantity refuses is a 400 at decoding (kapi stored it, and every
// client reading the quota then failed to decode it), and what it accepts is kept in its canonical spelling.
TEST_F(KubectlTest, QuantitiesAreRefusedOrCanonicalisedAsKubeApiserverDoes) {
  auto write = [&](const std::string& name, const std::string& text) {
    const auto manifest = kapi().work_dir() / name;
    FILE* file = std::fopen(manifest.c_str(), "w");
    EXPECT_NE(file, nullptr);
    if (file) {
      std::fwrite(text.data(), 1, text.size(), file);
      std::fclose(file);
    }
    return manifest;
  };
  const auto bad = write("bad-quota.yaml",
                         "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: bad\nspec:\n  hard:\n    pods: abc\n");
  CommandResult refused = kubectl("create -f " + bad.string());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("Error from server (BadRequest): error when creating \"" + bad.string() +
                                "\": ResourceQuota in version \"v1\" cannot be handled as a ResourceQuota: "
                                "quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(kubectl("get resourcequota bad").exit_code, 0) << "nothing was stored";

  const auto good = write("good-quota.yaml",
                          "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: good\nspec:\n  hard:\n"
                          "    requests.cpu: \"0.5\"\n    requests.memory: 1.5Gi\n    pods: 10\n");
  CommandResult created = kubectl("create -f " + good.string());
  ASSERT_EQ(created.exit_code, 0) << created.output;
  CommandResult hard = kubectl("get resourcequota good -o jsonpath={.spec.hard}");
  EXPECT_EQ(hard.output, R"({"pods":"10","requests.cpu":"500m","requests.memory":"1536Mi"})");
}

// The field manager records the decoded Go object: a manifest's empty (null) keys own nothing, and a container's
// zero resources struct is owned, as in the managedFields kube-apiserver records for `kubectl run`.
TEST_F(KubectlTest, ManagedFieldsAreThoseOfTheDecodedObject) {
  // A namespace of its own: another test leaves a ResourceQuota in default.
  ASSERT_EQ(kubectl("create namespace managed-fields").exit_code, 0);
  const std::string manifest = write_manifest(
      kapi(), "managed-pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: managed\n  namespace: managed-fields\n  labels:\nspec:\n"
      "  nodeSelector:\n  containers:\n  - name: c\n    image: nginx\n    env:\n    - name: A\n      value:\n");
  CommandResult created = kubectl("create -f " + manifest);
  ASSERT_EQ(created.exit_code, 0) << created.output;
  CommandResult fields = kubectl("get pod managed -n managed-fields --show-managed-fields "
                                 "-o jsonpath={.metadata.managedFields[0].fieldsV1}");
  EXPECT_EQ(fields.output,
            R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"A\"}":{".":{},)"
            R"("f:name":{}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},)"
            R"("f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},)"
            R"("f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},)"
            R"("f:terminationGracePeriodSeconds":{}}})");
  EXPECT_EQ(kubectl("delete namespace managed-fields --wait=false").exit_code, 0);
}

TEST_F(KubectlTest, ExplainReadsTheOpenApiSchemas) {
  CommandResult result = kubectl("explain configmap.data");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("KIND:       ConfigMap"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("FIELD: data <map[string]string>"), std::string::npos) << result.output;
  CommandResult metadata = kubectl("explain namespace.metadata.ownerReferences");
  EXPECT_EQ(metadata.exit_code, 0) << metadata.output;
  EXPECT_NE(metadata.output.find("FIELD: ownerReferences <[]OwnerReference>"), std::string::npos) << metadata.output;
}

TEST_F(KubectlTest, ApiResourcesListsTheServedResources) {
  CommandResult result = kubectl("api-resources");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  // Column widths follow the longest name, so rows are matched by their cells.
  for (const char* row : {R"(\nconfigmaps +cm +v1 +true +ConfigMap\n)", R"(\npods +po +v1 +true +Pod\n)",
                          R"(\ndeployments +deploy +apps/v1 +true +Deployment\n)",
                          R"(\nleases +coordination.k8s.io/v1 +true +Lease\n)"})
    EXPECT_TRUE(std::regex_search(result.output, std::regex(row))) << row << "\n" << result.output;
}

TEST_F(KubectlTest, AnnotateYamlApiVersionsAndServerDryRun) {
  ASSERT_EQ(kubectl("create configmap notes --from-literal=a=b").exit_code, 0);
  EXPECT_EQ(kubectl("annotate configmap notes note=hi").output, "configmap/notes annotated\n");
  CommandResult yaml = kubectl("get configmap notes -o yaml");
  EXPECT_EQ(yaml.exit_code, 0) << yaml.output;
  EXPECT_NE(yaml.output.find("kind: ConfigMap\n"), std::string::npos) << yaml.output;
  EXPECT_NE(yaml.output.find("    note: hi\n"), std::string::npos) << yaml.output;

  CommandResult versions = kubectl("api-versions");
  EXPECT_EQ(versions.exit_code, 0) << versions.output;
  for (const char* version : {"apps/v1\n", "coordination.k8s.io/v1\n", "v1\n"})
    EXPECT_NE(versions.output.find(version), std::string::npos) << versions.output;

  CommandResult dry = kubectl("create configmap dry --from-literal=a=b --dry-run=server");
  EXPECT_EQ(dry.output, "configmap/dry created (server dry run)\n");
  EXPECT_EQ(kubectl("get configmap dry").output, "Error from server (NotFound): configmaps \"dry\" not found\n");
}

TEST_F(KubectlTest, ErrorLinesAreKubes) {
  EXPECT_EQ(kubectl("get configmap nope").output, "Error from server (NotFound): configmaps \"nope\" not found\n");
  ASSERT_EQ(kubectl("create configmap twice").exit_code, 0);
  CommandResult again = kubectl("create configmap twice");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_EQ(again.output, "error: failed to create configmap: configmaps \"twice\" already exists\n");
  CommandResult invalid = kubectl("create configmap Bad_Name");
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_NE(invalid.output.find("error: failed to create configmap: ConfigMap \"Bad_Name\" is invalid: metadata.name: "
                                "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of"),
            std::string::npos)
      << invalid.output;
}

// `kubectl get -w` prints each change as it happens: it lists, then watches from the list's resourceVersion.
TEST_F(KubectlTest, GetWatchPrintsAddedModifiedAndDeleted) {
  CommandResult watched;
  std::thread watcher([&] {
    watched = run_kubectl(kapi(), "get configmaps -l watch=me -w --output-watch-events", 6);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // kubectl has listed and is watching
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched","labels":{"watch":"me"}}})";
  auto connection = kapi().connect_admin();
  const std::vector<std::pair<std::string, std::string>> json{{"Content-Type", "application/json"}};
  const std::vector<std::pair<std::string, std::string>> merge{{"Content-Type", "application/merge-patch+json"}};
  EXPECT_EQ(connection.request("POST", "/api/v1/namespaces/default/configmaps", json, body).status, 201);
  EXPECT_EQ(connection.request("PATCH", "/api/v1/namespaces/default/configmaps/watched", merge, R"({"data":{"a":"1"}})")
                .status,
            200);
  EXPECT_EQ(connection.request("DELETE", "/api/v1/namespaces/default/configmaps/watched", json, "").status, 200);
  watcher.join();
  EXPECT_EQ(watched.exit_code, 124) << "ended by the test's time bound\n" << watched.output;
  // (The age is the object's, in whole seconds: a slow run may cross a second between the changes.)
  const std::regex events("EVENT +NAME +DATA +AGE\n"
                          "ADDED +watched +0 +[0-9]s\n"
                          "MODIFIED +watched +1 +[0-9]s\n"
                          "DELETED +watched +1 +[0-9]s\n");
  EXPECT_TRUE(std::regex_match(watched.output, events)) << watched.output;
}

}  // namespace
}  // namespace kapi::integration::kubectl_test

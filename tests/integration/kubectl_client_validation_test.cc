// kubectl validating manifests on the client, against /openapi/v2 as gnostic protobuf. kubectl 1.32 does so when
// its query-param verifier answers "unsupported", which it always does for a `kind: List` (kubectl-wire.md 5.3a):
// it then checks each item against its kind's definition and refuses the whole file, in kube's words, before
// sending anything. Kinds with no definition are let through. On both stores (see tests/meson.build).
#include "tests/integration/crd_setup.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <filesystem>
#include <thread>

namespace kapi::integration::kubectl_client_validation_test {
namespace {

// Gadgets (example.com/v1) with a spec of one string field, size; tests add fields by appending at its depth.
constexpr std::string_view kGadgetSpec =
    "          spec:\n            type: object\n            properties:\n              size: {type: string}\n";
std::string gadgets_crd(const std::string& more_spec_fields = "") {
  return single_version_crd("example.com", "gadgets", "Gadget", "Namespaced", std::string(kGadgetSpec) + more_spec_fields);
}

std::string config_map(std::string_view name, std::string_view data_key = "data") {
  return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: " + std::string(name) + "\n  " +
         std::string(data_key) + ":\n    k: v\n";
}

std::string list(const std::string& items) { return "apiVersion: v1\nkind: List\nitems:\n" + items; }

class KubectlClientValidationTest : public KapiSuite<KubectlClientValidationTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  // kubectl's message for a file it refused: the validation errors, then how to turn validation off.
  static std::string refused(const std::string& file, const std::string& errors) {
    return "error: error validating \"" + file + "\": error validating data: " + errors +
           "; if you choose to ignore these errors, turn validation off with --validate=false\n";
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(KubectlClientValidationTest, ApplyingAListOfConfigMapsValidatesThemAgainstTheProtobufOpenApi) {
  const std::string file = write_manifest(kapi(), "two-configmaps.yaml", list(config_map("one") + config_map("two")));
  CommandResult applied = kubectl("apply -f " + file);
  EXPECT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_EQ(applied.output, "configmap/one created\nconfigmap/two created\n");
  CommandResult created = kubectl("create -f " + write_manifest(kapi(), "three.yaml", list(config_map("three"))));
  EXPECT_EQ(created.output, "configmap/three created\n");
  // A kind the document does not describe is not validated.
  CommandResult unknown_kind =
      kubectl("apply -f " + write_manifest(kapi(), "unknown-kind.yaml",
                                           list("- apiVersion: nowhere.example.com/v1\n  kind: Nothing\n  metadata:\n"
                                                "    name: n\n  anything: 1\n")));
  EXPECT_NE(unknown_kind.output.find("no matches for kind \"Nothing\" in version \"nowhere.example.com/v1\""),
            std::string::npos)
      << unknown_kind.output;
}

TEST_F(KubectlClientValidationTest, AnUnknownFieldInAListItemIsRefusedAsKubeRefusesIt) {
  const std::string file = write_manifest(kapi(), "typo.yaml", list(config_map("fine") + config_map("typo", "datax")));
  CommandResult applied = kubectl("apply -f " + file);
  EXPECT_EQ(applied.exit_code, 1);
  EXPECT_EQ(applied.output,
            refused(file, R"(ValidationError(ConfigMap): unknown field "datax" in io.k8s.api.core.v1.ConfigMap)"));
  EXPECT_NE(kubectl("get configmap fine").exit_code, 0);  // nothing of the file was sent

  // Several errors are listed together; a wrong type is named with the field's path.
  const std::string two =
      write_manifest(kapi(), "two-errors.yaml",
                     list(config_map("typo", "datax") +
                          "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: typed\n  immutable: \"yes\"\n"));
  EXPECT_EQ(kubectl("create -f " + two).output,
            refused(two,
                    "[ValidationError(ConfigMap): unknown field \"datax\" in io.k8s.api.core.v1.ConfigMap, "
                    "ValidationError(ConfigMap.immutable): invalid type for io.k8s.api.core.v1.ConfigMap.immutable: "
                    "got \"string\", expected \"boolean\"]"));
  EXPECT_EQ(kubectl("apply --validate=false -f " + file).output, "configmap/fine created\nconfigmap/typo created\n");
}

TEST_F(KubectlClientValidationTest, ACustomResourceInAListIsValidatedAgainstItsDefinitionsSchema) {
  CommandResult installed =
      apply_crd_and_wait(kapi(), "gadgets-crd.yaml", gadgets_crd(), "gadgets.example.com");
  ASSERT_EQ(installed.exit_code, 0) << installed.output;
  const std::string gadget = "- apiVersion: example.com/v1\n  kind: Gadget\n  metadata:\n    name: g\n  spec:\n";
  // kapi's /openapi/v2 holds the CRD's schema as soon as it is established; kubectl reads it afresh each run.
  const std::string bad =
      write_manifest(kapi(), "bad-gadget.yaml", list(config_map("beside") + gadget + "    size: big\n    extra: 1\n"));
  CommandResult refused_apply = kubectl("apply -f " + bad);
  EXPECT_EQ(refused_apply.exit_code, 1);
  EXPECT_EQ(refused_apply.output,
            refused(bad, R"(ValidationError(Gadget.spec): unknown field "extra" in com.example.v1.Gadget.spec)"));

  const std::string good = write_manifest(kapi(), "good-gadget.yaml", list(gadget + "    size: big\n"));
  CommandResult applied = kubectl("apply -f " + good);
  EXPECT_EQ(applied.output, "gadget.example.com/g created\n");
  // Applying again goes through apply's patch: the v2 document says a custom resource takes no strategic merge
  // patch, so kubectl sends a JSON merge patch.
  const std::string changed = write_manifest(kapi(), "changed-gadget.yaml", list(gadget + "    size: small\n"));
  EXPECT_EQ(kubectl("apply -f " + changed).output, "gadget.example.com/g configured\n");
  EXPECT_EQ(kubectl("get gadget g -o jsonpath={.spec.size}").output, "small");

  // A changed schema is a new document, protobuf included: once the CRD's new version of it is served, the field
  // the old one refused is known.
  const std::string with_extra = gadgets_crd("              extra: {type: integer}\n");
  ASSERT_EQ(kubectl("apply -f " + write_manifest(kapi(), "gadgets-crd-2.yaml", with_extra)).exit_code, 0);
  bool served = false;
  for (int i = 0; i < 100 && !served; ++i) {
    const HttpResponse v2 = kapi().connect_admin().request(
        "GET", "/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
    served = v2.status == 200 && v2.body.find("extra") != std::string::npos;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(served);
  EXPECT_EQ(kubectl("apply -f " + bad).output, "configmap/beside created\ngadget.example.com/g configured\n");
}

}  // namespace
}  // namespace kapi::integration::kubectl_client_validation_test

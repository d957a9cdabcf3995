// Debian's python3-kubernetes against kapi: tests/integration/clients/python_resources.py drives each resource
// issue 18 added through the client's typed APIs (whose models refuse answers missing what kube sends).
#include "tests/integration/kapi_suite.h"
#include "tests/support/command.h"

#include <cstdlib>
#include <filesystem>

namespace kapi::integration::python_client_test {
namespace {

class PythonClientTest : public KapiSuite<PythonClientTest> {};

TEST_F(PythonClientTest, TypedApisCreateReadListReplaceAndDeleteEachNewResource) {
  const char* source_root = std::getenv("KAPI_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "KAPI_SOURCE_ROOT names the repository (meson test sets it)";
  const auto script = std::filesystem::path(source_root) / "tests/integration/clients/python_resources.py";
  test_support::CommandResult result = test_support::run_command(
      "timeout 120 /usr/bin/python3 '" + script.string() + "' '" + kapi().admin_kubeconfig().string() + "' 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  for (const char* resource : {"horizontalpodautoscalers.v1", "events.events.k8s.io", "jobs", "cronjobs",
                               "poddisruptionbudgets", "ingresses", "networkpolicies", "priorityclasses",
                               "storageclasses", "runtimeclasses", "endpointslices", "limitranges", "resourcequotas",
                               "persistentvolumeclaims", "persistentvolumes", "podtemplates", "replicationcontrollers",
                               "componentstatuses"})
    EXPECT_NE(result.output.find(std::string(resource) + " ok\n"), std::string::npos) << resource << "\n"
                                                                                      << result.output;
}

}  // namespace
}  // namespace kapi::integration::python_client_test

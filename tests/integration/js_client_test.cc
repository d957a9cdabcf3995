// @kubernetes/client-node against kapi: tests/integration/clients/js_resources.cjs drives resources issue 18 added
// through the client's typed APIs (installed by scripts/install-deps).
#include "tests/integration/kapi_suite.h"
#include "tests/support/command.h"

#include <cstdlib>
#include <filesystem>

namespace kapi::integration::js_client_test {
namespace {

constexpr const char* kNodeModules = "/usr/local/lib/kapi-test-clients/node_modules";

class JsClientTest : public KapiSuite<JsClientTest> {};

TEST_F(JsClientTest, TypedApisCreateReadListPatchAndDeleteNewResources) {
  const char* source_root = std::getenv("KAPI_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "KAPI_SOURCE_ROOT names the repository (meson test sets it)";
  ASSERT_TRUE(std::filesystem::exists(std::string(kNodeModules) + "/@kubernetes/client-node"))
      << "@kubernetes/client-node is not installed (scripts/install-deps)";
  const auto script = std::filesystem::path(source_root) / "tests/integration/clients/js_resources.cjs";
  test_support::CommandResult result =
      test_support::run_command("NODE_PATH='" + std::string(kNodeModules) + "' timeout 120 node '" + script.string() +
                                "' '" + kapi().admin_kubeconfig().string() + "' 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  for (const char* resource : {"horizontalpodautoscalers.v2", "jobs", "cronjobs", "ingresses", "poddisruptionbudgets",
                               "priorityclasses", "storageclasses", "persistentvolumeclaims", "events.events.k8s.io"})
    EXPECT_NE(result.output.find(std::string(resource) + " ok\n"), std::string::npos) << resource << "\n"
                                                                                      << result.output;
}

}  // namespace
}  // namespace kapi::integration::js_client_test

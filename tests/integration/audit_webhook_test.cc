// The audit webhook backend (--audit-webhook-config-file, batch mode) against the sample webhook's collector:
// events reach it as audit.k8s.io/v1 EventLists, batched within --audit-webhook-batch-max-wait, alongside the log
// backend; and the flags kube refuses.
#include "tests/integration/auth_webhook_support.h"

#include <cstdlib>

namespace kapi::integration::audit_webhook_test {
namespace {

namespace json = boost::json;

std::string audit_policy() {
  static test_support::TempDir dir("kapi-audit-webhook-policy");
  const auto path = dir.path() / "policy.yaml";
  std::ofstream(path) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";
  return path.string();
}

class AuditWebhookTest : public KapiSuite<AuditWebhookTest> {
 public:
  static KapiOptions kapi_options() {
    static test_support::TempDir logs("kapi-audit-webhook-log");
    KapiOptions options;
    options.extra_flags = {"--audit-policy-file=" + audit_policy(),
                           "--audit-log-path=" + (logs.path() / "audit.log").string(),
                           "--audit-webhook-config-file=" + webhook_config_for("audit", "/audit"),
                           "--audit-webhook-batch-max-wait=500ms"};
    return options;
  }
};

// The events the collector received for `uri` (the stage of each).
std::vector<std::string> collected_stages(std::string_view uri) {
  std::vector<std::string> stages;
  for (const auto& request : shared_sample_webhook().requests_for("/audit")) {
    const json::object& list = request.at("review").as_object();
    EXPECT_EQ(list.at("apiVersion"), "audit.k8s.io/v1");
    for (const json::value& item : list.at("items").as_array()) {
      const json::object& event = item.as_object();
      if (event.at("requestURI").as_string() == uri) stages.emplace_back(event.at("stage").as_string());
    }
  }
  return stages;
}

TEST_F(AuditWebhookTest, EventsReachTheCollectorInBatches) {
  const std::string uri = "/api/v1/namespaces/default/configmaps?labelSelector=audit-webhook-test";
  ASSERT_EQ(kapi().connect_admin().request("GET", uri).status, 200);
  EXPECT_TRUE(eventually([&] { return collected_stages(uri).size() >= 2; })) << shared_sample_webhook().logs();
  const std::vector<std::string> stages = collected_stages(uri);
  EXPECT_EQ(stages, (std::vector<std::string>{"RequestReceived", "ResponseComplete"}));
  for (const auto& request : shared_sample_webhook().requests_for("/audit"))
    EXPECT_EQ(request.at("review").at("kind"), "EventList");
}

TEST(AuditWebhookStartupTest, KubesRefusalsOfTheWebhookFlags) {
  const auto start = [](const std::string& flags) {
    test_support::TempDir dir("kapi-audit-webhook-startup");
    return test_support::run_command("timeout 60 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" +
                                     (dir.path() / "data").string() + " --secure-port=" +
                                     std::to_string(test_support::pick_free_port()) + " --audit-policy-file=" +
                                     audit_policy() + " " + flags);
  };
  const std::string config = webhook_config_for("audit-startup", "/audit");
  const CommandResult mode = start("--audit-webhook-config-file=" + config + " --audit-webhook-mode=eventually");
  EXPECT_EQ(mode.exit_code, 1) << mode.output;
  EXPECT_NE(mode.output.find("invalid audit webhook mode eventually, allowed modes are \"batch,blocking,blocking-strict\""),
            std::string::npos)
      << mode.output;
  const CommandResult size = start("--audit-webhook-config-file=" + config + " --audit-webhook-batch-buffer-size=0");
  EXPECT_EQ(size.exit_code, 1) << size.output;
  EXPECT_NE(size.output.find("invalid audit batch webhook buffer size 0, must be a positive number"), std::string::npos)
      << size.output;
}

}  // namespace
}  // namespace kapi::integration::audit_webhook_test

// Pods, services, endpoints, events and nodes over real HTTPS and through the real kubectl: kube's defaults and
// status on create, validation Statuses, field selectors and Tables; service cluster IPs and node ports allocated
// once each, released on delete and still known after a restart (on a real etcd, under kube's keys).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

namespace kapi::integration::core_resources_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kTable{{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}};
constexpr std::string_view kPods = "/api/v1/namespaces/default/pods";
constexpr std::string_view kServices = "/api/v1/namespaces/default/services";

std::string pod_body(std::string_view name, std::string_view image = "nginx") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"(","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":")" + std::string(image) +
         R"(","ports":[{"containerPort":80}]}]}})";
}

std::string service_body(std::string_view name, std::string_view spec_extra = "") {
  return R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"selector":{"app":"web"},"ports":[{"port":80,"targetPort":8080}])" +
         (spec_extra.empty() ? "" : "," + std::string(spec_extra)) + "}}";
}

std::string cluster_ip(const HttpResponse& response) {
  auto object = json_object(response.body);
  const auto* spec = object.if_contains("spec");
  if (!spec || !spec->is_object() || !spec->as_object().contains("clusterIP")) return "";
  return std::string(spec->as_object().at("clusterIP").as_string());
}

std::vector<std::string> item_names(const HttpResponse& response) {
  std::vector<std::string> names;
  auto list = json_object(response.body);
  if (auto* items = list.if_contains("items"); items && items->is_array())
    for (const auto& item : items->as_array())
      names.emplace_back(item.at("metadata").at("name").as_string());
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class CoreResourcesTest : public KapiSuite<CoreResourcesTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
};

TEST_F(CoreResourcesTest, APodIsCreatedPendingWithKubesDefaults) {
  HttpResponse created = call("POST", kPods, pod_body("defaults"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto pod = json_object(created.body);
  const auto& spec = pod["spec"].as_object();
  const auto& container = spec.at("containers").at(0).as_object();
  EXPECT_EQ(container.at("imagePullPolicy"), "Always");
  EXPECT_EQ(container.at("terminationMessagePath"), "/dev/termination-log");
  EXPECT_EQ(container.at("ports").at(0).at("protocol"), "TCP");
  EXPECT_EQ(spec.at("restartPolicy"), "Always");
  EXPECT_EQ(spec.at("dnsPolicy"), "ClusterFirst");
  EXPECT_EQ(spec.at("schedulerName"), "default-scheduler");
  EXPECT_EQ(spec.at("terminationGracePeriodSeconds"), 30);
  EXPECT_EQ(spec.at("enableServiceLinks"), true);
  EXPECT_EQ(spec.at("securityContext"), json::object());
  EXPECT_EQ(pod["status"], json::parse(R"({"phase":"Pending","qosClass":"BestEffort"})"));
  EXPECT_FALSE(pod["metadata"].as_object().contains("generation"));

  // The image may change; anything else in the spec may not.
  auto updated = pod;
  updated["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "nginx:1.27";
  HttpResponse image = call("PUT", std::string(kPods) + "/defaults", json::serialize(updated));
  ASSERT_EQ(image.status, 200) << image.body;
  auto forbidden = json_object(image.body);
  forbidden["spec"].as_object()["nodeSelector"] = json::object{{"disk", "ssd"}};
  HttpResponse refused = call("PUT", std::string(kPods) + "/defaults", json::serialize(forbidden));
  EXPECT_TRUE(is_status(refused, 422, "Invalid"));
  EXPECT_TRUE(status_message(refused).starts_with(
      "Pod \"defaults\" is invalid: spec: Forbidden: pod updates may not change fields other than "
      "`spec.containers[*].image`"))
      << refused.body;
  EXPECT_EQ(call("DELETE", std::string(kPods) + "/defaults").status, 200);
}

TEST_F(CoreResourcesTest, InvalidPodsAreRefusedWithKubesCauses) {
  HttpResponse refused = call("POST", kPods,
                              R"({"metadata":{"name":"bad"},"spec":{"restartPolicy":"Sometimes","containers":[
                                 {"name":"a","image":"x"},{"name":"a","image":"","ports":[{"containerPort":0}]}]}})");
  EXPECT_TRUE(is_status(refused, 422, "Invalid"));
  EXPECT_EQ(status_message(refused),
            "Pod \"bad\" is invalid: [spec.containers[1].ports[0].containerPort: Required value, "
            "spec.containers[1].name: Duplicate value: \"a\", spec.restartPolicy: Unsupported value: \"Sometimes\": "
            "supported values: \"Always\", \"OnFailure\", \"Never\", spec.containers[1].image: Required value]");
  auto causes = json_object(refused.body)["details"].at("causes").as_array();
  ASSERT_EQ(causes.size(), 4u);
  EXPECT_EQ(causes[1].at("field"), "spec.containers[1].name");
  EXPECT_EQ(causes[1].at("reason"), "FieldValueDuplicate");
}

TEST_F(CoreResourcesTest, PodsAreSelectedByKubesFieldsAndPrintedAsKubePrintsThem) {
  ASSERT_EQ(call("POST", kPods, pod_body("selected")).status, 201);
  EXPECT_TRUE(contains(item_names(call("GET", std::string(kPods) + "?fieldSelector=status.phase%3DPending")), "selected"));
  EXPECT_FALSE(contains(item_names(call("GET", std::string(kPods) + "?fieldSelector=status.phase%3DRunning")), "selected"));
  EXPECT_TRUE(contains(item_names(call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D,spec.restartPolicy%3DAlways")),
                       "selected"));
  HttpResponse unsupported = call("GET", std::string(kPods) + "?fieldSelector=spec.image%3Dx");
  EXPECT_TRUE(is_status(unsupported, 400, "BadRequest"));

  HttpResponse table = call("GET", std::string(kPods) + "/selected", {}, kTable);
  ASSERT_EQ(table.status, 200) << table.body;
  auto object = json_object(table.body);
  std::vector<std::string> columns;
  for (const auto& column : object["columnDefinitions"].as_array()) columns.emplace_back(column.at("name").as_string());
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                               "Nominated Node", "Readiness Gates"}));
  const auto& cells = object["rows"].at(0).at("cells").as_array();
  EXPECT_EQ(cells.at(0), "selected");
  EXPECT_EQ(cells.at(1), "0/1");
  EXPECT_EQ(cells.at(2), "Pending");
  EXPECT_EQ(cells.at(3), "0");
  EXPECT_EQ(cells.at(5), "<none>");
  EXPECT_EQ(call("DELETE", std::string(kPods) + "/selected").status, 200);
}

TEST_F(CoreResourcesTest, TheKubernetesServiceFrontsTheSecurePort) {
  HttpResponse got = call("GET", std::string(kServices) + "/kubernetes");
  ASSERT_EQ(got.status, 200) << got.body;
  auto service = json_object(got.body);
  EXPECT_EQ(service["spec"].at("clusterIP"), "10.0.0.1");
  EXPECT_EQ(service["spec"].at("ports"),
            json::parse(R"([{"name":"https","protocol":"TCP","port":443,"targetPort":)" + std::to_string(kapi().port()) + "}]"));
  EXPECT_EQ(service["metadata"].at("labels"), json::parse(R"({"component":"apiserver","provider":"kubernetes"})"));

  // Its endpoints lead to this server, as kube-apiserver's endpoint reconciler writes them: kapi binds 127.0.0.1
  // here, which endpoints may not name, so the host's own address is advertised.
  HttpResponse endpoints = call("GET", "/api/v1/namespaces/default/endpoints/kubernetes");
  ASSERT_EQ(endpoints.status, 200) << endpoints.body;
  auto written = json_object(endpoints.body);
  const auto& subset = written["subsets"].at(0).as_object();
  const std::string ip(subset.at("addresses").at(0).at("ip").as_string());
  EXPECT_FALSE(ip.starts_with("127.")) << endpoints.body;
  EXPECT_EQ(subset.at("ports"), json::parse(R"([{"name":"https","port":)" + std::to_string(kapi().port()) +
                                            R"(,"protocol":"TCP"}])"));
  EXPECT_EQ(written["metadata"].at("labels"), json::parse(R"({"endpointslice.kubernetes.io/skip-mirror":"true"})"));
}

TEST_F(CoreResourcesTest, ClusterIpsAreAllocatedOnceAndReleasedOnDelete) {
  HttpResponse created = call("POST", kServices, service_body("alloc"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string ip = cluster_ip(created);
  EXPECT_TRUE(ip.starts_with("10.0.0.")) << ip;
  auto service = json_object(created.body);
  EXPECT_EQ(service["spec"].at("clusterIPs"), json::array{json::string(ip)});
  EXPECT_EQ(service["spec"].at("type"), "ClusterIP");
  EXPECT_EQ(service["spec"].at("sessionAffinity"), "None");
  EXPECT_EQ(service["spec"].at("ports").at(0).at("protocol"), "TCP");

  HttpResponse taken = call("POST", kServices, service_body("alloc-copy", R"("clusterIP":")" + ip + "\""));
  EXPECT_TRUE(is_status(taken, 422, "Invalid"));
  EXPECT_EQ(status_message(taken), "Service \"alloc-copy\" is invalid: spec.clusterIPs: Invalid value: []string{\"" +
                                       ip + "\"}: failed to allocate IP " + ip + ": provided IP is already allocated");

  ASSERT_EQ(call("DELETE", std::string(kServices) + "/alloc").status, 200);
  // The release follows the deletion's watch event: moments, not a request later.
  HttpResponse reused;
  for (auto deadline = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < deadline;) {
    reused = call("POST", kServices, service_body("alloc-copy", R"("clusterIP":")" + ip + "\""));
    if (reused.status != 422) break;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(reused.status, 201) << reused.body;
  EXPECT_EQ(cluster_ip(reused), ip);

  HttpResponse headless = call("POST", kServices, service_body("headless", R"("clusterIP":"None")"));
  ASSERT_EQ(headless.status, 201) << headless.body;
  EXPECT_EQ(cluster_ip(headless), "None");
  HttpResponse node_port = call("POST", kServices, service_body("exposed", R"("type":"NodePort")"));
  ASSERT_EQ(node_port.status, 201) << node_port.body;
  const auto port = json_object(node_port.body)["spec"].at("ports").at(0).at("nodePort").as_int64();
  EXPECT_GE(port, 30000);
  EXPECT_LE(port, 32767);
  for (const char* name : {"alloc-copy", "headless", "exposed"})
    EXPECT_EQ(call("DELETE", std::string(kServices) + "/" + name).status, 200);
}

TEST_F(CoreResourcesTest, ConcurrentCreatesGetDistinctAddresses) {
  std::mutex mutex;
  std::set<std::string> addresses;
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&, c] {
      auto connection = kapi().connect_admin();
      for (int i = 0; i < 5; ++i) {
        const std::string name = "race-" + std::to_string(c) + "-" + std::to_string(i);
        HttpResponse created = connection.request("POST", kServices, kJson, service_body(name));
        std::lock_guard lock(mutex);
        if (created.status != 201) failures.push_back(created.body);
        else if (!addresses.insert(cluster_ip(created)).second) failures.push_back("duplicate " + cluster_ip(created));
      }
    });
  for (auto& client : clients) client.join();
  EXPECT_TRUE(failures.empty()) << failures.front();
  EXPECT_EQ(addresses.size(), 20u);
  EXPECT_FALSE(addresses.contains("10.0.0.1"));
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 5; ++i)
      call("DELETE", std::string(kServices) + "/race-" + std::to_string(c) + "-" + std::to_string(i));
}

TEST_F(CoreResourcesTest, EndpointsEventsAndNodes) {
  HttpResponse endpoints = call("PUT", "/api/v1/namespaces/default/endpoints/web",
                                R"({"metadata":{"name":"web"},"subsets":[{"addresses":[{"ip":"10.1.0.1"}],"ports":[{"port":8080}]}]})");
  ASSERT_EQ(endpoints.status, 201) << endpoints.body;  // endpoints may be created by PUT
  EXPECT_EQ(json_object(endpoints.body)["subsets"].at(0).at("ports").at(0).at("protocol"), "TCP");
  HttpResponse loopback = call("POST", "/api/v1/namespaces/default/endpoints",
                               R"({"metadata":{"name":"lo"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}]}]})");
  EXPECT_TRUE(is_status(loopback, 422, "Invalid"));

  HttpResponse event = call("POST", "/api/v1/namespaces/default/events",
                            R"({"metadata":{"name":"web.1"},"involvedObject":{"kind":"Pod","name":"web","namespace":"default"},
                               "reason":"Started","message":"Started container","type":"Normal","count":1,
                               "source":{"component":"kubelet"}})");
  ASSERT_EQ(event.status, 201) << event.body;
  EXPECT_TRUE(contains(item_names(call("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb")),
                       "web.1"));
  HttpResponse events_table = call("GET", "/api/v1/namespaces/default/events/web.1", {}, kTable);
  auto cells = json_object(events_table.body)["rows"].at(0).at("cells").as_array();
  EXPECT_EQ(cells.at(3), "pod/web");
  EXPECT_EQ(cells.at(6), "Started container");

  HttpResponse node = call("POST", "/api/v1/nodes",
                           R"({"metadata":{"name":"node-1","labels":{"node-role.kubernetes.io/worker":""}},
                              "status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}})");
  ASSERT_EQ(node.status, 201) << node.body;
  auto node_cells = json_object(call("GET", "/api/v1/nodes/node-1", {}, kTable).body)["rows"].at(0).at("cells").as_array();
  EXPECT_EQ(node_cells.at(1), "Ready");
  EXPECT_EQ(node_cells.at(2), "worker");
  EXPECT_EQ(node_cells.at(4), "v1.32.0");
  EXPECT_TRUE(contains(item_names(call("GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse")), "node-1"));
  EXPECT_EQ(call("DELETE", "/api/v1/nodes/node-1").status, 200);
}

// Allocation state comes from the stored services: a second kapi on the same etcd knows what the first handed out.
TEST(CoreResourcesRestartTest, AllocationsSurviveARestart) {
  test_support::EtcdProcess etcd;
  const std::vector<std::string> flags{"--etcd-servers=" + etcd.endpoint()};
  std::string ip;
  std::int64_t node_port = 0;
  {
    KapiProcess first({.extra_flags = flags});
    auto created = first.connect_admin().request("POST", kServices, kJson, service_body("kept", R"("type":"NodePort")"));
    ASSERT_EQ(created.status, 201) << created.body << first.logs();
    ip = cluster_ip(created);
    node_port = json_object(created.body)["spec"].at("ports").at(0).at("nodePort").as_int64();
    auto endpoints = first.connect_admin().request("POST", "/api/v1/namespaces/default/endpoints", kJson,
                                                   R"({"metadata":{"name":"kept"}})");
    ASSERT_EQ(endpoints.status, 201) << endpoints.body;
    auto node = first.connect_admin().request("POST", "/api/v1/nodes", kJson, R"({"metadata":{"name":"n1"}})");
    ASSERT_EQ(node.status, 201) << node.body;
    EXPECT_EQ(first.shut_down(20s), 0) << first.logs();
  }
  // kube's keys: services under services/specs, endpoints under services/endpoints, nodes under minions.
  const std::string keys = etcd.etcdctl("get /registry --prefix --keys-only");
  for (const char* key : {"/registry/services/specs/default/kept", "/registry/services/specs/default/kubernetes",
                          "/registry/services/endpoints/default/kept", "/registry/minions/n1"})
    EXPECT_NE(keys.find(key), std::string::npos) << key << " missing from\n" << keys;

  KapiProcess second({.extra_flags = flags});
  auto again = second.connect_admin().request("POST", kServices, kJson,
                                              service_body("copy", R"("clusterIP":")" + ip + "\""));
  EXPECT_TRUE(is_status(again, 422, "Invalid")) << second.logs();
  EXPECT_NE(status_message(again).find("provided IP is already allocated"), std::string::npos);
  auto port_again = second.connect_admin().request(
      "POST", kServices, kJson,
      R"({"metadata":{"name":"port-copy"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":)" +
          std::to_string(node_port) + "}]}}");
  EXPECT_TRUE(is_status(port_again, 422, "Invalid"));
  EXPECT_NE(status_message(port_again).find("provided port is already allocated"), std::string::npos);
  auto kubernetes = second.connect_admin().request("GET", std::string(kServices) + "/kubernetes");
  EXPECT_EQ(cluster_ip(kubernetes), "10.0.0.1");
  EXPECT_EQ(second.shut_down(20s), 0) << second.logs();
  EXPECT_EQ(second.sanitizer_reports(), "");
}

// The real kubectl (1.32, chosen by /usr/bin/kubectl from /version) against the core resources.
class KubectlCoreTest : public KapiSuite<KubectlCoreTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(KubectlCoreTest, RunGetAndDeleteAPod) {
  CommandResult run = kubectl("run nginx --image=nginx");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "pod/nginx created\n");

  CommandResult listed = kubectl("get pods");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_TRUE(listed.output.starts_with("NAME    READY   STATUS    RESTARTS   AGE\nnginx   0/1     Pending   0          "))
      << listed.output;

  CommandResult wide = kubectl("get pods -o wide");
  EXPECT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_NE(wide.output.find("NAME    READY   STATUS    RESTARTS   AGE"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("IP       NODE     NOMINATED NODE   READINESS GATES\n"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("<none>   <none>   <none>           <none>\n"), std::string::npos) << wide.output;

  CommandResult pending = kubectl("get pods --field-selector status.phase=Pending -o name");
  EXPECT_EQ(pending.output, "pod/nginx\n");
  CommandResult running = kubectl("get pods --field-selector status.phase=Running");
  EXPECT_EQ(running.output, "No resources found in default namespace.\n");

  CommandResult described = kubectl("describe pod nginx");
  EXPECT_EQ(described.exit_code, 0) << described.output;
  // describe aligns its values to the longest label it printed: the labels and values, not the spacing.
  auto value_after = [&](std::string_view label) {
    const auto at = described.output.find(std::string("\n") + std::string(label));
    if (at == std::string::npos) return std::string();
    const auto start = described.output.find_first_not_of(' ', at + 1 + label.size());
    return described.output.substr(start, described.output.find('\n', start) - start);
  };
  EXPECT_EQ(value_after("Status:"), "Pending") << described.output;
  EXPECT_EQ(value_after("QoS Class:"), "BestEffort") << described.output;
  EXPECT_EQ(value_after("Labels:"), "run=nginx") << described.output;

  CommandResult deleted = kubectl("delete pod nginx");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_EQ(deleted.output, "pod \"nginx\" deleted\n");
  EXPECT_EQ(kubectl("get pods").output, "No resources found in default namespace.\n");
}

TEST_F(KubectlCoreTest, CreateAndListServices) {
  CommandResult created = kubectl("create service clusterip my-svc --tcp=80:8080");
  EXPECT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(created.output, "service/my-svc created\n");

  CommandResult listed = kubectl("get svc");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_TRUE(listed.output.starts_with("NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n")) << listed.output;
  EXPECT_NE(listed.output.find("kubernetes   ClusterIP   10.0.0.1     <none>        443/TCP   "), std::string::npos)
      << listed.output;
  const auto row = listed.output.find("my-svc       ClusterIP   10.0.0.");
  EXPECT_NE(row, std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("<none>        80/TCP    ", row), std::string::npos) << listed.output;

  CommandResult wide = kubectl("get svc my-svc -o wide");
  EXPECT_NE(wide.output.find("SELECTOR"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("app=my-svc"), std::string::npos) << wide.output;

  CommandResult deleted = kubectl("delete svc my-svc");
  EXPECT_EQ(deleted.output, "service \"my-svc\" deleted\n");
}

TEST_F(KubectlCoreTest, ApplyAServiceManifest) {
  const auto manifest = kapi().work_dir() / "svc.yaml";
  FILE* file = std::fopen(manifest.c_str(), "w");
  ASSERT_NE(file, nullptr);
  const std::string text =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  type: NodePort\n  selector:\n    app: web\n"
      "  ports:\n  - name: http\n    port: 80\n    targetPort: 8080\n";
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
  CommandResult applied = kubectl("apply -f " + manifest.string());
  EXPECT_EQ(applied.output, "service/applied created\n");
  CommandResult ip = kubectl("get svc applied -o jsonpath={.spec.clusterIP}");
  EXPECT_TRUE(ip.output.starts_with("10.0.0.")) << ip.output;
  // Re-applying keeps the allocated cluster IP and node port (the client never sent them).
  CommandResult port = kubectl("get svc applied -o jsonpath={.spec.ports[0].nodePort}");
  CommandResult reapplied = kubectl("apply -f " + manifest.string());
  EXPECT_EQ(reapplied.output, "service/applied unchanged\n");
  EXPECT_EQ(kubectl("get svc applied -o jsonpath={.spec.clusterIP}").output, ip.output);
  EXPECT_EQ(kubectl("get svc applied -o jsonpath={.spec.ports[0].nodePort}").output, port.output);
  EXPECT_EQ(kubectl("delete -f " + manifest.string()).exit_code, 0);
}

}  // namespace
}  // namespace kapi::integration::core_resources_test

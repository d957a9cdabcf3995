// kube-controller-manager's controllers as kapi runs them (server/controllers/manager.h): chosen with
// --controllers, run by the holder of the kube-system/kapi-controller-manager Lease only, and what two of them do
// for every namespace: a "default" ServiceAccount and the kube-root-ca.crt ConfigMap with the cluster's CA. The
// garbage collector's own behaviour is garbage_collector_test.cc's; here it is one of the managed controllers.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/command.h"
#include "tests/support/etcd_process.h"

#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

namespace kapi::integration::controller_manager_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kJson{{"Content-Type", "application/json"}};
constexpr std::string_view kDescription =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";
constexpr std::string_view kLeader = "leader_election_master_status{name=\"kapi-controller-manager\"}";

std::string file_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The value of one series on kapi's /metrics; std::nullopt when it is not there.
std::optional<double> metric(const KapiProcess& kapi, std::string_view series) {
  const HttpResponse response = kapi.connect_admin().request("GET", "/metrics", {}, {});
  std::istringstream lines(response.body);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(series) && line.size() > series.size() && line[series.size()] == ' ')
      return std::stod(line.substr(series.size() + 1));
  return std::nullopt;
}

// The sum of a family's series whose labels contain `labels` (every series when empty).
double metric_sum(const KapiProcess& kapi, std::string_view family, std::string_view labels = "") {
  const HttpResponse response = kapi.connect_admin().request("GET", "/metrics", {}, {});
  std::istringstream lines(response.body);
  double sum = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(std::string(family) + "{") && !line.starts_with(std::string(family) + " ")) continue;
    const std::size_t space = line.rfind(' ');
    if (line.substr(0, space).find(labels) == std::string::npos) continue;
    sum += std::stod(line.substr(space + 1));
  }
  return sum;
}

json::object get_json(const KapiProcess& kapi, std::string_view path) {
  const HttpResponse response = kapi.connect_admin().request("GET", path, {}, {});
  if (response.status != 200) return {};
  return json_object(response.body);
}

std::string string_at(const json::object& object, std::initializer_list<std::string_view> path) {
  const json::value* value = nullptr;
  const json::object* here = &object;
  for (std::string_view key : path) {
    value = here ? here->if_contains(key) : nullptr;
    if (!value) return {};
    here = value->is_object() ? &value->as_object() : nullptr;
  }
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::string root_ca_path(std::string_view namespace_) {
  return "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps/kube-root-ca.crt";
}

HttpResponse create_namespace(const KapiProcess& kapi, std::string_view name) {
  return kapi.connect_admin().request(
      "POST", "/api/v1/namespaces", kJson,
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(name) + R"("}})");
}

// A ConfigMap `name` in `namespace_`, owned by the ConfigMap `owner` there when one is named; its uid.
std::string create_configmap(const KapiProcess& kapi, std::string_view namespace_, std::string_view name,
                             std::string_view owner = {}, std::string_view owner_uid = {}) {
  json::object metadata{{"name", name}};
  if (!owner.empty())
    metadata["ownerReferences"] =
        json::array{json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", owner}, {"uid", owner_uid}}};
  const HttpResponse created = kapi.connect_admin().request(
      "POST", "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps", kJson,
      json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}}));
  if (created.status != 201) return {};
  return string_at(json_object(created.body), {"metadata", "uid"});
}

std::string configmap_path(std::string_view namespace_, std::string_view name) {
  return "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps/" + std::string(name);
}

// Deletes the ConfigMap `owner` with `policy`; the response's status.
int delete_configmap(const KapiProcess& kapi, std::string_view namespace_, std::string_view owner,
                     std::string_view policy) {
  return kapi.connect_admin()
      .request("DELETE", configmap_path(namespace_, owner), kJson,
               R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":")" + std::string(policy) + R"("})")
      .status;
}

class ControllerManagerTest : public KapiSuite<ControllerManagerTest> {};

TEST_F(ControllerManagerTest, ANewNamespaceGetsTheDefaultServiceAccountAndTheRootCaConfigMap) {
  CommandResult created = run_kubectl(kapi(), "create namespace cm-new");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  ASSERT_TRUE(eventually([&] { return run_kubectl(kapi(), "get serviceaccount default -n cm-new").exit_code == 0; }))
      << kapi().logs();
  CommandResult read;
  ASSERT_TRUE(eventually([&] {
    read = run_kubectl(kapi(), "get configmap kube-root-ca.crt -n cm-new -o json");
    return read.exit_code == 0;
  })) << read.output
      << kapi().logs();
  const json::object configmap = json_object(read.output);
  EXPECT_EQ(string_at(configmap, {"data", "ca.crt"}), file_text(kapi().ca_cert())) << "the client CA, by default";
  EXPECT_EQ(string_at(configmap, {"metadata", "annotations", "kubernetes.io/description"}), kDescription);
  // The system namespaces have theirs too.
  EXPECT_TRUE(
      eventually([&] { return run_kubectl(kapi(), "get configmap kube-root-ca.crt -n kube-system").exit_code == 0; }));
}

TEST_F(ControllerManagerTest, ADeletedRootCaConfigMapComesBackAndAChangedOneIsRepaired) {
  ASSERT_EQ(run_kubectl(kapi(), "create namespace cm-repair").exit_code, 0);
  std::string uid;
  ASSERT_TRUE(eventually([&] {
    uid = string_at(get_json(kapi(), root_ca_path("cm-repair")), {"metadata", "uid"});
    return !uid.empty();
  }));
  CommandResult deleted = run_kubectl(kapi(), "delete configmap kube-root-ca.crt -n cm-repair");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  json::object again;
  ASSERT_TRUE(eventually([&] {
    again = get_json(kapi(), root_ca_path("cm-repair"));
    const std::string now = string_at(again, {"metadata", "uid"});
    return !now.empty() && now != uid;
  })) << kapi().logs();
  EXPECT_EQ(string_at(again, {"data", "ca.crt"}), file_text(kapi().ca_cert()));

  CommandResult patched = run_kubectl(
      kapi(),
      "patch configmap kube-root-ca.crt -n cm-repair --type=merge -p "
      "'{\"data\":{\"ca.crt\":\"tampered\"},\"metadata\":{\"annotations\":{\"kubernetes.io/description\":\"\"}}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  json::object repaired;
  EXPECT_TRUE(eventually([&] {
    repaired = get_json(kapi(), root_ca_path("cm-repair"));
    return string_at(repaired, {"data", "ca.crt"}) == file_text(kapi().ca_cert()) &&
           string_at(repaired, {"metadata", "annotations", "kubernetes.io/description"}) == kDescription;
  })) << json::serialize(repaired)
      << kapi().logs();
}

TEST_F(ControllerManagerTest, TheSingleServerHoldsTheLeaseAndRunsEveryController) {
  json::object lease;
  ASSERT_TRUE(eventually([&] {
    lease = get_json(kapi(), "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager");
    return !lease.empty();
  }));
  std::array<char, 256> host{};
  ASSERT_EQ(::gethostname(host.data(), host.size() - 1), 0);
  const std::string holder = string_at(lease, {"spec", "holderIdentity"});
  EXPECT_TRUE(holder.starts_with(std::string(host.data()) + "_")) << holder;
  EXPECT_EQ(lease.at("spec").at("leaseDurationSeconds"), 15);
  EXPECT_EQ(lease.at("spec").at("leaseTransitions"), 0);
  EXPECT_EQ(metric(kapi(), kLeader), 1.0);
  for (const char* name : {"namespace-controller", "serviceaccount-controller", "garbage-collector-controller",
                           "resourcequota-controller", "clusterrole-aggregation-controller",
                           "root-ca-certificate-publisher-controller"})
    EXPECT_EQ(metric(kapi(), "running_managed_controllers{name=\"" + std::string(name) +
                                 "\",manager=\"kapi-controller-manager\"}"),
              1.0)
        << name;
}

// `-serviceaccount` takes one controller away; `*` keeps the others.
TEST(ControllerManagerSelectionTest, WithoutTheServiceAccountControllerANewNamespaceHasNoDefaultAccount) {
  KapiProcess kapi({.extra_flags = {"--controllers=*,-serviceaccount"}});
  ASSERT_EQ(create_namespace(kapi, "no-accounts").status, 201);
  // The root CA publisher saw the namespace; a running service account controller would have been as quick.
  ASSERT_TRUE(eventually([&] { return !get_json(kapi, root_ca_path("no-accounts")).empty(); })) << kapi.logs();
  EXPECT_EQ(
      kapi.connect_admin().request("GET", "/api/v1/namespaces/no-accounts/serviceaccounts/default", {}, {}).status,
      404);
  EXPECT_EQ(
      metric(kapi,
             "running_managed_controllers{name=\"serviceaccount-controller\",manager=\"kapi-controller-manager\"}"),
      std::nullopt);
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
}

// `-garbagecollector` (kube's alias of garbage-collector-controller): nothing finishes a cascading deletion, so an
// owner deleted in the foreground keeps its finalizer and its dependent, and a background one leaves its dependent.
TEST(ControllerManagerSelectionTest, WithoutTheGarbageCollectorDependentsOutliveTheirOwners) {
  KapiProcess kapi({.extra_flags = {"--controllers=*,-garbagecollector"}});
  ASSERT_EQ(create_namespace(kapi, "no-gc").status, 201);
  const std::string foreground_uid = create_configmap(kapi, "no-gc", "foreground-owner");
  const std::string background_uid = create_configmap(kapi, "no-gc", "background-owner");
  ASSERT_FALSE(create_configmap(kapi, "no-gc", "held", "foreground-owner", foreground_uid).empty());
  ASSERT_FALSE(create_configmap(kapi, "no-gc", "left", "background-owner", background_uid).empty());
  ASSERT_EQ(delete_configmap(kapi, "no-gc", "foreground-owner", "Foreground"), 200);
  ASSERT_EQ(delete_configmap(kapi, "no-gc", "background-owner", "Background"), 200);
  // Long enough for a running collector (it takes milliseconds here, see garbage_collector_test.cc).
  std::this_thread::sleep_for(2s);
  const json::object owner = get_json(kapi, configmap_path("no-gc", "foreground-owner"));
  EXPECT_FALSE(string_at(owner, {"metadata", "deletionTimestamp"}).empty()) << json::serialize(owner);
  EXPECT_FALSE(get_json(kapi, configmap_path("no-gc", "held")).empty());
  EXPECT_FALSE(get_json(kapi, configmap_path("no-gc", "left")).empty());
  EXPECT_TRUE(get_json(kapi, configmap_path("no-gc", "background-owner")).empty());
  EXPECT_EQ(
      metric(kapi,
             "running_managed_controllers{name=\"garbage-collector-controller\",manager=\"kapi-controller-manager\"}"),
      std::nullopt);
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
}

TEST(ControllerManagerSelectionTest, AnUnknownControllerNameFailsTheStartInKubesWords) {
  test_support::TempDir dir("kapi-controllers-flag");
  const CommandResult result =
      test_support::run_command("timeout 60 " + std::string(std::getenv("KAPI_BINARY")) +
                                " --data-dir=" + (dir.path() / "data").string() + " --controllers=*,bogus");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("\"bogus\" is not in the list of known controllers"), std::string::npos)
      << result.output;
}

// Two kapi servers on one etcd (sharing their PKI, as a control plane's servers do): one holds the Lease and runs
// the controllers, the other waits; killed, the leader is replaced within the lease duration.
TEST(ControllerManagerLeaderElectionTest, OneOfTwoServersLeadsAndTheOtherTakesOverWhenItStops) {
  test_support::EtcdProcess etcd;
  test_support::TempDir shared("kapi-two-servers");
  KapiOptions options;
  options.data_dir = shared.path() / "data";
  options.extra_flags = {"--etcd-servers=" + etcd.endpoint(), "--controllers=*", "--leader-elect-lease-duration=3s",
                         "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=500ms"};
  auto first = std::make_unique<KapiProcess>(options);
  auto second = std::make_unique<KapiProcess>(options);
  const std::string lease_path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager";

  // Exactly one leads.
  ASSERT_TRUE(eventually([&] {
    return metric(*first, kLeader).value_or(0) + metric(*second, kLeader).value_or(0) == 1;
  })) << first->logs()
      << second->logs();
  KapiProcess* leader = metric(*first, kLeader) == 1.0 ? first.get() : second.get();
  KapiProcess* follower = leader == first.get() ? second.get() : first.get();
  EXPECT_EQ(metric(*follower, kLeader), 0.0);
  const json::object lease = get_json(*follower, lease_path);
  const std::string holder = string_at(lease, {"spec", "holderIdentity"});
  ASSERT_FALSE(holder.empty()) << json::serialize(lease);
  const std::int64_t transitions = lease.at("spec").at("leaseTransitions").as_int64();

  // Controllers act once: the leader's publisher syncs the new namespace; the follower runs no controller at all and
  // has synced nothing, though it has watched the namespaces since it started.
  ASSERT_EQ(create_namespace(*follower, "ha-one").status, 201);
  ASSERT_TRUE(eventually([&] { return !get_json(*follower, root_ca_path("ha-one")).empty(); })) << leader->logs();
  EXPECT_GT(metric_sum(*leader, "root_ca_cert_publisher_sync_total", "code=\"200\""), 0);
  EXPECT_EQ(metric_sum(*follower, "root_ca_cert_publisher_sync_total"), 0);
  EXPECT_EQ(metric_sum(*follower, "running_managed_controllers"), 0);
  EXPECT_EQ(string_at(get_json(*follower, root_ca_path("ha-one")), {"data", "ca.crt"}), file_text(follower->ca_cert()));

  // The leader dies without giving the Lease up: the follower takes it once it has not been renewed for the lease
  // duration (3 s), trying every retry period (0.5 s, up to 2.2 with jitter).
  const auto killed_at = Clock::now();
  leader->kill();
  ASSERT_TRUE(eventually([&] { return metric(*follower, kLeader) == 1.0; }, 15s)) << follower->logs();
  const auto takeover = Clock::now() - killed_at;
  EXPECT_LT(takeover, 3s + 1100ms + 2s) << "lease duration + a jittered retry period + polling slack";
  const json::object taken = get_json(*follower, lease_path);
  EXPECT_NE(string_at(taken, {"spec", "holderIdentity"}), holder);
  EXPECT_EQ(taken.at("spec").at("leaseTransitions").as_int64(), transitions + 1);
  ASSERT_EQ(create_namespace(*follower, "ha-two").status, 201);
  EXPECT_TRUE(eventually([&] { return !get_json(*follower, root_ca_path("ha-two")).empty(); })) << follower->logs();
  EXPECT_TRUE(eventually([&] {
    return follower->connect_admin()
               .request("GET", "/api/v1/namespaces/ha-two/serviceaccounts/default", {}, {})
               .status == 200;
  }));
  // The new leader's garbage collector finishes a cascading deletion made through the follower it was.
  const std::string owner_uid = create_configmap(*follower, "ha-two", "owner");
  ASSERT_FALSE(create_configmap(*follower, "ha-two", "dependent", "owner", owner_uid).empty());
  ASSERT_EQ(delete_configmap(*follower, "ha-two", "owner", "Background"), 200);
  EXPECT_TRUE(eventually([&] { return get_json(*follower, configmap_path("ha-two", "dependent")).empty(); }))
      << follower->logs();
  std::cerr << "controller takeover after the leader was killed: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(takeover).count() << " ms\n";
  EXPECT_EQ(follower->shut_down(20s), 0) << follower->logs();
}

}  // namespace
}  // namespace kapi::integration::controller_manager_test

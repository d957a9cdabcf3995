// The bootstrap RBAC policy as kube-apiserver keeps it: admin, edit and view gathered by the ClusterRole
// aggregation controller (also from roles users add and remove), what edit and view grant through kubectl, and
// reconciliation at start restoring what was taken from bootstrap roles and bindings, unless autoupdate=false;
// the controllers' roles and the Roles of kube-system and kube-public, and what a controller's service account may do.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <boost/json.hpp>

#include <functional>
#include <map>
#include <thread>

namespace kapi::integration::rbac_bootstrap_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The resources every rule of a stored ClusterRole names, in one string ("pods,secrets,...") to search.
std::string resources_of(const test_support::KapiProcess& kapi, const std::string& role) {
  CommandResult result = run_kubectl(kapi, "get clusterrole " + role + " -o json");
  if (result.exit_code != 0) return "<" + result.output + ">";
  std::string out;
  const json::value object = json::parse(result.output);
  if (const json::value* rules = object.as_object().if_contains("rules"); rules && rules->is_array())
    for (const auto& rule : rules->as_array())
      if (const json::value* resources = rule.as_object().if_contains("resources"))
        for (const auto& resource : resources->as_array()) out += std::string(resource.as_string()) + ",";
  return "," + out;
}

// Polls until `holds` is true of the role's resources (bounded); the last resources seen.
std::string settle(const test_support::KapiProcess& kapi, const std::string& role,
                   const std::function<bool(const std::string&)>& holds) {
  std::string resources;
  for (auto deadline = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(100ms))
    if (holds(resources = resources_of(kapi, role))) break;
  return resources;
}

bool has(const std::string& resources, const std::string& resource) {
  return resources.find("," + resource + ",") != std::string::npos;
}

class RbacBootstrapTest : public KapiSuite<RbacBootstrapTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("rbac-bootstrap", "jane-token,jane,1001\nvic-token,vic,1002\n",
                            {"--authorization-mode=RBAC"});
  }

 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  CommandResult kubectl_as(const std::string& user, const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), user + "-token") + " " + arguments);
  }
};

TEST_F(RbacBootstrapTest, AdminEditAndViewGatherTheirSources) {
  auto complete = [](const std::string& r) { return has(r, "pods") && has(r, "deployments"); };
  const std::string view = settle(kapi(), "view", complete);
  EXPECT_TRUE(complete(view)) << view;
  EXPECT_FALSE(has(view, "secrets")) << "view reads no secrets: " << view;
  const std::string edit = settle(kapi(), "edit", complete);
  EXPECT_TRUE(has(edit, "secrets") && has(edit, "pods/exec")) << edit;
  EXPECT_FALSE(has(edit, "rolebindings")) << edit;
  const std::string admin = settle(kapi(), "admin", [](const std::string& r) { return has(r, "rolebindings"); });
  EXPECT_TRUE(has(admin, "rolebindings") && has(admin, "secrets") && has(admin, "localsubjectaccessreviews")) << admin;

  CommandResult roles = kubectl("get clusterroles -o name");
  for (const char* name : {"system:aggregate-to-edit", "system:node", "system:kube-scheduler", "system:monitoring",
                           "system:auth-delegator", "system:kube-controller-manager"})
    EXPECT_NE(roles.output.find(std::string("clusterrole.rbac.authorization.k8s.io/") + name + "\n"),
              std::string::npos) << name;
}

TEST_F(RbacBootstrapTest, ALabelledRoleIsAggregatedUntilItIsDeleted) {
  ASSERT_EQ(kubectl("create clusterrole node-reader --verb=get,list,watch --resource=nodes")
                .exit_code, 0);
  ASSERT_EQ(kubectl("label clusterrole node-reader rbac.authorization.k8s.io/aggregate-to-view=true").exit_code, 0);
  for (const char* role : {"view", "edit", "admin"}) {
    const std::string resources = settle(kapi(), role, [](const std::string& r) { return has(r, "nodes"); });
    EXPECT_TRUE(has(resources, "nodes")) << role << ": " << resources;
  }
  ASSERT_EQ(kubectl("delete clusterrole node-reader").exit_code, 0);
  for (const char* role : {"view", "edit", "admin"}) {
    const std::string resources = settle(kapi(), role, [](const std::string& r) { return !has(r, "nodes"); });
    EXPECT_FALSE(has(resources, "nodes")) << role << ": " << resources;
    EXPECT_TRUE(has(resources, "pods")) << role << ": " << resources;
  }
}

TEST_F(RbacBootstrapTest, EditAndViewGrantWhatKubesDo) {
  ASSERT_EQ(kubectl("create namespace team").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding jane-edits --clusterrole=edit --user=jane -n team").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding vic-views --clusterrole=view --user=vic -n team").exit_code, 0);
  auto can = [this](const std::string& user, const std::string& question) {
    std::string answer;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(100ms)) {
      answer = kubectl_as(user, "auth can-i " + question + " -n team").output;
      if (answer == "yes\n") break;
    }
    return answer;
  };
  EXPECT_EQ(can("jane", "create deployments.apps"), "yes\n");
  EXPECT_EQ(can("jane", "get secrets"), "yes\n");
  EXPECT_EQ(kubectl_as("jane", "auth can-i create roles.rbac.authorization.k8s.io -n team").output, "no\n");
  EXPECT_EQ(kubectl_as("jane", "auth can-i get pods -n default").output, "no\n");
  EXPECT_EQ(can("vic", "list pods"), "yes\n");
  EXPECT_EQ(kubectl_as("vic", "auth can-i get secrets -n team").output, "no\n");
  EXPECT_EQ(kubectl_as("vic", "auth can-i delete pods -n team").output, "no\n");

  ASSERT_EQ(kubectl_as("jane", "create configmap settings --from-literal=a=b -n team").exit_code, 0);
  EXPECT_EQ(kubectl_as("vic", "get configmap settings -n team -o name").output, "configmap/settings\n");
}

TEST_F(RbacBootstrapTest, ControllersAndSystemNamespacesHaveKubesRoles) {
  EXPECT_EQ(kubectl("get clusterrole system:controller:deployment-controller -o name").output,
            "clusterrole.rbac.authorization.k8s.io/system:controller:deployment-controller\n");
  CommandResult binding = kubectl("get clusterrolebinding system:controller:deployment-controller -o json");
  ASSERT_EQ(binding.exit_code, 0) << binding.output;
  EXPECT_EQ(json::parse(binding.output).at("subjects"),
            json::parse(R"([{"kind":"ServiceAccount","name":"deployment-controller","namespace":"kube-system"}])"));
  CommandResult reader = kubectl("get role -n kube-system extension-apiserver-authentication-reader -o json");
  ASSERT_EQ(reader.exit_code, 0) << reader.output;
  EXPECT_EQ(json::parse(reader.output).at("rules"),
            json::parse(R"([{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["configmaps"],)"
                        R"("resourceNames":["extension-apiserver-authentication"]}])"));
  EXPECT_EQ(kubectl("get rolebinding -n kube-public system:controller:bootstrap-signer -o name").output,
            "rolebinding.rbac.authorization.k8s.io/system:controller:bootstrap-signer\n");

  // kube-controller-manager --use-service-account-credentials runs each controller as its service account.
  ASSERT_EQ(kubectl("create serviceaccount deployment-controller -n kube-system").exit_code, 0);
  CommandResult token = kubectl("create token deployment-controller -n kube-system");
  ASSERT_EQ(token.exit_code, 0) << token.output;
  const std::string jwt = token.output.substr(0, token.output.find_last_not_of(" \n") + 1);
  const std::string kubeconfig = token_kubeconfig(kapi(), jwt, "deployment-controller");
  auto can = [&](const std::string& question) {
    return run_kubectl(kapi(), "--kubeconfig " + kubeconfig + " auth can-i " + question + " --all-namespaces").output;
  };
  EXPECT_EQ(can("update deployments.apps --subresource=status"), "yes\n");
  EXPECT_EQ(can("create replicasets.apps"), "yes\n");
  EXPECT_EQ(can("delete deployments.apps"), "no\n");
  EXPECT_EQ(can("get secrets"), "no\n");
}

// Reconciliation runs when kapi starts: a second kapi on the same etcd finds what the first one's users changed.
TEST(RbacBootstrapRestartTest, StartRestoresBootstrapRolesAndBindingsUnlessAutoupdateIsFalse) {
  test_support::EtcdProcess etcd;
  const std::string etcd_flag = "--etcd-servers=" + etcd.endpoint();
  {
    KapiProcess kapi({.extra_flags = {etcd_flag}});
    auto kubectl = [&kapi](const std::string& arguments) { return run_kubectl(kapi, arguments); };
    // basic-user loses its selfsubjectreviews rule; monitoring is kept as its owner narrowed it.
    ASSERT_EQ(kubectl("patch clusterrole system:basic-user --type=json -p "
                      "'[{\"op\":\"remove\",\"path\":\"/rules/1\"}]'").exit_code, 0);
    ASSERT_EQ(kubectl("annotate --overwrite clusterrole system:monitoring "
                      "rbac.authorization.kubernetes.io/autoupdate=false").exit_code, 0);
    ASSERT_EQ(kubectl("patch clusterrole system:monitoring --type=json -p "
                      "'[{\"op\":\"replace\",\"path\":\"/rules/0/nonResourceURLs\",\"value\":[\"/metrics\"]}]'").exit_code, 0);
    // The discovery binding loses its group and gains a user; the node proxier's binding points elsewhere.
    ASSERT_EQ(kubectl("patch clusterrolebinding system:discovery --type=json -p "
                      "'[{\"op\":\"replace\",\"path\":\"/subjects\",\"value\":[{\"kind\":\"User\",\"name\":\"jane\","
                      "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}]'").exit_code, 0);
    ASSERT_EQ(kubectl("delete clusterrolebinding system:node-proxier").exit_code, 0);
    ASSERT_EQ(kubectl("create clusterrolebinding system:node-proxier --clusterrole=view --user=system:kube-proxy")
                  .exit_code, 0);
    // Namespaced bootstrap objects come back too.
    ASSERT_EQ(kubectl("delete role system::leader-locking-kube-scheduler -n kube-system").exit_code, 0);
    ASSERT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  }
  KapiProcess kapi({.extra_flags = {etcd_flag}});
  auto get = [&kapi](const std::string& what) {
    CommandResult result = run_kubectl(kapi, "get " + what + " -o json");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return json::parse(result.output).as_object();
  };
  const json::object basic_user = get("clusterrole system:basic-user");
  EXPECT_NE(json::serialize(basic_user.at("rules")).find("selfsubjectreviews"), std::string::npos) << basic_user;
  EXPECT_EQ(get("clusterrole system:monitoring").at("rules"), json::parse(R"([{"verbs":["get"],"nonResourceURLs":["/metrics"]}])"));
  const json::array subjects = get("clusterrolebinding system:discovery").at("subjects").as_array();
  ASSERT_EQ(subjects.size(), 2u) << subjects;
  EXPECT_EQ(subjects[0].at("name"), "jane");
  EXPECT_EQ(subjects[1].at("name"), "system:authenticated");
  EXPECT_EQ(subjects[1].at("kind"), "Group");
  const json::object proxier = get("clusterrolebinding system:node-proxier");
  EXPECT_EQ(proxier.at("roleRef").at("name"), "system:node-proxier") << proxier;
  EXPECT_EQ(proxier.at("metadata").at("labels").at("kubernetes.io/bootstrapping"), "rbac-defaults") << proxier;
  EXPECT_EQ(get("role system::leader-locking-kube-scheduler -n kube-system").at("rules").as_array().size(), 2u);
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

// A restart reads the bootstrap objects from the watch cache and finds them as the first start left them: it
// rewrites none of them (kube's reconcilers too write only what differs). Each start had rewritten every FlowSchema's
// status twice, and RBAC had read each of its objects from etcd one by one.
TEST(BootstrapRestartTest, ARestartOnEtcdRewritesNoBootstrapObject) {
  test_support::EtcdProcess etcd;
  const std::string etcd_flag = "--etcd-servers=" + etcd.endpoint();
  const std::vector<std::string> collections{
      "/apis/rbac.authorization.k8s.io/v1/clusterroles", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      "/apis/rbac.authorization.k8s.io/v1/roles", "/apis/rbac.authorization.k8s.io/v1/rolebindings",
      "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
      "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
      "/apis/scheduling.k8s.io/v1/priorityclasses", "/api/v1/namespaces"};
  // Each object's resourceVersion, by collection, namespace and name.
  auto versions = [&collections](KapiProcess& kapi) {
    std::map<std::string, std::string> found;
    for (const std::string& collection : collections) {
      HttpResponse list = kapi.connect_admin().request("GET", collection);
      EXPECT_EQ(list.status, 200) << collection << ": " << list.body;
      if (list.status != 200) continue;
      const json::value parsed = json::parse(list.body);
      if (!parsed.is_object()) ADD_FAILURE() << collection << ": " << list.body.substr(0, 300);
      if (!parsed.is_object()) continue;
      for (const json::value& item : parsed.at("items").as_array()) {
        const json::object& metadata = item.at("metadata").as_object();
        const json::value* namespace_ = metadata.if_contains("namespace");
        found[collection + "/" + (namespace_ ? std::string(namespace_->as_string()) : "") + "/" +
              std::string(metadata.at("name").as_string())] = metadata.at("resourceVersion").as_string();
      }
    }
    return found;
  };
  std::map<std::string, std::string> before;
  {
    KapiProcess kapi({.extra_flags = {etcd_flag}});
    std::this_thread::sleep_for(2s);  // the first start's post-start work, whose writes are meant
    before = versions(kapi);
    ASSERT_GT(before.size(), 100u);
    ASSERT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  }
  KapiProcess kapi({.extra_flags = {etcd_flag}});
  std::this_thread::sleep_for(2s);
  const std::map<std::string, std::string> after = versions(kapi);
  for (const auto& [object, version] : before) {
    auto now = after.find(object);
    if (now == after.end()) ADD_FAILURE() << object << " is gone";
    else EXPECT_EQ(now->second, version) << object << " was rewritten";
  }
  EXPECT_EQ(after.size(), before.size());
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

}  // namespace
}  // namespace kapi::integration::rbac_bootstrap_test

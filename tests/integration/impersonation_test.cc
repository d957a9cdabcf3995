// Impersonation against a running kapi with --authorization-mode=RBAC, driven by the real kubectl's --as,
// --as-group and --as-uid: kube's denial when the sender may not impersonate, the request acting as the
// impersonated user (and groups) once RBAC grants the `impersonate` verb, and the admin impersonating anyone.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <thread>

namespace kapi::integration::impersonation_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;

class ImpersonationTest : public KapiSuite<ImpersonationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("impersonation", "jane-token,jane,1001\nkim-token,kim,1003\n", {"--authorization-mode=RBAC"});
  }

 protected:
  static HttpResponse as(const std::string& user, std::string_view target, Headers headers) {
    headers.emplace_back("Authorization", "Bearer " + user + "-token");
    return kapi().connect_anonymous().request("GET", target, headers);
  }
  // `user`'s answer for `target` with `headers` once the policy has settled on one that `done` accepts (bounded: a
  // grant is effective once the policy feed has seen it).
  template <typename Done>
  static HttpResponse settle(const std::string& user, std::string_view target, const Headers& headers, Done done) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (done(response = as(user, target, headers))) break;
    return response;
  }
  static CommandResult kubectl_as(const std::string& user, const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), user + "-token") + " " + arguments);
  }
  static CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
};

// kubectl's last line is its final error; discovery may have complained before it.
std::string last_line(std::string_view output) {
  if (output.ends_with('\n')) output.remove_suffix(1);
  return std::string(output.substr(output.rfind('\n') + 1));  // npos + 1: the whole output
}

TEST_F(ImpersonationTest, ImpersonatingWithoutTheRightIsForbidden) {
  // With discovery cached (by the admin), kubectl's request itself is refused and it prints kube's denial.
  ASSERT_EQ(kubectl("get namespaces").exit_code, 0);
  CommandResult denied = kubectl_as("jane", "--as=bob get pods -n default");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_EQ(denied.output,
            "Error from server (Forbidden): users \"bob\" is forbidden: User \"jane\" cannot impersonate resource "
            "\"users\" in API group \"\" at the cluster scope\n");

  // Without that cache, discovery is refused first; kubectl's discovery client cannot decode a Status and prints
  // what it prints against kube-apiserver: "unknown".
  const auto cold_cache = kapi().work_dir() / "cold-discovery-cache";
  CommandResult cold = kubectl_as("jane", "--cache-dir=" + cold_cache.string() + " --as=bob get pods -n default");
  EXPECT_NE(cold.exit_code, 0);
  EXPECT_EQ(last_line(cold.output), "Error from server (Forbidden): unknown") << cold.output;

  HttpResponse raw = as("jane", "/api/v1/namespaces/default/pods", {{"Impersonate-User", "bob"}});
  EXPECT_TRUE(is_status(raw, 403, "Forbidden"));
  auto details = json_object(raw.body)["details"];
  EXPECT_EQ(details, (boost::json::object{{"name", "bob"}, {"kind", "users"}}));
}

TEST_F(ImpersonationTest, GroupsWithoutAUserAreRefusedAsKubeDoes) {
  HttpResponse refused = as("jane", "/api/v1/namespaces/default/pods", {{"Impersonate-Group", "devs"}});
  EXPECT_EQ(refused.status, 500);
  EXPECT_EQ(refused.header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(refused.body,
            "Internal Server Error: \"/api/v1/namespaces/default/pods\": requested [{Group  devs    }] without "
            "impersonating a user\n");
}

TEST_F(ImpersonationTest, TheAdminImpersonatesAnyone) {
  // dave and robot are granted nothing by any test, so the denials name them whatever ran before.
  CommandResult as_dave = kubectl("--as=dave get pods -n default");
  EXPECT_NE(as_dave.exit_code, 0);
  EXPECT_EQ(last_line(as_dave.output),
            "Error from server (Forbidden): pods is forbidden: User \"dave\" cannot list resource \"pods\" in API "
            "group \"\" in the namespace \"default\"")
      << as_dave.output;

  CommandResult as_robot = kubectl("--as=system:serviceaccount:default:robot get pods -n default");
  EXPECT_NE(as_robot.exit_code, 0);
  EXPECT_NE(as_robot.output.find("User \"system:serviceaccount:default:robot\" cannot list resource \"pods\""),
            std::string::npos)
      << as_robot.output;

  CommandResult as_master = kubectl("--as=dave --as-group=system:masters get pods -n default");
  EXPECT_EQ(as_master.exit_code, 0) << as_master.output;
}

TEST_F(ImpersonationTest, AGrantedImpersonatorActsAsTheUserAndGroups) {
  ASSERT_EQ(kubectl("create clusterrole impersonator --verb=impersonate --resource=users,groups").exit_code, 0);
  ASSERT_EQ(kubectl("create clusterrolebinding kim-impersonates --clusterrole=impersonator --user=kim").exit_code, 0);
  const std::string bob_cannot_list_pods =
      "pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"";
  auto names_bob = [](const HttpResponse& r) { return status_message(r).find("User \"bob\"") != std::string::npos; };
  EXPECT_EQ(status_message(settle("kim", "/api/v1/namespaces/default/pods", {{"Impersonate-User", "bob"}}, names_bob)),
            bob_cannot_list_pods);

  CommandResult as_bob = kubectl_as("kim", "--as=bob --as-group=devs get pods -n default");
  EXPECT_NE(as_bob.exit_code, 0);
  EXPECT_EQ(last_line(as_bob.output), "Error from server (Forbidden): " + bob_cannot_list_pods) << as_bob.output;

  // What bob may do, kim may do as bob, and no more than that.
  ASSERT_EQ(kubectl("create role pod-reader --verb=get,list --resource=pods -n default").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding bob-reads-pods --role=pod-reader --user=bob -n default").exit_code, 0);
  auto allowed = [](const HttpResponse& r) { return r.status == 200; };
  EXPECT_EQ(settle("kim", "/api/v1/namespaces/default/pods", {{"Impersonate-User", "bob"}}, allowed).status, 200);
  CommandResult listed = kubectl_as("kim", "--as=bob get pods -n default");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  CommandResult himself = kubectl_as("kim", "get pods -n default");
  EXPECT_NE(himself.exit_code, 0);
  EXPECT_NE(himself.output.find("User \"kim\" cannot list resource \"pods\""), std::string::npos) << himself.output;

  // The impersonated groups are the ones RBAC sees.
  ASSERT_EQ(kubectl("create role cm-reader --verb=get,list --resource=configmaps -n default").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding devs-read-cms --role=cm-reader --group=devs -n default").exit_code, 0);
  const Headers bob_in_devs = {{"Impersonate-User", "bob"}, {"Impersonate-Group", "devs"}};
  EXPECT_EQ(settle("kim", "/api/v1/namespaces/default/configmaps", bob_in_devs, allowed).status, 200);
  CommandResult in_devs = kubectl_as("kim", "--as=bob --as-group=devs get configmaps -n default");
  EXPECT_EQ(in_devs.exit_code, 0) << in_devs.output;
  CommandResult not_in_devs = kubectl_as("kim", "--as=bob get configmaps -n default");
  EXPECT_NE(not_in_devs.exit_code, 0);
  EXPECT_NE(not_in_devs.output.find("User \"bob\" cannot list resource \"configmaps\""), std::string::npos)
      << not_in_devs.output;

  // The grant covers users and groups only: a uid or a service account is still refused, naming it.
  CommandResult with_uid = kubectl_as("kim", "--as=bob --as-uid=1234 get pods -n default");
  EXPECT_NE(with_uid.exit_code, 0);
  EXPECT_EQ(last_line(with_uid.output),
            "Error from server (Forbidden): uids.authentication.k8s.io \"1234\" is forbidden: User \"kim\" cannot "
            "impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope")
      << with_uid.output;
  CommandResult as_robot = kubectl_as("kim", "--as=system:serviceaccount:default:robot get pods -n default");
  EXPECT_NE(as_robot.exit_code, 0);
  EXPECT_EQ(last_line(as_robot.output),
            "Error from server (Forbidden): serviceaccounts \"robot\" is forbidden: User \"kim\" cannot impersonate "
            "resource \"serviceaccounts\" in API group \"\" in the namespace \"default\"")
      << as_robot.output;
}

}  // namespace
}  // namespace kapi::integration::impersonation_test

// Authorization against a running kapi with --authorization-mode=AlwaysDeny: system:masters (the admin
// certificate) may still do everything, anyone else gets kube-apiserver's 403 for resources and paths alike, as
// raw HTTP. (kubectl against AlwaysDeny only fails discovery; its denials are tested with RBAC.)
#include "tests/integration/kapi_suite.h"


namespace kapi::integration::authorization_test {
namespace {

class AuthorizationTest : public KapiSuite<AuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("authz", "jane-token,jane,1001,devs\n", {"--authorization-mode=AlwaysDeny"});
  }

 protected:
  HttpResponse as_jane(std::string_view target) {
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", "Bearer jane-token"}});
  }
};

TEST_F(AuthorizationTest, SystemMastersAreAlwaysAllowed) {
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/pods").status, 200);
}

TEST_F(AuthorizationTest, OthersGetKubesForbidden) {
  HttpResponse pods = as_jane("/api/v1/namespaces/default/pods");
  EXPECT_TRUE(is_status(pods, 403, "Forbidden")) << pods.body;
  EXPECT_EQ(status_message(pods),
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace "
            "\"default\": Everything is forbidden.");
  auto details = json_object(pods.body)["details"].as_object();
  EXPECT_EQ(details["kind"], "pods");

  HttpResponse scale = as_jane("/apis/apps/v1/namespaces/ns/deployments/web/scale");
  EXPECT_EQ(status_message(scale),
            "deployments.apps \"web\" is forbidden: User \"jane\" cannot get resource \"deployments/scale\" in API "
            "group \"apps\" in the namespace \"ns\": Everything is forbidden.");

  HttpResponse path = as_jane("/metrics");
  EXPECT_TRUE(is_status(path, 403, "Forbidden"));
  EXPECT_EQ(status_message(path), "forbidden: User \"jane\" cannot get path \"/metrics\": Everything is forbidden.");

  HttpResponse anonymous = kapi().connect_anonymous().request("GET", "/api");
  EXPECT_EQ(status_message(anonymous),
            "forbidden: User \"system:anonymous\" cannot get path \"/api\": Everything is forbidden.");
}

}  // namespace
}  // namespace kapi::integration::authorization_test

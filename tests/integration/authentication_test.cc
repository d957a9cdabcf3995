// Authentication against a running kapi with --token-auth-file and --anonymous-auth=false: bearer tokens from
// the file, client certificates, and kube-apiserver's 401 for everything else, through raw HTTP and kubectl.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"


namespace kapi::integration::authentication_test {
namespace {

class AuthenticationTest : public KapiSuite<AuthenticationTest> {
 public:
  static KapiOptions kapi_options() {
    // Who the users are is the subject here, not what they may do.
    return with_token_users("authn", "jane-token,jane,1001,\"devs,ops\"\n",
                            {"--anonymous-auth=false", "--authorization-mode=AlwaysAllow"});
  }

 protected:
  HttpResponse with_token(std::string_view token, std::string_view target = "/api/v1/namespaces") {
    std::string authorization = "Bearer " + std::string(token);
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", authorization}});
  }
};

TEST_F(AuthenticationTest, TokensFromTheFileAreUsers) {
  HttpResponse response = with_token("jane-token");
  EXPECT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(json_object(response.body)["kind"], "NamespaceList");
}

TEST_F(AuthenticationTest, UnknownTokensAndMissingCredentialsAre401) {
  for (const HttpResponse& response : {with_token("wrong-token"), with_token("wrong-token", "/version"),
                                       kapi().connect_anonymous().request("GET", "/api")}) {
    EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << response.body;
    EXPECT_EQ(status_message(response), "Unauthorized");
    EXPECT_EQ(json_object(response.body)["apiVersion"], "v1");
  }
}

TEST_F(AuthenticationTest, ClientCertificatesStillAuthenticate) {
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces").status, 200);
}

TEST_F(AuthenticationTest, KubectlWithATokenWorksAndABadTokenIsNotLoggedIn) {
  CommandResult good = run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "jane-token") + " get namespace default -o name");
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_EQ(good.output, "namespace/default\n");
  CommandResult bad = run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "bad-token") + " get namespaces");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(bad.output, "error: You must be logged in to the server (Unauthorized)\n");
}

}  // namespace
}  // namespace kapi::integration::authentication_test

// Request-header (front proxy) authentication against a running kapi over real HTTPS: a front proxy with a
// certificate from its own CA names the user in X-Remote-* headers; any other certificate is only what its own
// CA says; and kube-system/extension-apiserver-authentication tells extension API servers how to trust it.
#include "tests/integration/kapi_suite.h"
#include "tests/support/temp_dir.h"

#include <cstdlib>
#include <thread>

namespace kapi::integration::request_header_test {
namespace {

// A front-proxy CA of the test's own, with the proxy's certificate and one whose CN is not allowed.
const std::filesystem::path& front_proxy_pki() {
  static test_support::TempDir dir("kapi-request-header-suite");
  static const bool made = [] {
    const std::string d = dir.path().string();
    const std::string leaf =
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $1.key -out $1.csr -subj /CN=$1"
        " && openssl x509 -req -in $1.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $1.crt -days 1";
    const std::string script =
        "set -e; cd '" + d + "';"
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt"
        " -subj /CN=test-front-proxy-ca -days 1;"
        "sh -c '" + leaf + "' - front-proxy-client; sh -c '" + leaf + "' - not-the-proxy";
    return std::system(("(" + script + ") >'" + d + "/openssl.log' 2>&1").c_str()) == 0;
  }();
  EXPECT_TRUE(made) << "openssl failed, see " << dir.path() / "openssl.log";
  return dir.path();
}

class RequestHeaderTest : public KapiSuite<RequestHeaderTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--requestheader-client-ca-file=" + (front_proxy_pki() / "ca.crt").string(),
                           "--requestheader-allowed-names=front-proxy-client",
                           "--requestheader-username-headers=X-Remote-User",
                           "--requestheader-uid-headers=X-Remote-Uid",
                           "--requestheader-group-headers=X-Remote-Group",
                           "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                           "--authorization-mode=AlwaysAllow"};  // who the request is, not what it may do
    return options;
  }

 protected:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  // POST selfsubjectreviews (kubectl auth whoami) over a connection with the named certificate.
  static HttpResponse whoami(const test_support::TlsClientOptions& tls, const Headers& headers) {
    Headers with_type = headers;
    with_type.emplace_back("Content-Type", "application/json");
    HttpConnection connection(kapi().port(), tls);
    return connection.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", with_type,
                              R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  }
  static test_support::TlsClientOptions as_proxy(const std::string& name) {
    auto tls = kapi().anonymous_tls();
    tls.cert_file = front_proxy_pki() / (name + ".crt");
    tls.key_file = front_proxy_pki() / (name + ".key");
    return tls;
  }
  static boost::json::object user_info(const HttpResponse& response) {
    auto review = json_object(response.body);
    const auto* status = review.if_contains("status");
    if (!status || !status->is_object() || !status->as_object().contains("userInfo")) return {};
    return status->as_object().at("userInfo").as_object();
  }

  const Headers jane_ = {{"X-Remote-User", "jane"},       {"X-Remote-Uid", "1001"},
                         {"X-Remote-Group", "devs"},      {"X-Remote-Group", "ops"},
                         {"X-Remote-Extra-Scopes", "read"}, {"X-Remote-Extra-Acme.com%2Fteam", "blue"}};
};

TEST_F(RequestHeaderTest, TheFrontProxyNamesTheUser) {
  HttpResponse response = whoami(as_proxy("front-proxy-client"), jane_);
  ASSERT_EQ(response.status, 201) << response.body;
  EXPECT_EQ(user_info(response), (boost::json::object{
                                     {"username", "jane"},
                                     {"uid", "1001"},
                                     {"groups", boost::json::array{"devs", "ops", "system:authenticated"}},
                                     {"extra", boost::json::object{{"scopes", boost::json::array{"read"}},
                                                                   {"acme.com/team", boost::json::array{"blue"}}}}}))
      << response.body;
}

TEST_F(RequestHeaderTest, AProxyCertificateWhoseNameIsNotAllowedIs401) {
  HttpResponse response = whoami(as_proxy("not-the-proxy"), jane_);
  EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << response.body;
}

TEST_F(RequestHeaderTest, AClientCertificateCannotAssertAUser) {
  HttpResponse response = whoami(kapi().admin_tls(), jane_);
  ASSERT_EQ(response.status, 201) << response.body;
  EXPECT_EQ(user_info(response)["username"], "kapi-admin");
}

TEST_F(RequestHeaderTest, TheProxyCertificateAloneIsNoUser) {
  // kube: no username header, so the request-header authenticator has nothing to say; the x509 one finds a
  // certificate the client CA did not sign — a failed credential, never the CN nor anonymous.
  HttpResponse response = whoami(as_proxy("front-proxy-client"), {});
  EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << response.body;
  HttpResponse anonymous = whoami(kapi().anonymous_tls(), jane_);
  ASSERT_EQ(anonymous.status, 201) << anonymous.body;
  EXPECT_EQ(user_info(anonymous)["username"], "system:anonymous") << "headers without a proxy certificate are nothing";
}

TEST_F(RequestHeaderTest, TheAuthenticationConfigMapTellsExtensionServersHowToTrustUs) {
  const std::string path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
  HttpResponse response;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(100))) {
    response = kapi().connect_admin().request("GET", path);
    if (response.status == 200) break;
  }
  ASSERT_EQ(response.status, 200) << response.body;
  auto data = json_object(response.body)["data"].as_object();
  auto read = [](const std::filesystem::path& file) {
    std::ifstream in(file);
    return boost::json::value(std::string(std::istreambuf_iterator<char>(in), {}));
  };
  EXPECT_EQ(data["client-ca-file"], read(kapi().ca_cert()));
  EXPECT_EQ(data["requestheader-client-ca-file"], read(front_proxy_pki() / "ca.crt"));
  EXPECT_EQ(data["requestheader-allowed-names"], "[\"front-proxy-client\"]");
  EXPECT_EQ(data["requestheader-username-headers"], "[\"X-Remote-User\"]");
  EXPECT_EQ(data["requestheader-uid-headers"], "[\"X-Remote-Uid\"]");
  EXPECT_EQ(data["requestheader-group-headers"], "[\"X-Remote-Group\"]");
  EXPECT_EQ(data["requestheader-extra-headers-prefix"], "[\"X-Remote-Extra-\"]");
  EXPECT_EQ(data.size(), 7u);
}

}  // namespace
}  // namespace kapi::integration::request_header_test

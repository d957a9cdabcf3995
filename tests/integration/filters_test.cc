// The common filter chain seen from a client: panic recovery, the request deadline and timeout, client
// certificate authentication, the Audit-ID and Cache-Control headers.
#include "tests/integration/kapi_suite.h"

#include <cstdlib>

namespace kapi::integration::filters_test {
namespace {

using namespace std::chrono_literals;

class FiltersTest : public KapiSuite<FiltersTest> {};

TEST_F(FiltersTest, PanicBecomes500AndTheConnectionAndProcessSurvive) {
  HttpConnection connection = kapi().connect_admin();
  HttpResponse response = connection.request("GET", "/debug/kapi/panic");
  EXPECT_TRUE(is_status(response, 500, "InternalError"));
  EXPECT_FALSE(response.closes_connection());
  HttpResponse after = connection.request("GET", "/healthz");
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(after.body, "ok");
  EXPECT_EQ(kapi().connect_admin().request("GET", "/version").status, 200);
  EXPECT_TRUE(kapi().running());
}

TEST_F(FiltersTest, RequestOverItsTimeoutGets504AfterTheTimeout) {
  HttpConnection connection = kapi().connect_admin();
  auto start = std::chrono::steady_clock::now();
  HttpResponse response = connection.request("GET", "/debug/kapi/sleep?duration=5s&timeout=1s");
  double elapsed = seconds_since(start);
  EXPECT_TRUE(is_status(response, 504, "Timeout"));
  EXPECT_GE(elapsed, 0.9);
  EXPECT_LT(elapsed, 4.0);
  // The handler was cancelled, not the connection.
  EXPECT_EQ(connection.request("GET", "/healthz").status, 200);
}

TEST_F(FiltersTest, RequestWithinItsTimeoutIsServed) {
  HttpResponse response = kapi().connect_admin().request("GET", "/debug/kapi/sleep?duration=100ms&timeout=5s");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "slept\n");
}

TEST_F(FiltersTest, UnparsableTimeoutIs400) {
  HttpResponse response = kapi().connect_admin().request("GET", "/debug/kapi/sleep?duration=10ms&timeout=bogus");
  EXPECT_TRUE(is_status(response, 400, "BadRequest"));
}

TEST_F(FiltersTest, AdminCertificateIsServed) {
  HttpResponse response = kapi().connect_admin().request("GET", "/version");
  EXPECT_EQ(response.status, 200);
}

TEST_F(FiltersTest, NoCertificateIsAnonymousAndServed) {
  HttpResponse response = kapi().connect_anonymous().request("GET", "/version");
  EXPECT_EQ(response.status, 200);
}

TEST_F(FiltersTest, VersionWithATrailingSlashIsServedToAnyone) {
  // The Python client's VersionApi().get_code() asks for "/version/"; system:public-info-viewer allows both.
  HttpResponse plain = kapi().connect_anonymous().request("GET", "/version");
  HttpResponse with_slash = kapi().connect_anonymous().request("GET", "/version/");
  EXPECT_EQ(with_slash.status, 200);
  EXPECT_EQ(with_slash.body, plain.body);
}

TEST_F(FiltersTest, CertificateFromAnUntrustedCaIs401) {
  // A second CA kapi has never heard of, and a client certificate it signed that claims to be an admin.
  const auto dir = kapi().work_dir() / "rogue";
  std::filesystem::create_directories(dir);
  const std::string d = dir.string();
  const std::string script =
      "set -e; cd '" + d + "';"
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt"
      " -subj /CN=rogue-ca -days 1;"
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout client.key -out client.csr"
      " -subj /O=system:masters/CN=mallory;"
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 1";
  ASSERT_EQ(std::system(("(" + script + ") >'" + d + "/openssl.log' 2>&1").c_str()), 0)
      << "openssl failed, see " << d << "/openssl.log";

  auto tls = kapi().anonymous_tls();
  tls.cert_file = dir / "client.crt";
  tls.key_file = dir / "client.key";
  HttpConnection connection(kapi().port(), tls);
  HttpResponse response = connection.request("GET", "/version");
  EXPECT_TRUE(is_status(response, 401, "Unauthorized"));
  EXPECT_EQ(status_message(response), "Unauthorized");
}

TEST_F(FiltersTest, AuditIdIsGeneratedWhenAbsent) {
  HttpConnection connection = kapi().connect_admin();
  HttpResponse first = connection.request("GET", "/version");
  HttpResponse second = connection.request("GET", "/version");
  ASSERT_TRUE(first.header("Audit-ID").has_value());
  ASSERT_TRUE(second.header("Audit-ID").has_value());
  EXPECT_FALSE(first.header("Audit-ID")->empty());
  EXPECT_NE(first.header("Audit-ID"), second.header("Audit-ID"));
}

TEST_F(FiltersTest, GivenAuditIdIsEchoed) {
  HttpResponse response =
      kapi().connect_admin().request("GET", "/version", {{"Audit-ID", "0f5e7a3c-test-audit-id"}});
  EXPECT_EQ(response.header("Audit-ID"), "0f5e7a3c-test-audit-id");
}

TEST_F(FiltersTest, ResponsesAreNotCacheable) {
  HttpConnection connection = kapi().connect_admin();
  for (const char* path : {"/version", "/healthz", "/nope"}) {
    HttpResponse response = connection.request("GET", path);
    EXPECT_EQ(response.header("Cache-Control"), "no-cache, private") << path;
  }
}

}  // namespace
}  // namespace kapi::integration::filters_test

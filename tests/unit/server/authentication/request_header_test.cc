// Request-header (front proxy) authentication as kube's headerrequest package does it: who the headers name and
// that they are removed, and kube's x509.Verifier around it — the front proxy's certificate must verify against
// its own CA with an allowed CN, whatever the TLS handshake thought of it.
#include "server/authentication/request_authenticator.h"
#include "server/authentication/request_header.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kapi::authentication::request_header_test {
namespace {

using test_support::make_request;
using test_support::run_sync;
using Outcome = Result::Outcome;
using Strings = std::vector<std::string>;

RequestHeaderConfig kube_conventions() {
  return {{"X-Remote-User"}, {"X-Remote-Uid"}, {"X-Remote-Group"}, {"X-Remote-Extra-"}, {}};
}

http::Headers headers_of(std::vector<std::pair<std::string, std::string>> fields) {
  http::Headers headers;
  for (auto& [name, value] : fields) headers.add(std::move(name), std::move(value));
  return headers;
}

Strings names_of(const http::Headers& headers) {
  Strings names;
  for (const auto& field : headers) names.push_back(field.name);
  return names;
}

TEST(RequestHeaderUser, NameUidGroupsAndExtraAsKubeReadsThem) {
  http::Headers headers = headers_of({{"x-remote-user", "jane"},
                                      {"X-Remote-Uid", "1001"},
                                      {"X-Remote-Group", "devs"},
                                      {"X-Remote-Group", ""},
                                      {"x-remote-group", "ops, qa"},
                                      {"X-Remote-Extra-Scopes", "read"},
                                      {"X-Remote-Extra-scopes", "write"},
                                      {"X-Remote-Extra-Acme.com%2FProject", "p1"},
                                      {"X-Remote-Extra-Bad%zz", "v"},
                                      {"Accept", "application/json"}});
  Result result = user_from_headers(headers, kube_conventions());
  ASSERT_EQ(result.outcome, Outcome::Authenticated);
  EXPECT_EQ(result.user.name, "jane");
  EXPECT_EQ(result.user.uid, "1001");
  EXPECT_EQ(result.user.groups, (Strings{"devs", "ops, qa"})) << "each header value is one group, empty ones skipped";
  EXPECT_EQ(result.user.extra, (std::map<std::string, Strings>{
                                   {"scopes", {"read", "write"}}, {"acme.com/project", {"p1"}}, {"bad%zz", {"v"}}}));
  EXPECT_EQ(names_of(headers), (Strings{"Accept"})) << "what the proxy asserted goes no further";
}

TEST(RequestHeaderUser, TheFirstUsernameHeaderWithAValueWinsAndEveryPrefixCounts) {
  RequestHeaderConfig config = kube_conventions();
  config.username_headers = {"X-Remote-User", "X-Proxy-User"};
  config.extra_header_prefixes = {"X-Remote-Extra-", "X-Other-"};
  http::Headers headers = headers_of({{"X-Remote-User", ""}, {"X-Proxy-User", "joe"}, {"X-Other-Scopes", "b"},
                                      {"X-Remote-Extra-Scopes", "a"}});
  Result result = user_from_headers(headers, config);
  ASSERT_EQ(result.outcome, Outcome::Authenticated);
  EXPECT_EQ(result.user.name, "joe");
  EXPECT_EQ(result.user.uid, "");
  EXPECT_TRUE(result.user.groups.empty());
  EXPECT_EQ(result.user.extra.at("scopes"), (Strings{"a", "b"})) << "values in the order of the prefixes";
  EXPECT_TRUE(headers.empty());
}

TEST(RequestHeaderUser, NoUsernameIsNotApplicableAndKeepsTheHeaders) {
  http::Headers headers = headers_of({{"X-Remote-Group", "devs"}, {"X-Remote-User", ""}});
  EXPECT_EQ(user_from_headers(headers, kube_conventions()).outcome, Outcome::NotApplicable);
  EXPECT_EQ(headers.size(), 2u);
  http::Headers named = headers_of({{"X-Remote-User", "jane"}});
  EXPECT_EQ(user_from_headers(named, {}).outcome, Outcome::NotApplicable) << "no username headers configured";
}

// Two CAs as a cluster has them: the client CA and the front proxy's, and certificates each signed.
class FrontProxyTest : public ::testing::Test {
 protected:
  struct Authority {
    pki::EvpPkeyPtr key;
    pki::X509Ptr certificate;
  };

  static Authority make_ca(const std::string& name) {
    Authority ca{pki::generate_ecdsa_p256_key(), nullptr};
    ca.certificate = pki::self_sign_certificate_authority({name, {}, pki::CertificateUsage::certificate_authority},
                                                          ca.key.get());
    return ca;
  }
  static http::PeerCertificate signed_by(const Authority& ca, const std::string& common_name, bool verified) {
    auto key = pki::generate_ecdsa_p256_key();
    auto leaf = pki::issue_certificate({common_name, {"proxies"}}, key.get(), {ca.certificate.get(), ca.key.get()});
    http::PeerCertificate peer{verified, verified ? "" : "unable to get local issuer certificate", common_name,
                               {"proxies"}};
    peer.chain.emplace_back(leaf.release(), &X509_free);
    return peer;
  }

  FrontProxyTest() {
    std::ofstream(dir_.path() / "front-proxy-ca.crt") << pki::certificate_to_pem(front_proxy_ca_.certificate.get());
  }

  RequestHeaderAuthenticator authenticator(Strings allowed_names) {
    RequestHeaderConfig config = kube_conventions();
    config.allowed_names = std::move(allowed_names);
    return {CertificateVerifier::from_file(dir_.path() / "front-proxy-ca.crt"), config};
  }
  static http::Request request_from(std::optional<http::PeerCertificate> peer, bool with_headers = true) {
    http::Request request = make_request("GET", "/api");
    request.peer_certificate = std::move(peer);
    if (with_headers) {
      request.headers.add("X-Remote-User", "jane");
      request.headers.add("X-Remote-Group", "devs");
    }
    return request;
  }

  test_support::TempDir dir_{"kapi-request-header-test"};
  Authority client_ca_ = make_ca("client-ca");
  Authority front_proxy_ca_ = make_ca("front-proxy-ca");
};

TEST_F(FrontProxyTest, AnAllowedProxyNamesTheUser) {
  // The handshake verified against the client CA only: for the front proxy's certificate it said no.
  http::Request request = request_from(signed_by(front_proxy_ca_, "front-proxy-client", false));
  Result result = run_sync(authenticator({"front-proxy-client"}).authenticate(request));
  ASSERT_EQ(result.outcome, Outcome::Authenticated) << result.error;
  EXPECT_EQ(result.user.name, "jane");
  EXPECT_EQ(result.user.groups, (Strings{"devs"}));
  EXPECT_FALSE(request.headers.has("X-Remote-User"));
  http::Request any_name = request_from(signed_by(front_proxy_ca_, "some-proxy", false));
  EXPECT_EQ(run_sync(authenticator({}).authenticate(any_name)).user.name, "jane") << "no allowed names: any CN";
}

TEST_F(FrontProxyTest, ACertificateOfAnotherCaOrNameFailsRatherThanFallingThrough) {
  http::Request client = request_from(signed_by(client_ca_, "kapi-admin", true));
  Result not_ours = run_sync(authenticator({}).authenticate(client));
  EXPECT_EQ(not_ours.outcome, Outcome::Failed);
  EXPECT_EQ(not_ours.error, "x509: unable to get local issuer certificate");
  EXPECT_TRUE(client.headers.has("X-Remote-User")) << "the headers are not read, nor removed";

  http::Request stranger = request_from(signed_by(front_proxy_ca_, "not-the-proxy", false));
  Result refused = run_sync(authenticator({"front-proxy-client"}).authenticate(stranger));
  EXPECT_EQ(refused.outcome, Outcome::Failed);
  EXPECT_EQ(refused.error, "x509: subject with cn=not-the-proxy is not in the allowed list");

  http::PeerCertificate no_chain{true, "", "front-proxy-client", {}};
  http::Request unverifiable = request_from(no_chain);
  EXPECT_EQ(run_sync(authenticator({}).authenticate(unverifiable)).outcome, Outcome::Failed);
}

TEST_F(FrontProxyTest, NoCertificateOrNoUsernameIsNotApplicable) {
  http::Request anonymous = request_from(std::nullopt);
  EXPECT_EQ(run_sync(authenticator({}).authenticate(anonymous)).outcome, Outcome::NotApplicable);
  EXPECT_TRUE(anonymous.headers.has("X-Remote-User"));
  http::Request bare = request_from(signed_by(front_proxy_ca_, "front-proxy-client", false), false);
  EXPECT_EQ(run_sync(authenticator({"front-proxy-client"}).authenticate(bare)).outcome, Outcome::NotApplicable);
}

TEST_F(FrontProxyTest, InTheUnionEachCertificateIsOnlyWhatItsOwnCaSays) {
  AuthenticationOptions options;
  options.request_header_ca_file = dir_.path() / "front-proxy-ca.crt";
  options.request_header = kube_conventions();
  options.request_header.allowed_names = {"front-proxy-client"};
  Strings warnings;
  auto union_of = RequestAuthenticator::build(options, &warnings);
  EXPECT_TRUE(warnings.empty());

  http::Request proxied = request_from(signed_by(front_proxy_ca_, "front-proxy-client", false));
  Result user = run_sync(union_of->authenticate(proxied));
  ASSERT_EQ(user.outcome, Outcome::Authenticated);
  EXPECT_EQ(user.user.name, "jane");
  EXPECT_EQ(user.user.groups, (Strings{"devs", "system:authenticated"}));

  http::Request client = request_from(signed_by(client_ca_, "alice", true));
  EXPECT_EQ(run_sync(union_of->authenticate(client)).user.name, "alice") << "a client certificate is its CN";

  http::Request bare = request_from(signed_by(front_proxy_ca_, "front-proxy-client", false), false);
  EXPECT_EQ(run_sync(union_of->authenticate(bare)).outcome, Outcome::Failed)
      << "without headers the proxy's certificate is a client certificate the client CA did not sign";
}

TEST(RequestHeaderOptions, NonstandardHeaderNamesAreWarnedAbout) {
  test_support::TempDir dir("kapi-request-header-warnings");
  auto ca_key = pki::generate_ecdsa_p256_key();
  auto ca = pki::self_sign_certificate_authority({"ca", {}, pki::CertificateUsage::certificate_authority}, ca_key.get());
  std::ofstream(dir.path() / "ca.crt") << pki::certificate_to_pem(ca.get());
  AuthenticationOptions options;
  options.request_header_ca_file = dir.path() / "ca.crt";
  options.request_header = {{"X-User"}, {}, {"x-remote-group"}, {"X-Extra-"}, {}};
  Strings warnings;
  RequestAuthenticator::build(options, &warnings);
  EXPECT_EQ(warnings, (Strings{"--requestheader-username-headers is set without specifying the standard X-Remote-User "
                               "header - API aggregation will not work",
                               "--requestheader-extra-headers-prefix is set without specifying the standard "
                               "X-Remote-Extra- header prefix - API aggregation will not work"}));
  options.request_header_ca_file = dir.path() / "missing.crt";
  EXPECT_THROW(RequestAuthenticator::build(options), std::runtime_error);
}

}  // namespace
}  // namespace kapi::authentication::request_header_test

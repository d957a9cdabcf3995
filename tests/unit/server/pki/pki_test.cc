#include "server/pki/pki.h"

#include "base/base64.h"

#include <algorithm>
#include <optional>

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/server/pki/pki_test_support.h"

namespace kapi::pki::pki_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TemporaryDirectory;

mode_t file_mode(const fs::path& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
  return status.st_mode & 07777;
}

std::string hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// Read-only checks share one generation: key generation dominates the suite's time, most of all under ASan.
class PkiGeneratedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_.emplace();
    PkiOptions options;
    options.cert_dir = directory_->path() / "pki";
    options.extra_sans = {"10.0.0.1", "kapi.example.com"};
    material_ = ensure_pki(options);
  }
  static void TearDownTestSuite() { directory_.reset(); }

  static fs::path dir() { return directory_->path() / "pki"; }
  static const PkiMaterial& material() { return material_; }

 private:
  static inline std::optional<TemporaryDirectory> directory_;
  static inline PkiMaterial material_;
};

TEST_F(PkiGeneratedTest, ReturnsThePathsOfTheGeneratedFiles) {
  EXPECT_EQ(material().ca_cert, dir() / "ca.crt");
  EXPECT_EQ(material().serving_cert, dir() / "apiserver.crt");
  EXPECT_EQ(material().serving_key, dir() / "apiserver.key");
  EXPECT_EQ(material().client_ca, dir() / "ca.crt");
  EXPECT_EQ(material().admin_cert, dir() / "admin.crt");
  EXPECT_EQ(material().admin_key, dir() / "admin.key");
  EXPECT_EQ(material().admin_kubeconfig, dir() / "admin.kubeconfig");
  EXPECT_EQ(material().front_proxy_ca, dir() / "front-proxy-ca.crt");
  EXPECT_EQ(material().front_proxy_client_cert, dir() / "front-proxy-client.crt");
  EXPECT_EQ(material().front_proxy_client_key, dir() / "front-proxy-client.key");
  EXPECT_EQ(material().service_account_key, dir() / "sa.key");
  EXPECT_EQ(material().service_account_pub, dir() / "sa.pub");
  EXPECT_TRUE(fs::exists(dir() / "ca.key"));
  EXPECT_TRUE(fs::exists(dir() / "front-proxy-ca.key"));
}

TEST_F(PkiGeneratedTest, PrivateFilesAreOwnerOnlyAndCertificatesWorldReadable) {
  for (const char* name : {"ca.key", "apiserver.key", "admin.key", "front-proxy-ca.key", "front-proxy-client.key",
                           "sa.key", "admin.kubeconfig"}) {
    EXPECT_EQ(file_mode(dir() / name), 0600u) << name;
  }
  for (const char* name : {"ca.crt", "apiserver.crt", "admin.crt", "front-proxy-ca.crt", "front-proxy-client.crt",
                           "sa.pub"}) {
    EXPECT_EQ(file_mode(dir() / name), 0644u) << name;
  }
}

TEST_F(PkiGeneratedTest, LeavesNoTemporaryFilesBehind) {
  for (const auto& entry : fs::directory_iterator(dir())) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".tmp-")));
  }
}

TEST_F(PkiGeneratedTest, CaIsASelfSignedCriticalCa) {
  X509Ptr ca = read_certificate_file(material().ca_cert);
  EXPECT_EQ(testing::subject_entry(ca.get(), NID_commonName), "kapi-ca");
  EXPECT_EQ(X509_check_issued(ca.get(), ca.get()), X509_V_OK);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_TRUE(testing::extension_is_critical(ca.get(), NID_basic_constraints));
  EXPECT_TRUE(testing::extension_is_critical(ca.get(), NID_key_usage));
  EXPECT_EQ(X509_get_key_usage(ca.get()), static_cast<uint32_t>(KU_KEY_CERT_SIGN | KU_CRL_SIGN | KU_DIGITAL_SIGNATURE));
  EXPECT_NE(X509_get0_subject_key_id(ca.get()), nullptr);
  // Ten years, not counting the hour of back-dating.
  int days = 0, seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(ca.get()), X509_get0_notAfter(ca.get())), 1);
  EXPECT_EQ(days, 3650);
}

TEST_F(PkiGeneratedTest, CertificateKeysAreEcdsaP256) {
  for (const char* name : {"ca.key", "apiserver.key", "admin.key", "front-proxy-ca.key", "front-proxy-client.key"}) {
    EvpPkeyPtr key = read_private_key_file(dir() / name);
    EXPECT_TRUE(EVP_PKEY_is_a(key.get(), "EC")) << name;
    char group[64] = {};
    std::size_t length = 0;
    EXPECT_EQ(EVP_PKEY_get_group_name(key.get(), group, sizeof group, &length), 1) << name;
    EXPECT_STREQ(group, "prime256v1") << name;
  }
}

TEST_F(PkiGeneratedTest, ServingCertificateChainsToTheCaAsATlsServer) {
  X509Ptr ca = read_certificate_file(material().ca_cert);
  X509Ptr serving = read_certificate_file(material().serving_cert);
  EXPECT_EQ(testing::verify_chain(ca.get(), serving.get(), X509_PURPOSE_SSL_SERVER), X509_V_OK);
  EXPECT_EQ(testing::subject_entry(serving.get(), NID_commonName), "kapi-apiserver");
  EXPECT_TRUE(X509_get_extended_key_usage(serving.get()) & XKU_SSL_SERVER);
  EXPECT_FALSE(X509_get_extended_key_usage(serving.get()) & XKU_SSL_CLIENT);
  EXPECT_EQ(X509_check_ca(serving.get()), 0);
  // The authority key id points at the CA's subject key id.
  const ASN1_OCTET_STRING* authority = X509_get0_authority_key_id(serving.get());
  ASSERT_NE(authority, nullptr);
  EXPECT_EQ(ASN1_OCTET_STRING_cmp(authority, X509_get0_subject_key_id(ca.get())), 0);
  int days = 0, seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(serving.get()), X509_get0_notAfter(serving.get())),
            1);
  EXPECT_EQ(days, 365);
}

TEST_F(PkiGeneratedTest, ServingCertificateNamesEveryWayToReachTheServer) {
  X509Ptr serving = read_certificate_file(material().serving_cert);
  const std::vector<std::string> names = testing::subject_alt_names(serving.get());
  for (const std::string& expected :
       {std::string("DNS:localhost"), "DNS:" + hostname(), std::string("DNS:kubernetes"),
        std::string("DNS:kubernetes.default"), std::string("DNS:kubernetes.default.svc"),
        std::string("DNS:kubernetes.default.svc.cluster.local"), std::string("DNS:kapi.example.com"),
        std::string("IP:127.0.0.1"), std::string("IP:::1"), std::string("IP:10.0.0.1")}) {
    EXPECT_THAT(names, ::testing::Contains(expected));
  }
  // Each name once, even though 127.0.0.1 is both a default and the advertise host.
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(X509_check_host(serving.get(), "kubernetes.default.svc", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(serving.get(), "10.0.0.1", 0), 1);
}

TEST_F(PkiGeneratedTest, AdminCertificateIsASystemMastersClient) {
  X509Ptr ca = read_certificate_file(material().ca_cert);
  X509Ptr admin = read_certificate_file(material().admin_cert);
  EXPECT_EQ(testing::subject_entry(admin.get(), NID_commonName), "kapi-admin");
  EXPECT_EQ(testing::subject_entry(admin.get(), NID_organizationName), "system:masters");
  EXPECT_TRUE(X509_get_extended_key_usage(admin.get()) & XKU_SSL_CLIENT);
  EXPECT_FALSE(X509_get_extended_key_usage(admin.get()) & XKU_SSL_SERVER);
  EXPECT_EQ(testing::verify_chain(ca.get(), admin.get(), X509_PURPOSE_SSL_CLIENT), X509_V_OK);
  EXPECT_NE(testing::verify_chain(ca.get(), admin.get(), X509_PURPOSE_SSL_SERVER), X509_V_OK);
}

TEST_F(PkiGeneratedTest, FrontProxyClientChainsToItsOwnCaOnly) {
  X509Ptr ca = read_certificate_file(material().ca_cert);
  X509Ptr front_proxy_ca = read_certificate_file(material().front_proxy_ca);
  X509Ptr client = read_certificate_file(material().front_proxy_client_cert);
  EXPECT_EQ(testing::subject_entry(client.get(), NID_commonName), "front-proxy-client");
  EXPECT_TRUE(X509_get_extended_key_usage(client.get()) & XKU_SSL_CLIENT);
  EXPECT_EQ(testing::verify_chain(front_proxy_ca.get(), client.get(), X509_PURPOSE_SSL_CLIENT), X509_V_OK);
  EXPECT_NE(testing::verify_chain(ca.get(), client.get(), X509_PURPOSE_SSL_CLIENT), X509_V_OK);
}

TEST_F(PkiGeneratedTest, SerialsAreRandom128BitPositiveIntegers) {
  std::vector<std::string> serials;
  for (const auto& path : {material().ca_cert, material().serving_cert, material().admin_cert,
                           material().front_proxy_ca, material().front_proxy_client_cert}) {
    X509Ptr certificate = read_certificate_file(path);
    BignumPtr serial(ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate.get()), nullptr));
    ASSERT_NE(serial, nullptr);
    EXPECT_FALSE(BN_is_negative(serial.get())) << path;
    EXPECT_EQ(BN_num_bits(serial.get()), 128) << path;
    std::unique_ptr<char, void (*)(char*)> hex(BN_bn2hex(serial.get()), [](char* text) { OPENSSL_free(text); });
    serials.emplace_back(hex.get());
  }
  std::sort(serials.begin(), serials.end());
  EXPECT_EQ(std::adjacent_find(serials.begin(), serials.end()), serials.end());
}

TEST_F(PkiGeneratedTest, ServiceAccountKeyIsRsa2048WithMatchingPublicKey) {
  const std::string key_pem = read_file(material().service_account_key);
  EXPECT_THAT(key_pem, ::testing::StartsWith("-----BEGIN RSA PRIVATE KEY-----"));
  EvpPkeyPtr key = parse_private_key_pem(key_pem, "sa.key");
  EXPECT_TRUE(EVP_PKEY_is_a(key.get(), "RSA"));
  EXPECT_EQ(EVP_PKEY_get_bits(key.get()), 2048);
  const std::string public_pem = read_file(material().service_account_pub);
  EXPECT_THAT(public_pem, ::testing::StartsWith("-----BEGIN PUBLIC KEY-----"));
  EvpPkeyPtr public_key = parse_public_key_pem(public_pem, "sa.pub");
  EXPECT_EQ(EVP_PKEY_eq(public_key.get(), key.get()), 1);
}

TEST_F(PkiGeneratedTest, OpensslCliVerifiesTheServingCertificateAgainstTheCa) {
  const testing::CommandResult result =
      testing::run_command("openssl verify -purpose sslserver -CAfile " + testing::shell_quote(material().ca_cert) +
                           " " + testing::shell_quote(material().serving_cert));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr(": OK"));
}

TEST_F(PkiGeneratedTest, KubeconfigEmbedsTheGeneratedMaterial) {
  const std::string kubeconfig = read_file(material().admin_kubeconfig);
  EXPECT_THAT(kubeconfig, HasSubstr("server: https://127.0.0.1:6443\n"));
  EXPECT_THAT(kubeconfig, HasSubstr("certificate-authority-data: " + base::base64_encode(read_file(material().ca_cert))));
  EXPECT_THAT(kubeconfig, HasSubstr("client-certificate-data: " + base::base64_encode(read_file(material().admin_cert))));
  EXPECT_THAT(kubeconfig, HasSubstr("client-key-data: " + base::base64_encode(read_file(material().admin_key))));
  EXPECT_THAT(kubeconfig, HasSubstr("current-context: kapi\n"));
}

TEST_F(PkiGeneratedTest, KubectlReadsTheKubeconfig) {
  const std::string kubeconfig = testing::shell_quote(material().admin_kubeconfig);
  const testing::CommandResult certificate = testing::run_command(
      "kubectl config view --kubeconfig " + kubeconfig +
      " --raw -o jsonpath='{.users[0].user.client-certificate-data}'");
  ASSERT_EQ(certificate.exit_code, 0) << certificate.output;
  EXPECT_EQ(certificate.output, base::base64_encode(read_file(material().admin_cert)));

  const testing::CommandResult context = testing::run_command("kubectl config current-context --kubeconfig " + kubeconfig);
  ASSERT_EQ(context.exit_code, 0) << context.output;
  EXPECT_EQ(context.output, "kapi\n");

  const testing::CommandResult server =
      testing::run_command("kubectl config view --kubeconfig " + kubeconfig + " --minify -o jsonpath='{.clusters[0].cluster.server}'");
  ASSERT_EQ(server.exit_code, 0) << server.output;
  EXPECT_EQ(server.output, "https://127.0.0.1:6443");
}

// The real client: Go's TLS stack in kubectl must accept the serving certificate, and a server requiring a client
// certificate from ca.crt must accept the admin's.
TEST_F(PkiGeneratedTest, KubectlCompletesMutualTlsWithTheGeneratedCertificates) {
  using testing::shell_quote;
  testing::OpensslServer server("-www -cert " + shell_quote(material().serving_cert) + " -key " +
                                shell_quote(material().serving_key) + " -CAfile " + shell_quote(material().client_ca) +
                                " -Verify 1 -verify_return_error");
  ASSERT_NE(server.port(), 0);
  const testing::CommandResult result = testing::run_command(
      "timeout 30 kubectl --kubeconfig " + shell_quote(material().admin_kubeconfig) + " --server https://127.0.0.1:" +
      std::to_string(server.port()) + " --request-timeout 20s get --raw /");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("s_server"));  // the -www status page: the request got through
}

}  // namespace
}  // namespace kapi::pki::pki_test

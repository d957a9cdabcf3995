// ensure_pki across restarts and with caller-supplied material: reuse, healing, and the errors it refuses to paper
// over.

#include "server/pki/pki.h"

#include "base/base64.h"

#include <map>

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/server/pki/pki_test_support.h"

namespace kapi::pki::pki_lifecycle_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TemporaryDirectory;

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files[entry.path().filename()] = read_file(entry.path());
  return files;
}

std::string error_of(const PkiOptions& options) {
  try {
    ensure_pki(options);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "no error";
}

class PkiLifecycleTest : public ::testing::Test {
 protected:
  PkiLifecycleTest() { options_.cert_dir = directory_.path() / "pki"; }

  fs::path dir() const { return options_.cert_dir; }

  TemporaryDirectory directory_;
  PkiOptions options_;
};

TEST_F(PkiLifecycleTest, SecondCallReusesEveryFileUnchanged) {
  const PkiMaterial first = ensure_pki(options_);
  const auto before = snapshot(dir());
  const PkiMaterial second = ensure_pki(options_);
  EXPECT_EQ(snapshot(dir()), before);
  EXPECT_EQ(second.serving_cert, first.serving_cert);
  EXPECT_EQ(second.admin_kubeconfig, first.admin_kubeconfig);
}

TEST_F(PkiLifecycleTest, CertificateWhoseKeyIsMissingIsAnError) {
  ensure_pki(options_);
  fs::remove(dir() / "apiserver.key");
  const std::string error = error_of(options_);
  EXPECT_THAT(error, HasSubstr((dir() / "apiserver.crt").string()));
  EXPECT_THAT(error, HasSubstr((dir() / "apiserver.key").string() + "' is missing"));
  EXPECT_FALSE(fs::exists(dir() / "apiserver.key"));
}

TEST_F(PkiLifecycleTest, ServiceAccountPublicKeyWithoutPrivateKeyIsAnError) {
  ensure_pki(options_);
  fs::remove(dir() / "sa.key");
  EXPECT_THAT(error_of(options_), HasSubstr("sa.key' is missing"));
}

TEST_F(PkiLifecycleTest, KeyWithoutCertificateGetsANewCertificateForThatKey) {
  ensure_pki(options_);
  const std::string key = read_file(dir() / "admin.key");
  fs::remove(dir() / "admin.crt");
  ensure_pki(options_);
  EXPECT_EQ(read_file(dir() / "admin.key"), key);
  X509Ptr admin = read_certificate_file(dir() / "admin.crt");
  EvpPkeyPtr admin_key = read_private_key_file(dir() / "admin.key");
  EXPECT_EQ(X509_check_private_key(admin.get(), admin_key.get()), 1);
}

TEST_F(PkiLifecycleTest, MissingServiceAccountPublicKeyIsDerivedAgain) {
  ensure_pki(options_);
  const std::string public_key = read_file(dir() / "sa.pub");
  fs::remove(dir() / "sa.pub");
  ensure_pki(options_);
  EXPECT_EQ(read_file(dir() / "sa.pub"), public_key);
}

TEST_F(PkiLifecycleTest, KeyThatDoesNotMatchItsCertificateIsAnError) {
  ensure_pki(options_);
  fs::copy_file(dir() / "admin.key", dir() / "apiserver.key", fs::copy_options::overwrite_existing);
  EXPECT_THAT(error_of(options_), HasSubstr("is not the private key of"));
}

TEST_F(PkiLifecycleTest, LeafFromAReplacedCaIsAnError) {
  ensure_pki(options_);
  fs::remove(dir() / "ca.crt");
  fs::remove(dir() / "ca.key");
  const std::string error = error_of(options_);
  EXPECT_THAT(error, HasSubstr("apiserver.crt' is not signed by"));
}

TEST_F(PkiLifecycleTest, KubeconfigFollowsTheAdvertisedAddress) {
  ensure_pki(options_);
  options_.advertise_host = "::1";
  options_.secure_port = 7443;
  const PkiMaterial material = ensure_pki(options_);
  EXPECT_THAT(read_file(material.admin_kubeconfig), HasSubstr("server: https://[::1]:7443\n"));
  struct stat status {};
  ASSERT_EQ(::stat(material.admin_kubeconfig.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0600u);
}

TEST_F(PkiLifecycleTest, AdvertisedDnsNameBecomesAServingSan) {
  options_.advertise_host = "kapi.internal";
  const PkiMaterial material = ensure_pki(options_);
  X509Ptr serving = read_certificate_file(material.serving_cert);
  EXPECT_THAT(testing::subject_alt_names(serving.get()), ::testing::Contains("DNS:kapi.internal"));
  EXPECT_THAT(read_file(material.admin_kubeconfig), HasSubstr("server: https://kapi.internal:6443\n"));
}

TEST_F(PkiLifecycleTest, InvalidExtraSanIsAnError) {
  options_.extra_sans = {"not a name"};
  EXPECT_THAT(error_of(options_), HasSubstr("'not a name'"));
}

TEST_F(PkiLifecycleTest, TlsCertAndKeyFlagsGoTogether) {
  options_.tls_cert_file = directory_.path() / "server.crt";
  EXPECT_THAT(error_of(options_), HasSubstr("--tls-cert-file and --tls-private-key-file must be given together"));
}

TEST_F(PkiLifecycleTest, CallerServingCertificateReplacesTheGeneratedOne) {
  PkiOptions other = options_;
  other.cert_dir = directory_.path() / "elsewhere";
  const PkiMaterial supplied = ensure_pki(other);

  options_.tls_cert_file = supplied.serving_cert;
  options_.tls_private_key_file = supplied.serving_key;
  const PkiMaterial material = ensure_pki(options_);
  EXPECT_EQ(material.serving_cert, supplied.serving_cert);
  EXPECT_EQ(material.serving_key, supplied.serving_key);
  EXPECT_FALSE(fs::exists(dir() / "apiserver.crt"));
  EXPECT_FALSE(fs::exists(dir() / "apiserver.key"));
  // The admin still authenticates with kapi's own client CA; the kubeconfig trusts the certificate being served.
  EXPECT_EQ(material.client_ca, dir() / "ca.crt");
  EXPECT_THAT(read_file(material.admin_kubeconfig),
              HasSubstr("certificate-authority-data: " + base::base64_encode(read_file(supplied.serving_cert))));
}

TEST_F(PkiLifecycleTest, CallerServingKeyMustMatchItsCertificate) {
  PkiOptions other = options_;
  other.cert_dir = directory_.path() / "elsewhere";
  const PkiMaterial supplied = ensure_pki(other);
  options_.tls_cert_file = supplied.serving_cert;
  options_.tls_private_key_file = supplied.admin_key;
  EXPECT_THAT(error_of(options_), HasSubstr("--tls-private-key-file"));
}

TEST_F(PkiLifecycleTest, CallerClientCaMeansNoGeneratedAdminCredentials) {
  PkiOptions other = options_;
  other.cert_dir = directory_.path() / "elsewhere";
  const PkiMaterial supplied = ensure_pki(other);

  options_.client_ca_file = supplied.ca_cert;
  const PkiMaterial material = ensure_pki(options_);
  EXPECT_EQ(material.client_ca, supplied.ca_cert);
  EXPECT_TRUE(material.admin_cert.empty());
  EXPECT_TRUE(material.admin_kubeconfig.empty());
  EXPECT_FALSE(fs::exists(dir() / "admin.crt"));
  EXPECT_FALSE(fs::exists(dir() / "admin.kubeconfig"));
  EXPECT_TRUE(fs::exists(dir() / "apiserver.crt"));  // serving is still generated, by kapi's CA
}

TEST_F(PkiLifecycleTest, CallerServingCertAndClientCaMeanNoGeneratedCa) {
  PkiOptions other = options_;
  other.cert_dir = directory_.path() / "elsewhere";
  const PkiMaterial supplied = ensure_pki(other);

  options_.tls_cert_file = supplied.serving_cert;
  options_.tls_private_key_file = supplied.serving_key;
  options_.client_ca_file = supplied.ca_cert;
  const PkiMaterial material = ensure_pki(options_);
  EXPECT_TRUE(material.ca_cert.empty());
  EXPECT_FALSE(fs::exists(dir() / "ca.crt"));
  EXPECT_TRUE(fs::exists(dir() / "front-proxy-ca.crt"));
  EXPECT_TRUE(fs::exists(dir() / "sa.key"));
}

TEST_F(PkiLifecycleTest, UnreadableClientCaIsAnError) {
  options_.client_ca_file = directory_.path() / "missing-ca.crt";
  EXPECT_THAT(error_of(options_), HasSubstr("missing-ca.crt"));
}

}  // namespace
}  // namespace kapi::pki::pki_lifecycle_test

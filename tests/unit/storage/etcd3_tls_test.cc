// The etcd3 store against an etcd that requires TLS and client certificates (--etcd-cafile/--etcd-certfile/
// --etcd-keyfile), with a throwaway PKI.
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "storage/etcd3/store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

namespace kapi::storage::etcd3::etcd3_tls_test {
namespace {

using namespace std::chrono_literals;

// A CA, a serving certificate for 127.0.0.1 and a client certificate, as PEM files in a temp dir.
struct ThrowawayPki {
  ThrowawayPki() {
    auto ca_key = pki::generate_ecdsa_p256_key();
    pki::CertificateRequest ca_request;
    ca_request.common_name = "etcd-test-ca";
    ca_request.usage = pki::CertificateUsage::certificate_authority;
    auto ca = pki::self_sign_certificate_authority(ca_request, ca_key.get());
    const pki::Issuer issuer{ca.get(), ca_key.get()};
    write("ca.crt", pki::certificate_to_pem(ca.get()));

    auto issue = [&](const std::string& name, pki::CertificateUsage usage) {
      auto key = pki::generate_ecdsa_p256_key();
      pki::CertificateRequest request;
      request.common_name = name;
      request.usage = usage;
      request.subject_alt_names = {pki::parse_subject_alt_name("127.0.0.1")};
      auto certificate = pki::issue_certificate(request, key.get(), issuer);
      write(name + ".crt", pki::certificate_to_pem(certificate.get()));
      write(name + ".key", pki::private_key_to_pem(key.get()));
    };
    issue("server", pki::CertificateUsage::server_auth);
    issue("client", pki::CertificateUsage::client_auth);
  }
  std::filesystem::path file(const std::string& name) const { return dir.path() / name; }
  void write(const std::string& name, const std::string& pem) {
    pki::write_file_atomically(file(name), pem, pki::kPrivateFileMode);
  }
  test_support::TempDir dir{"kapi-etcd-pki"};
};

class Etcd3TlsTest : public ::testing::Test {
 protected:
  static test_support::EtcdProcess::Options secured(const ThrowawayPki& pki) {
    test_support::EtcdProcess::Options options;
    options.cert_file = pki.file("server.crt");
    options.key_file = pki.file("server.key");
    options.trusted_ca_file = pki.file("ca.crt");
    return options;
  }
  StoreOptions store_options(bool with_client_certificate) const {
    StoreOptions options;
    options.client.endpoints = {etcd_.endpoint()};
    options.client.request_timeout = 2s;
    options.client.ca_file = pki_.file("ca.crt");
    if (with_client_certificate) {
      options.client.cert_file = pki_.file("client.crt");
      options.client.key_file = pki_.file("client.key");
    }
    options.compaction_interval = 0s;
    return options;
  }

  ThrowawayPki pki_;
  test_support::EtcdProcess etcd_{secured(pki_)};
  test_support::IoThread io_;
};

TEST_F(Etcd3TlsTest, TalksTlsWithAClientCertificate) {
  ASSERT_EQ(etcd_.endpoint().rfind("https://", 0), 0u);
  auto store = std::make_unique<Store>(io_.executor(), store_options(true));
  auto created = io_.run(store->create("/registry/secrets/ns/s", "v", {}));
  auto got = io_.run(store->get("/registry/secrets/ns/s", {}));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->mod_revision, created.mod_revision);
  store.reset();
}

TEST_F(Etcd3TlsTest, WithoutAClientCertificateEtcdIsUnreachable) {
  auto store = std::make_unique<Store>(io_.executor(), store_options(false));
  try {
    io_.run(store->get("/registry/secrets/ns/s", {}));
    FAIL() << "etcd accepted a client without a certificate";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::Unreachable) << error.what();
  }
  store.reset();
}

}  // namespace
}  // namespace kapi::storage::etcd3::etcd3_tls_test

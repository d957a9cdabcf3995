#include "tests/support/sample_apiserver/serving_pki.h"

#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"

#include <stdexcept>

namespace kapi::sample_apiserver {

namespace fs = std::filesystem;

ServingFiles ensure_serving_pki(const fs::path& cert_dir, const std::vector<std::string>& dns_names) {
  ServingFiles files{cert_dir / "ca.crt", cert_dir / "serving.crt", cert_dir / "serving.key"};
  if (fs::exists(files.cert) && fs::exists(files.key)) return files;
  fs::create_directories(cert_dir);

  const fs::path ca_key_path = cert_dir / "ca.key";
  pki::X509Ptr ca;
  pki::EvpPkeyPtr ca_key;
  if (fs::exists(files.ca_cert) && fs::exists(ca_key_path)) {
    ca = pki::read_certificate_file(files.ca_cert);
    ca_key = pki::read_private_key_file(ca_key_path);
  } else {
    ca_key = pki::generate_ecdsa_p256_key();
    ca = pki::self_sign_certificate_authority(
        {.common_name = "sample-apiserver-ca", .usage = pki::CertificateUsage::certificate_authority,
         .validity_days = 3650},
        ca_key.get());
    pki::write_file_atomically(ca_key_path, pki::private_key_to_pem(ca_key.get()), pki::kPrivateFileMode);
    pki::write_file_atomically(files.ca_cert, pki::certificate_to_pem(ca.get()), pki::kPublicFileMode);
  }

  pki::CertificateRequest request{.common_name = dns_names.empty() ? "sample-apiserver" : dns_names.front(),
                                  .usage = pki::CertificateUsage::server_auth,
                                  .validity_days = 365};
  try {
    for (const auto& name : dns_names) request.subject_alt_names.push_back(pki::parse_subject_alt_name(name));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(std::string("--server-name: ") + error.what());
  }
  // The aggregator dials the service's endpoint, 127.0.0.1 in tests, and checks the service's DNS name; a
  // client that checks the address it dialled finds it too.
  request.subject_alt_names.push_back({pki::SubjectAltName::Kind::ip, "127.0.0.1"});
  pki::EvpPkeyPtr key = pki::generate_ecdsa_p256_key();
  pki::X509Ptr cert = pki::issue_certificate(request, key.get(), {ca.get(), ca_key.get()});
  // Key first: a crash in between leaves a key without a certificate, which the next start replaces.
  pki::write_file_atomically(files.key, pki::private_key_to_pem(key.get()), pki::kPrivateFileMode);
  pki::write_file_atomically(files.cert, pki::certificate_to_pem(cert.get()), pki::kPublicFileMode);
  return files;
}

}  // namespace kapi::sample_apiserver

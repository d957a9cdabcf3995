#pragma once
// Verifying a client's certificate chain against one set of authorities, as kube's x509 authenticators do with
// their own VerifyOptions (Roots from a CA bundle, KeyUsages client auth) rather than trusting whatever the TLS
// handshake verified against: the front proxy's CA must only vouch for the front proxy.
#include "server/http/request.h"

#include <openssl/types.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace kapi::authentication {

class CertificateVerifier {
 public:
  // The authorities in a PEM bundle; throws std::runtime_error when it cannot be read or holds none.
  static CertificateVerifier from_file(const std::filesystem::path& ca_file);

  // Why `peer`'s chain does not lead to one of the authorities for client authentication, or nullopt when it
  // does. A certificate whose chain is unknown does not verify.
  std::optional<std::string> verify(const http::PeerCertificate& peer) const;

 private:
  explicit CertificateVerifier(std::shared_ptr<X509_STORE> roots) : roots_(std::move(roots)) {}
  std::shared_ptr<X509_STORE> roots_;  // read-only after loading, so shared by every reactor thread
};

}  // namespace kapi::authentication

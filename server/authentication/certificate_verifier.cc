#include "server/authentication/certificate_verifier.h"

#include "server/pki/openssl_handles.h"

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace kapi::authentication {

CertificateVerifier CertificateVerifier::from_file(const std::filesystem::path& ca_file) {
  std::shared_ptr<X509_STORE> roots(X509_STORE_new(), &X509_STORE_free);
  if (!roots) throw std::runtime_error("X509_STORE_new failed");
  ERR_clear_error();
  if (X509_STORE_load_file(roots.get(), ca_file.c_str()) != 1) {
    char reason[256] = {};
    ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
    ERR_clear_error();
    throw std::runtime_error("error reading " + ca_file.string() + ": " + reason);
  }
  if (sk_X509_OBJECT_num(X509_STORE_get0_objects(roots.get())) == 0)
    throw std::runtime_error("error reading " + ca_file.string() + ": no certificates found");
  return CertificateVerifier(std::move(roots));
}

std::optional<std::string> CertificateVerifier::verify(const http::PeerCertificate& peer) const {
  if (peer.chain.empty()) return "x509: no certificate chain to verify";
  auto free_stack = [](STACK_OF(X509) * stack) { sk_X509_free(stack); };  // the certificates stay the chain's
  std::unique_ptr<STACK_OF(X509), decltype(free_stack)> intermediates(sk_X509_new_null(), free_stack);
  pki::X509StoreContextPtr context(X509_STORE_CTX_new());
  if (!intermediates || !context) return "x509: out of memory";
  for (std::size_t i = 1; i < peer.chain.size(); ++i) sk_X509_push(intermediates.get(), peer.chain[i].get());
  if (X509_STORE_CTX_init(context.get(), roots_.get(), peer.chain.front().get(), intermediates.get()) != 1)
    return "x509: cannot start verification";
  // kube's DefaultVerifyOptions: the chain must be good for client authentication.
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(context.get()) == 1) return std::nullopt;
  return std::string(X509_verify_cert_error_string(X509_STORE_CTX_get_error(context.get())));
}

}  // namespace kapi::authentication

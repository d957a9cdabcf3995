#include "server/proxy/backend.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <stdexcept>
#include <system_error>

namespace kapi::proxy {

std::string join_host_port(std::string_view host, std::uint16_t port) {
  std::string out;
  if (host.find(':') != std::string_view::npos)
    out.append("[").append(host).append("]");
  else
    out.append(host);
  return out.append(":").append(std::to_string(port));
}

namespace {

// Adds every certificate of a PEM bundle to the context's trust store; returns how many there were.
int trust_pem_bundle(SSL_CTX* context, std::string_view pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                &BIO_free);
  if (!bio) throw std::runtime_error("unable to load root certificates: out of memory");
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  int count = 0;
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    // A certificate already present (the same CA twice in a bundle) is not an error.
    X509_STORE_add_cert(store, certificate);
    X509_free(certificate);
    ++count;
  }
  ERR_clear_error();  // the loop ends on "no start line", which is not a failure
  return count;
}

}  // namespace

std::shared_ptr<asio::ssl::context> make_backend_tls(std::string_view ca_bundle_pem, bool insecure_skip_verify,
                                                     const std::filesystem::path& client_cert_file,
                                                     const std::filesystem::path& client_key_file) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  if (insecure_skip_verify) {
    // Go's InsecureSkipVerify: no chain and no name checks at all (the caBundle is ignored).
    context->set_verify_mode(asio::ssl::verify_none);
  } else {
    if (ca_bundle_pem.empty()) {
      context->set_default_verify_paths();
    } else if (trust_pem_bundle(native, ca_bundle_pem) == 0) {
      throw std::runtime_error("unable to load root certificates: unable to parse bytes as PEM block");
    }
    context->set_verify_mode(asio::ssl::verify_peer);
  }
  if (!client_cert_file.empty()) {
    try {
      context->use_certificate_chain_file(client_cert_file.string());
    } catch (const std::system_error& error) {
      throw std::runtime_error("cannot load the proxy client certificate " + client_cert_file.string() + ": " +
                               error.what());
    }
  }
  if (!client_key_file.empty()) {
    try {
      context->use_private_key_file(client_key_file.string(), asio::ssl::context::pem);
    } catch (const std::system_error& error) {
      throw std::runtime_error("cannot load the proxy client key " + client_key_file.string() + ": " +
                               error.what());
    }
  }
  // Only HTTP/1.1 is spoken; offering it by ALPN keeps an h2-capable backend from expecting HTTP/2.
  static constexpr unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(native, kHttp11, sizeof(kHttp11));
  return context;
}

LazyTlsContext::LazyTlsContext(Maker make) : state_(std::make_shared<State>()) { state_->make = std::move(make); }

LazyTlsContext::LazyTlsContext(std::shared_ptr<asio::ssl::context> made) : state_(std::make_shared<State>()) {
  state_->make = [made = std::move(made)] { return made; };
}

std::shared_ptr<asio::ssl::context> LazyTlsContext::get() const {
  if (!state_) return nullptr;
  std::call_once(state_->made, [state = state_.get()] { state->context = state->make(); });
  return state_->context;
}

}  // namespace kapi::proxy

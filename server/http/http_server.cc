#include "server/http/http_server.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/strand.hpp>
#include <asio/use_awaitable.hpp>
#include <openssl/ssl.h>

#include <cstring>
#include <stdexcept>

namespace kapi::http {
namespace {

// The server's ALPN protocols in preference order, in the wire format SSL_select_next_proto reads.
struct Protocols {
  const unsigned char* list;
  unsigned int size;
};
constexpr unsigned char kHttp11Only[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr unsigned char kHttp2First[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr Protocols kOfferHttp11{kHttp11Only, sizeof kHttp11Only};
constexpr Protocols kOfferHttp2{kHttp2First, sizeof kHttp2First};

// Go's server picks by its own preference: h2 when both sides offer it and the server serves it.
int select_protocol(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                    unsigned int in_length, void* offered) {
  const auto& server = *static_cast<const Protocols*>(offered);
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_length, server.list, server.size, in, in_length) !=
      OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;  // no common protocol: go on without ALPN, HTTP/1.1 is assumed
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

// Keep the handshake going whatever the client's certificate says; the verdict stays in the SSL object.
int accept_and_record(int, X509_STORE_CTX*) { return 1; }

}  // namespace

std::shared_ptr<asio::ssl::context> make_server_tls_context(const TlsFiles& files) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  context->use_certificate_chain_file(files.cert_file.string());
  context->use_private_key_file(files.key_file.string(), asio::ssl::context::pem);
  SSL_CTX* native = context->native_handle();
  if (!files.client_ca_file.empty()) context->load_verify_file(files.client_ca_file.string());
  // The names a client picks its certificate by: every authority some authenticator trusts (kube's dynamic
  // client CA pool joins the client CA and the request-header CA so).
  std::vector<std::filesystem::path> acceptable = files.other_client_ca_files;
  if (!files.client_ca_file.empty()) acceptable.insert(acceptable.begin(), files.client_ca_file);
  if (!acceptable.empty()) {
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    for (const auto& file : acceptable)
      if (SSL_add_file_cert_subjects_to_stack(names, file.c_str()) != 1) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        throw std::runtime_error("cannot read client CA file " + file.string());
      }
    SSL_CTX_set_client_CA_list(native, names);  // takes ownership
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER, &accept_and_record);
    // A client resuming a session (a ticket; curl and Node do) is served only when the session says which
    // context it belongs to, once client certificates are asked for: OpenSSL fails the handshake otherwise.
    static constexpr unsigned char kSessionContext[] = {'k', 'a', 'p', 'i'};
    SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext);
  }
  SSL_CTX_set_alpn_select_cb(native, &select_protocol,
                             const_cast<Protocols*>(files.http2 ? &kOfferHttp2 : &kOfferHttp11));
  return context;
}

HttpServer::HttpServer(asio::io_context& io, ConnectionOptions options, RequestHandler handler,
                       ReactorPool* reactors)
    : io_(io), reactors_(reactors), options_(std::move(options)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() = default;

asio::ip::tcp::endpoint HttpServer::listen(const asio::ip::tcp::endpoint& endpoint,
                                           std::shared_ptr<asio::ssl::context> tls) {
  // The acceptor lives on a strand, where its accept loop runs and where stop_accepting() closes it: closing an
  // acceptor on one reactor thread while another starts an accept on it crashed kapi at shutdown.
  auto listener = std::make_shared<Listener>(Listener{asio::ip::tcp::acceptor(asio::make_strand(io_)), std::move(tls)});
  auto& acceptor = listener->acceptor;
  acceptor.open(endpoint.protocol());
  acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(asio::socket_base::max_listen_connections);
  auto bound = acceptor.local_endpoint();
  listeners_.push_back(std::move(listener));
  return bound;
}

void HttpServer::start() {
  for (auto& listener : listeners_)
    asio::co_spawn(listener->acceptor.get_executor(), accept_loop(listener), asio::detached);
}

void HttpServer::stop_accepting() {
  for (auto& listener : listeners_) {
    asio::post(listener->acceptor.get_executor(), [listener] {
      asio::error_code ignored;
      listener->acceptor.close(ignored);
    });
  }
}

asio::any_io_executor HttpServer::connection_executor() {
  // A pool's reactor has one thread, which serialises the connection's handlers; a shared io_context needs a strand.
  if (reactors_) return reactors_->next().get_executor();
  return asio::make_strand(io_);
}

asio::awaitable<void> HttpServer::accept_loop(std::shared_ptr<Listener> shared_listener) {
  Listener& listener = *shared_listener;
  for (;;) {
    auto [ec, socket] = co_await listener.acceptor.async_accept(
        connection_executor(), asio::experimental::as_tuple(asio::use_awaitable));
    if (ec) {
      if (!listener.acceptor.is_open()) co_return;
      continue;  // e.g. too many open files: keep serving the connections we have
    }
    asio::error_code ignored;
    socket.set_option(asio::ip::tcp::no_delay(true), ignored);
    auto executor = socket.get_executor();
    if (listener.tls) {
      asio::co_spawn(executor,
                     serve_tls_connection(TlsStream(std::move(socket), *listener.tls), options_, handler_, connections_),
                     asio::detached);
    } else {
      asio::co_spawn(executor, serve_plain_connection(std::move(socket), options_, handler_, connections_),
                     asio::detached);
    }
  }
}

}  // namespace kapi::http

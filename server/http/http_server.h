#pragma once
// Listeners and their accept loops. Every accepted connection gets a coroutine of its own, on the next reactor of
// a ReactorPool (see reactor_pool.h), or without a pool on a strand of its own on the one io_context.
#include "server/http/connection.h"
#include "server/http/reactor_pool.h"

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>

#include <filesystem>
#include <memory>
#include <vector>

namespace kapi::http {

struct TlsFiles {
  std::filesystem::path cert_file;
  std::filesystem::path key_file;
  std::filesystem::path client_ca_file;  // client certificates are requested and verified against it
  // Authorities whose client certificates are requested too but not verified here: the authenticator that
  // trusts one verifies its certificates itself (the front proxy's, --requestheader-client-ca-file).
  std::vector<std::filesystem::path> other_client_ca_files;
  bool http2 = false;  // ALPN offers "h2" first (Go's server preference), then "http/1.1"
};

// TLS 1.2+ with ALPN "http/1.1", or "h2" and "http/1.1". A client certificate is requested, naming every client CA as acceptable; one
// that fails verification does not fail the handshake (the authentication filter turns it into 401, as
// kube-apiserver does).
std::shared_ptr<asio::ssl::context> make_server_tls_context(const TlsFiles& files);

class HttpServer {
 public:
  // The listeners live on `io`; connections on `reactors` when given (it outlives the server), else on `io`.
  HttpServer(asio::io_context& io, ConnectionOptions options, RequestHandler handler,
             ReactorPool* reactors = nullptr);
  ~HttpServer();

  // Binds now (port 0 picks a free port) and returns the bound endpoint; accepting starts with start().
  asio::ip::tcp::endpoint listen(const asio::ip::tcp::endpoint& endpoint,
                                 std::shared_ptr<asio::ssl::context> tls);
  void start();
  void stop_accepting();
  ConnectionRegistry& connections() { return connections_; }

 private:
  struct Listener {
    asio::ip::tcp::acceptor acceptor;
    std::shared_ptr<asio::ssl::context> tls;
  };
  // The loop shares its listener: a completion that arrives after the server is gone (the accept aborted by
  // stop_accepting) finds the acceptor closed and ends without touching the server.
  asio::awaitable<void> accept_loop(std::shared_ptr<Listener> listener);

  // Where the next accepted connection runs.
  asio::any_io_executor connection_executor();

  asio::io_context& io_;
  ReactorPool* reactors_;
  ConnectionOptions options_;
  RequestHandler handler_;
  ConnectionRegistry connections_;
  std::vector<std::shared_ptr<Listener>> listeners_;
};

}  // namespace kapi::http

#pragma once
// A minimal HTTP/1.1 client for load generation: one keep-alive connection, one request at a time, the response
// parsed by llhttp. Bodies can be dropped (only counted), kept, or streamed to a callback chunk by chunk (watch).
// Plain HTTP (kapi's --insecure-port, nginx), or HTTPS with a client certificate (kapi's secure port).
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kapi::bench {

struct HttpRequest {
  std::string_view method = "GET";
  std::string_view target = "/";
  std::string_view body;
  std::string_view content_type = "application/json";
  std::string_view accept = "application/json";
};

struct HttpResponse {
  int status = 0;
  int retry_after_seconds = 0;     // a Retry-After header's seconds (429, 503), 0 without one
  std::size_t bytes_received = 0;  // on the wire, headers included
  std::string body;                // only when asked to keep it
};

enum class BodyHandling { discard, keep };

// Called with each piece of the (de-chunked) body as it arrives; the first call with an empty piece signals that
// the response headers have arrived.
using BodySink = std::function<void(std::string_view)>;

// Where to connect and how. Hosts are not resolved: benchmarks run on loopback addresses.
struct ServerAddress {
  asio::ip::tcp::endpoint endpoint;
  std::shared_ptr<asio::ssl::context> tls;  // null: plain HTTP
  bool http2 = false;                       // HTTP/2 (over TLS only, as kube serves it)
  std::string authorization;                // the Authorization header of every request ("Bearer …"), or empty
  std::string host_header() const;
};

// "http://127.0.0.1:8080", or "https://…" with `tls` (required then). Throws std::invalid_argument.
ServerAddress parse_server_url(std::string_view url, std::shared_ptr<asio::ssl::context> tls = nullptr);

// A connection to the server, over HTTP/1.1 (HttpConnection, one request at a time) or HTTP/2 (Http2Session,
// any number at once).
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends `request` and reads its whole response, connecting first if needed. Throws std::system_error on a
  // network error (the connection is then closed and reconnects on the next call).
  virtual asio::awaitable<HttpResponse> send(const HttpRequest& request, BodyHandling body = BodyHandling::discard) = 0;
  virtual asio::awaitable<HttpResponse> send_streaming(const HttpRequest& request, BodySink sink) = 0;
  virtual void close() noexcept = 0;
  virtual std::size_t bytes_sent() const noexcept = 0;
};

// HTTP/2 when `server.http2`, else HTTP/1.1.
std::unique_ptr<HttpTransport> connect_to(asio::any_io_executor executor, const ServerAddress& server);

class HttpConnection final : public HttpTransport {
 public:
  HttpConnection(asio::any_io_executor executor, ServerAddress server);
  ~HttpConnection() override;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  asio::awaitable<HttpResponse> send(const HttpRequest& request, BodyHandling body = BodyHandling::discard) override;
  asio::awaitable<HttpResponse> send_streaming(const HttpRequest& request, BodySink sink) override;

  void close() noexcept override;
  std::size_t bytes_sent() const noexcept override { return bytes_sent_; }

 private:
  struct Parser;
  asio::awaitable<HttpResponse> exchange(const HttpRequest& request, BodyHandling body, BodySink sink);
  asio::awaitable<void> connect();
  asio::awaitable<std::size_t> read_some(char* buffer, std::size_t size);
  asio::awaitable<void> write_all(const std::string& data);

  asio::any_io_executor executor_;
  asio::ip::tcp::socket socket_;                                            // plain HTTP
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket>> tls_stream_;  // HTTPS: a new one per connection
  ServerAddress server_;
  std::string host_header_;
  std::string request_buffer_;
  std::unique_ptr<char[]> read_buffer_;
  std::size_t bytes_sent_ = 0;
};

}  // namespace kapi::bench

#pragma once
// A minimal HTTP/1.1 client for load generation: one keep-alive connection, one request at a time, the response
// parsed by llhttp. Bodies can be dropped (only counted), kept, or streamed to a callback chunk by chunk (watch).
// Plain HTTP only: kapi's --insecure-port, nginx and /readyz are all the benchmarks need.
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>

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
  std::size_t bytes_received = 0;  // on the wire, headers included
  std::string body;                // only when asked to keep it
};

enum class BodyHandling { discard, keep };

// Called with each piece of the (de-chunked) body as it arrives; the first call with an empty piece signals that
// the response headers have arrived.
using BodySink = std::function<void(std::string_view)>;

class HttpConnection {
 public:
  HttpConnection(asio::any_io_executor executor, asio::ip::tcp::endpoint server, std::string host_header);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `request` and reads its whole response, connecting first if needed. Throws std::system_error on a
  // network error (the connection is then closed and reconnects on the next call).
  asio::awaitable<HttpResponse> send(const HttpRequest& request, BodyHandling body = BodyHandling::discard);
  asio::awaitable<HttpResponse> send_streaming(const HttpRequest& request, BodySink sink);

  void close() noexcept;
  std::size_t bytes_sent() const noexcept { return bytes_sent_; }

 private:
  struct Parser;
  asio::awaitable<HttpResponse> exchange(const HttpRequest& request, BodyHandling body, BodySink sink);

  asio::ip::tcp::socket socket_;
  asio::ip::tcp::endpoint server_;
  std::string host_header_;
  std::string request_buffer_;
  std::unique_ptr<char[]> read_buffer_;
  std::size_t bytes_sent_ = 0;
};

// "http://127.0.0.1:8080" → endpoint; throws std::invalid_argument for anything else (hosts are not resolved:
// benchmarks run on loopback addresses).
asio::ip::tcp::endpoint parse_http_url(std::string_view url);

}  // namespace kapi::bench

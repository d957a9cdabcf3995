#pragma once
// A small blocking HTTP/1.x client for integration tests. It sends bytes exactly as the test gives them (so a test
// can pipeline, send chunked or malformed requests, or send slowly) and reads responses robustly: the status line
// and headers, then the body by Content-Length, chunked coding (also chunk by chunk, for streams) or until the
// server closes. Every read has a deadline, so a test never hangs on a server that does not answer.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::test_support {

// A read that did not complete before its deadline.
class ReadTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server closed (or reset) the connection before a complete response arrived.
class ConnectionClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TlsClientOptions {
  std::filesystem::path ca_file;  // the server must present a certificate this CA signed; empty: no verification
  std::filesystem::path cert_file;  // optional client certificate (PEM) and its key
  std::filesystem::path key_file;
  std::string server_name = "localhost";  // SNI and the name checked against the serving certificate
  std::string alpn = "http/1.1";          // the one protocol offered; HttpConnection speaks only HTTP/1.x itself
};

struct HttpResponse {
  std::string version;  // "HTTP/1.1"
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The first header of that name (case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
  std::vector<std::string> header_values(std::string_view name) const;
  bool has_header(std::string_view name) const { return header(name).has_value(); }
  bool chunked() const;
  // True when the server announced it will close the connection after this response.
  bool closes_connection() const;
};

class HttpConnection {
 public:
  using Duration = std::chrono::milliseconds;
  static constexpr Duration kDefaultTimeout{10'000};

  // Connects to 127.0.0.1:port; with `tls`, also completes the TLS handshake. Throws std::system_error when the
  // connection is refused, std::runtime_error when the handshake fails.
  explicit HttpConnection(int port, std::optional<TlsClientOptions> tls = std::nullopt,
                          Duration timeout = kDefaultTimeout);
  ~HttpConnection();
  HttpConnection(HttpConnection&&) noexcept;
  HttpConnection& operator=(HttpConnection&&) noexcept;

  // Sends the bytes exactly as given. Throws ConnectionClosed when the server has gone away.
  void send(std::string_view bytes);
  // Sends `bytes` in pieces, stopping early when the server has started to answer or closed the connection (as a
  // client uploading a big body must, so it does not miss an early 413). Returns how many bytes went out.
  std::size_t send_until_answered(std::string_view bytes, std::size_t piece_size = 64 * 1024);

  // Reads one whole response. `request_method` tells whether a body follows (HEAD: never). A 1xx interim
  // response is returned on its own.
  HttpResponse read_response(std::string_view request_method = "GET", Duration timeout = kDefaultTimeout);
  // Reads the status line and headers only; the body is read with read_body() or read_chunk().
  HttpResponse read_head(Duration timeout = kDefaultTimeout);
  // Reads the body that belongs to `head` into head.body.
  void read_body(HttpResponse& head, std::string_view request_method = "GET", Duration timeout = kDefaultTimeout);
  // The next chunk of a chunked body; std::nullopt after the terminating zero-size chunk (and its trailers).
  std::optional<std::string> read_chunk(Duration timeout = kDefaultTimeout);

  // Everything the server sends until it closes the connection.
  std::string read_until_close(Duration timeout = kDefaultTimeout);
  // Waits up to `timeout` for the server to close (or reset) the connection; bytes that arrive meanwhile are kept
  // for later reads. True when it closed.
  bool wait_for_close(Duration timeout);
  // True when the server has closed the connection already (looks without waiting).
  bool closed_by_peer() { return wait_for_close(Duration{0}); }

  // Convenience: sends one request with Host and Content-Length (when there is a body) and reads the answer.
  HttpResponse request(std::string_view method, std::string_view target,
                       const std::vector<std::pair<std::string, std::string>>& headers = {},
                       std::string_view body = {}, Duration timeout = kDefaultTimeout);

  // Raw bytes, for tests that speak another protocol over the connection (HTTP/2 frames after ALPN's "h2").
  std::string read_bytes(std::size_t count, Duration timeout = kDefaultTimeout) {
    return read_exactly(count, std::chrono::steady_clock::now() + timeout);
  }
  std::string negotiated_protocol() const;  // ALPN's choice; empty without TLS or ALPN

  int native_handle() const;

 private:
  struct Impl;
  // Reads more bytes into the buffer; false at end of stream. Throws ReadTimeout at the deadline.
  bool fill(std::chrono::steady_clock::time_point deadline);
  std::string read_line(std::chrono::steady_clock::time_point deadline);
  std::string read_exactly(std::size_t count, std::chrono::steady_clock::time_point deadline);

  std::unique_ptr<Impl> impl_;
  std::string buffer_;  // received, not yet consumed
  bool peer_closed_ = false;
  Duration io_timeout_;
};

// One request on a fresh connection, closed afterwards.
HttpResponse https_request(int port, const TlsClientOptions& tls, std::string_view method, std::string_view target,
                           const std::vector<std::pair<std::string, std::string>>& headers = {},
                           std::string_view body = {});

// "Content-Length: n" framing helper and a chunked-coding encoder for tests that build raw requests.
std::string chunked(const std::vector<std::string>& pieces);

}  // namespace kapi::test_support

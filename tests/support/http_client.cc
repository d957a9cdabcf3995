#include "tests/support/http_client.h"

#include "tests/support/loopback.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <system_error>

namespace kapi::test_support {
namespace {

using Clock = std::chrono::steady_clock;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return std::string(text);
}

std::string openssl_errors() {
  std::string out;
  for (unsigned long code; (code = ERR_get_error()) != 0;) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out.empty() ? "unknown TLS error" : out;
}

int milliseconds_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

// Waits until the socket is ready for `events`; false at the deadline.
bool wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd entry{fd, events, 0};
    int n = ::poll(&entry, 1, milliseconds_until(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw std::system_error(errno, std::system_category(), "poll");
  }
}

// OpenSSL writes to the socket with write(2): a peer that went away would otherwise kill the test with SIGPIPE.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [field, value] : headers)
    if (iequals(field, name)) return value;
  return std::nullopt;
}

std::vector<std::string> HttpResponse::header_values(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [field, value] : headers)
    if (iequals(field, name)) out.push_back(value);
  return out;
}

bool HttpResponse::chunked() const {
  auto coding = header("Transfer-Encoding");
  return coding && coding->find("chunked") != std::string::npos;
}

bool HttpResponse::closes_connection() const {
  auto connection = header("Connection");
  if (connection && iequals(*connection, "close")) return true;
  return version == "HTTP/1.0" && !(connection && iequals(*connection, "keep-alive"));
}

struct HttpConnection::Impl {
  int fd = -1;
  SSL_CTX* context = nullptr;
  SSL* ssl = nullptr;

  ~Impl() {
    if (ssl) SSL_free(ssl);
    if (context) SSL_CTX_free(context);
    if (fd >= 0) ::close(fd);
  }

  void connect(int port, Clock::time_point deadline) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) throw std::system_error(errno, std::system_category(), "socket");
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address = loopback(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      if (errno != EINPROGRESS) throw std::system_error(errno, std::system_category(), "connect");
      if (!wait_ready(fd, POLLOUT, deadline)) throw ReadTimeout("connect timed out");
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) throw std::system_error(error, std::system_category(), "connect");
    }
  }

  void handshake(const TlsClientOptions& options, Clock::time_point deadline) {
    context = SSL_CTX_new(TLS_client_method());
    if (!context) throw std::runtime_error("SSL_CTX_new: " + openssl_errors());
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    if (!options.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(context, options.ca_file.c_str(), nullptr) != 1)
        throw std::runtime_error("cannot load CA " + options.ca_file.string() + ": " + openssl_errors());
      SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    }
    if (!options.cert_file.empty()) {
      if (SSL_CTX_use_certificate_chain_file(context, options.cert_file.c_str()) != 1 ||
          SSL_CTX_use_PrivateKey_file(context, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
        throw std::runtime_error("cannot load client certificate " + options.cert_file.string() + ": " +
                                 openssl_errors());
    }
    std::string protocols(1, static_cast<char>(options.alpn.size()));
    protocols += options.alpn;
    SSL_CTX_set_alpn_protos(context, reinterpret_cast<const unsigned char*>(protocols.data()),
                            static_cast<unsigned>(protocols.size()));
    ssl = SSL_new(context);
    SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_tlsext_host_name(ssl, options.server_name.c_str());
    if (!options.ca_file.empty()) SSL_set1_host(ssl, options.server_name.c_str());
    SSL_set_fd(ssl, fd);
    for (;;) {
      ERR_clear_error();
      int result = SSL_connect(ssl);
      if (result == 1) return;
      int error = SSL_get_error(ssl, result);
      short events = error == SSL_ERROR_WANT_READ ? POLLIN : error == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
      if (events == 0) throw std::runtime_error("TLS handshake failed: " + openssl_errors());
      if (!wait_ready(fd, events, deadline)) throw ReadTimeout("TLS handshake timed out");
    }
  }

  // Bytes read (> 0), 0 at the end of the stream (a close, a reset, or a TLS connection cut short), -1 when
  // nothing is there yet.
  long read_some(char* data, std::size_t size) {
    if (!ssl) {
      ssize_t n = ::recv(fd, data, size, 0);
      if (n >= 0) return n;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return -1;
      return 0;
    }
    ERR_clear_error();
    int n = SSL_read(ssl, data, static_cast<int>(size));
    if (n > 0) return n;
    switch (SSL_get_error(ssl, n)) {
      case SSL_ERROR_WANT_READ:
      case SSL_ERROR_WANT_WRITE:
        return -1;
      default:
        ERR_clear_error();
        return 0;
    }
  }

  bool has_buffered_input() const { return ssl && SSL_pending(ssl) > 0; }

  // Bytes written, or -1 when the socket cannot take more now. Throws ConnectionClosed.
  long write_some(const char* data, std::size_t size) {
    if (!ssl) {
      ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
      if (n >= 0) return n;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return -1;
      throw ConnectionClosed(std::string("send: ") + std::strerror(errno));
    }
    ERR_clear_error();
    int n = SSL_write(ssl, data, static_cast<int>(std::min<std::size_t>(size, 1 << 20)));
    if (n > 0) return n;
    int error = SSL_get_error(ssl, n);
    if (error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ) return -1;
    throw ConnectionClosed("TLS write failed: " + openssl_errors());
  }
};

HttpConnection::HttpConnection(int port, std::optional<TlsClientOptions> tls, Duration timeout)
    : impl_(std::make_unique<Impl>()), io_timeout_(timeout) {
  ignore_sigpipe();
  auto deadline = Clock::now() + timeout;
  impl_->connect(port, deadline);
  if (tls) impl_->handshake(*tls, deadline);
}

HttpConnection::~HttpConnection() = default;
HttpConnection::HttpConnection(HttpConnection&&) noexcept = default;
HttpConnection& HttpConnection::operator=(HttpConnection&&) noexcept = default;

int HttpConnection::native_handle() const { return impl_->fd; }

std::string HttpConnection::negotiated_protocol() const {
  if (!impl_->ssl) return {};
  const unsigned char* protocol = nullptr;
  unsigned length = 0;
  SSL_get0_alpn_selected(impl_->ssl, &protocol, &length);
  return std::string(reinterpret_cast<const char*>(protocol), length);
}

void HttpConnection::send(std::string_view bytes) {
  auto deadline = Clock::now() + io_timeout_;
  while (!bytes.empty()) {
    long n = impl_->write_some(bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (!wait_ready(impl_->fd, POLLOUT, deadline)) throw ReadTimeout("send timed out: the server reads no more");
  }
}

std::size_t HttpConnection::send_until_answered(std::string_view bytes, std::size_t piece_size) {
  auto server_spoke = [this] {
    if (!buffer_.empty() || peer_closed_) return true;
    try {
      fill(Clock::now());  // bytes or the end of the stream: either way the server has had its say
      return true;
    } catch (const ReadTimeout&) {
      return false;
    }
  };
  std::size_t sent = 0;
  while (sent < bytes.size() && !server_spoke()) {
    try {
      auto piece = bytes.substr(sent, piece_size);
      send(piece);
      sent += piece.size();
    } catch (const ConnectionClosed&) {
      break;
    } catch (const ReadTimeout&) {
      break;  // the server stopped reading: its answer is on its way
    }
  }
  return sent;
}

bool HttpConnection::fill(Clock::time_point deadline) {
  if (peer_closed_) return false;
  char data[16 * 1024];
  for (;;) {
    long n = impl_->read_some(data, sizeof data);
    if (n > 0) {
      buffer_.append(data, static_cast<std::size_t>(n));
      return true;
    }
    if (n == 0) {
      peer_closed_ = true;
      return false;
    }
    if (impl_->has_buffered_input()) continue;
    if (!wait_ready(impl_->fd, POLLIN, deadline)) throw ReadTimeout("timed out waiting for the server");
  }
}

std::string HttpConnection::read_line(Clock::time_point deadline) {
  for (;;) {
    if (auto end = buffer_.find("\r\n"); end != std::string::npos) {
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      return line;
    }
    if (!fill(deadline)) throw ConnectionClosed("connection closed in the middle of a line: \"" + buffer_ + "\"");
  }
}

std::string HttpConnection::read_exactly(std::size_t count, Clock::time_point deadline) {
  while (buffer_.size() < count) {
    if (!fill(deadline))
      throw ConnectionClosed("connection closed after " + std::to_string(buffer_.size()) + " of " +
                             std::to_string(count) + " bytes");
  }
  std::string out = buffer_.substr(0, count);
  buffer_.erase(0, count);
  return out;
}

HttpResponse HttpConnection::read_head(Duration timeout) {
  auto deadline = Clock::now() + timeout;
  HttpResponse response;
  std::string status_line = read_line(deadline);
  auto first_space = status_line.find(' ');
  if (first_space == std::string::npos || !status_line.starts_with("HTTP/"))
    throw std::runtime_error("not an HTTP status line: \"" + status_line + "\"");
  response.version = status_line.substr(0, first_space);
  std::string_view rest = std::string_view(status_line).substr(first_space + 1);
  auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + std::min<std::size_t>(rest.size(), 3), response.status);
  if (ec != std::errc()) throw std::runtime_error("bad status code in \"" + status_line + "\"");
  response.reason = rest.size() > 4 ? std::string(rest.substr(4)) : "";
  for (;;) {
    std::string line = read_line(deadline);
    if (line.empty()) break;
    auto colon = line.find(':');
    if (colon == std::string::npos) throw std::runtime_error("malformed header line: \"" + line + "\"");
    response.headers.emplace_back(line.substr(0, colon), trim(std::string_view(line).substr(colon + 1)));
  }
  return response;
}

void HttpConnection::read_body(HttpResponse& head, std::string_view request_method, Duration timeout) {
  auto deadline = Clock::now() + timeout;
  if (request_method == "HEAD" || (head.status >= 100 && head.status < 200) || head.status == 204 ||
      head.status == 304)
    return;
  if (head.chunked()) {
    while (auto chunk = read_chunk(std::chrono::duration_cast<Duration>(deadline - Clock::now())))
      head.body += *chunk;
    return;
  }
  if (auto length = head.header("Content-Length")) {
    std::size_t count = 0;
    auto [ptr, ec] = std::from_chars(length->data(), length->data() + length->size(), count);
    if (ec != std::errc()) throw std::runtime_error("bad Content-Length: " + *length);
    head.body = read_exactly(count, deadline);
    return;
  }
  head.body = read_until_close(std::chrono::duration_cast<Duration>(deadline - Clock::now()));
}

std::optional<std::string> HttpConnection::read_chunk(Duration timeout) {
  auto deadline = Clock::now() + timeout;
  std::string size_line = read_line(deadline);
  std::string_view digits = std::string_view(size_line).substr(0, size_line.find(';'));
  std::size_t size = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
  if (ec != std::errc() || digits.empty()) throw std::runtime_error("bad chunk size line: \"" + size_line + "\"");
  if (size == 0) {
    while (!read_line(deadline).empty()) {
    }  // trailers
    return std::nullopt;
  }
  std::string data = read_exactly(size, deadline);
  if (read_exactly(2, deadline) != "\r\n") throw std::runtime_error("chunk not followed by CRLF");
  return data;
}

HttpResponse HttpConnection::read_response(std::string_view request_method, Duration timeout) {
  auto deadline = Clock::now() + timeout;
  HttpResponse response = read_head(timeout);
  read_body(response, request_method, std::chrono::duration_cast<Duration>(deadline - Clock::now()));
  return response;
}

std::string HttpConnection::read_until_close(Duration timeout) {
  auto deadline = Clock::now() + timeout;
  while (fill(deadline)) {
  }
  return std::exchange(buffer_, {});
}

bool HttpConnection::wait_for_close(Duration timeout) {
  auto deadline = Clock::now() + timeout;
  try {
    while (fill(deadline)) {
    }
    return true;
  } catch (const ReadTimeout&) {
    return false;
  }
}

HttpResponse HttpConnection::request(std::string_view method, std::string_view target,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     std::string_view body, Duration timeout) {
  std::string raw = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\n";
  bool has_host = false;
  for (const auto& [name, value] : headers) {
    has_host = has_host || iequals(name, "Host");
    raw += name + ": " + value + "\r\n";
  }
  if (!has_host) raw += "Host: 127.0.0.1\r\n";
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
    raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  raw += "\r\n";
  raw += body;
  send(raw);
  return read_response(method, timeout);
}

HttpResponse https_request(int port, const TlsClientOptions& tls, std::string_view method, std::string_view target,
                           const std::vector<std::pair<std::string, std::string>>& headers, std::string_view body) {
  HttpConnection connection(port, tls);
  return connection.request(method, target, headers, body);
}

std::string chunked(const std::vector<std::string>& pieces) {
  std::string out;
  char size[32];
  for (const auto& piece : pieces) {
    if (piece.empty()) continue;  // an empty chunk would end the body
    auto [end, ec] = std::to_chars(size, size + sizeof size, piece.size(), 16);
    out.append(size, end).append("\r\n").append(piece).append("\r\n");
  }
  out += "0\r\n\r\n";
  return out;
}

}  // namespace kapi::test_support

#include "server/proxy/backend_client.h"

#include "server/proxy/backend_http2.h"

#include <asio/connect.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/error.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <llhttp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <tuple>

namespace kapi::proxy {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto as_tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadBufferBytes = 16 * 1024;

// A std::system_error whose what() is exactly the message given: it is shown to clients after "error trying to
// reach service: ", where "<message>: <code text>" would say the same thing twice.
class BackendError : public std::system_error {
 public:
  BackendError(std::error_code code, std::string message)
      : std::system_error(code), message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Go prints syscall errors in lower case ("connection refused"); so do we, for the same messages.
std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

struct BackendConnection::State {
  State(const asio::any_io_executor& executor, asio::ssl::context& tls) : stream(executor, tls), timer(executor) {}

  void close_socket() {
    asio::error_code ignored;
    auto& socket = stream.lowest_layer();
    if (!socket.is_open()) return;
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }

  // Plain HTTP (a pod or service proxied with scheme http) uses the socket under the TLS stream.
  asio::awaitable<std::tuple<asio::error_code, std::size_t>> read_some(asio::mutable_buffer buffer) {
    if (plain) co_return co_await stream.next_layer().async_read_some(buffer, as_tuple_awaitable);
    co_return co_await stream.async_read_some(buffer, as_tuple_awaitable);
  }
  asio::awaitable<std::tuple<asio::error_code, std::size_t>> write_all(asio::const_buffer buffer) {
    if (plain) co_return co_await asio::async_write(stream.next_layer(), buffer, as_tuple_awaitable);
    co_return co_await asio::async_write(stream, buffer, as_tuple_awaitable);
  }

  asio::ssl::stream<asio::ip::tcp::socket> stream;
  bool plain = false;
  asio::steady_timer timer;
  std::string phase_timeout;    // what running out of time in the current phase is called
  std::string expired;          // set when the watchdog closed the socket: why
};

struct BackendConnection::Parser {
  llhttp_t parser{};
  llhttp_settings_t settings{};
  ResponseHead head;
  std::string field;
  std::string value;
  bool in_value = false;
  std::size_t header_bytes = 0;
  std::size_t max_header_bytes = 0;
  bool head_done = false;
  bool message_done = false;
  bool head_request = false;
  bool keep_alive = false;  // at the message's end: whether the backend lets the connection carry another one
  std::string body;  // decoded body bytes not yet handed out
  std::string error;
  std::string after_message;  // what followed the response (a 101's upgraded protocol)

  static Parser& of(llhttp_t* p) { return *static_cast<Parser*>(p->data); }

  static int count(llhttp_t* p, std::size_t n) {
    auto& s = of(p);
    s.header_bytes += n;
    if (s.header_bytes > s.max_header_bytes) {
      s.error = "net/http: server response headers exceeded " + std::to_string(s.max_header_bytes) +
                " bytes; aborted";
      return -1;
    }
    return 0;
  }
  static void flush_header(Parser& s) {
    if (!s.field.empty() || s.in_value) s.head.headers.add(std::move(s.field), std::move(s.value));
    s.field.clear();
    s.value.clear();
    s.in_value = false;
  }
  static int on_status(llhttp_t* p, const char*, std::size_t n) { return count(p, n); }
  static int on_header_field(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = of(p);
    if (s.in_value) flush_header(s);
    s.field.append(at, n);
    return count(p, n + 4);
  }
  static int on_header_value(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = of(p);
    s.in_value = true;
    s.value.append(at, n);
    return count(p, n);
  }
  static int on_headers_complete(llhttp_t* p) {
    auto& s = of(p);
    flush_header(s);
    s.head.status = p->status_code;
    if (p->status_code >= 100 && p->status_code < 200 && p->status_code != 101) return 0;  // interim: skipped
    s.head_done = true;
    s.head.chunked = (p->flags & F_CHUNKED) != 0;
    if ((p->flags & F_CONTENT_LENGTH) != 0) s.head.content_length = p->content_length;
    return s.head_request ? 1 : 0;  // 1: no body follows, whatever the headers say
  }
  static int on_body(llhttp_t* p, const char* at, std::size_t n) {
    of(p).body.append(at, n);
    return 0;
  }
  static int on_message_complete(llhttp_t* p) {
    auto& s = of(p);
    if (!s.head_done) {
      // The end of a 1xx interim response: the real one follows.
      s.head = ResponseHead{};
      s.header_bytes = 0;
      return 0;
    }
    s.message_done = true;
    s.keep_alive = llhttp_should_keep_alive(p) != 0;
    return HPE_PAUSED;  // one response per parser: whatever follows is not this response's
  }

  explicit Parser(std::size_t max_headers) : max_header_bytes(max_headers) {
    llhttp_settings_init(&settings);
    settings.on_status = &on_status;
    settings.on_header_field = &on_header_field;
    settings.on_header_value = &on_header_value;
    settings.on_headers_complete = &on_headers_complete;
    settings.on_body = &on_body;
    settings.on_message_complete = &on_message_complete;
    llhttp_init(&parser, HTTP_RESPONSE, &settings);
    parser.data = this;
  }

  // Empty when fine, else why the response is malformed.
  std::string feed(const char* data, std::size_t n) {
    if (message_done) return {};
    llhttp_errno_t err = llhttp_execute(&parser, data, n);
    if (err == HPE_PAUSED || err == HPE_PAUSED_UPGRADE) {
      const char* stop = llhttp_get_error_pos(&parser);
      if (stop != nullptr && stop >= data && stop <= data + n)
        after_message.assign(stop, static_cast<std::size_t>(data + n - stop));
    }
    return check(err);
  }
  std::string finish() {
    if (message_done) return {};
    llhttp_errno_t err = llhttp_finish(&parser);
    return check(err);
  }
  std::string check(llhttp_errno_t err) {
    if (err == HPE_OK || err == HPE_PAUSED) return {};
    if (err == HPE_PAUSED_UPGRADE) {  // a 101: nothing more is HTTP
      message_done = head_done = true;
      return {};
    }
    if (!error.empty()) return error;
    const char* reason = llhttp_get_error_reason(&parser);
    return std::string("malformed HTTP response: ") + (reason ? reason : llhttp_errno_name(err));
  }
};

BackendConnection::BackendConnection(asio::any_io_executor executor, Backend backend, BackendClientLimits limits)
    : backend_(std::move(backend)), limits_(limits) {
  if (!backend_.tls) throw std::invalid_argument("backend " + backend_.server_name + " has no TLS context");
  state_ = std::make_shared<State>(executor, *backend_.tls);
  state_->plain = !backend_.use_tls;
  parser_ = std::make_unique<Parser>(limits_.max_header_bytes);
}

BackendConnection::~BackendConnection() {
  state_->timer.cancel();
  state_->close_socket();
}

void BackendConnection::close() { state_->close_socket(); }

bool BackendConnection::timed_out() const { return !state_->expired.empty(); }

bool BackendConnection::reusable() const {
  return !http2_ && parser_->message_done && parser_->keep_alive && !upgrade_sent_ && parser_->after_message.empty() &&
         parser_->body.empty() && state_->expired.empty() && state_->stream.lowest_layer().is_open();
}

void BackendConnection::reset_for_next_request() {
  set_deadline(Clock::time_point::max());
  parser_ = std::make_unique<Parser>(limits_.max_header_bytes);
  response_started_ = false;
}

bool BackendConnection::idle_and_open() {
  auto& socket = state_->stream.lowest_layer();
  if (!state_->expired.empty() || !socket.is_open()) return false;
  if (!state_->plain && SSL_pending(state_->stream.native_handle()) > 0) return false;
  char byte = 0;
  const ssize_t peeked = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::string BackendConnection::take_upgraded_bytes() { return std::move(parser_->after_message); }

asio::awaitable<std::size_t> BackendConnection::read_some(std::span<char> buffer) {
  auto reading = state_->read_some(asio::buffer(buffer.data(), buffer.size()));
  auto [error, n] = co_await std::move(reading);
  co_return error ? 0 : n;
}

asio::awaitable<void> BackendConnection::write(std::string_view data) {
  auto writing = state_->write_all(asio::buffer(data.data(), data.size()));
  auto [error, written] = co_await std::move(writing);
  (void)written;
  if (error) fail(error, "write tcp " + join_host_port(backend_.host, backend_.port));
}

// Arms the watchdog: at the deadline the socket is closed and the phase's timeout recorded, which turns whatever
// operation is pending into a timeout error. The handler holds the state weakly: a closed connection needs none.
void BackendConnection::set_deadline(Clock::time_point deadline) {
  deadline_ = deadline;
  state_->phase_timeout = "context deadline exceeded";
  if (deadline == Clock::time_point::max()) {
    state_->timer.cancel();
    return;
  }
  state_->timer.expires_at(deadline);
  std::weak_ptr<State> weak = state_;
  state_->timer.async_wait([weak](const asio::error_code& error) {
    if (error) return;
    auto state = weak.lock();
    // A wait that completed just before the deadline moved must not close the connection.
    if (!state || state->timer.expiry() > Clock::now()) return;
    state->expired = state->phase_timeout;
    state->close_socket();
  });
}

void BackendConnection::fail(const std::error_code& error, const std::string& what) {
  if (!state_->expired.empty()) throw BackendError(asio::error::timed_out, state_->expired);
  throw BackendError(error, what + ": " + lowercase_first(error.message()));
}

asio::awaitable<void> BackendConnection::connect(bool offer_http2) {
  const std::string address = join_host_port(backend_.host, backend_.port);
  asio::error_code error;
  auto ip = asio::ip::make_address(backend_.host, error);
  const auto overall = deadline_;
  // A deadline already behind us fires before the socket exists, when there is nothing to close yet.
  if (!state_->expired.empty() || Clock::now() >= overall)
    throw BackendError(asio::error::timed_out, "context deadline exceeded");

  // Each phase ends at its own timeout or the overall deadline, whichever comes first, and says which it was.
  auto phase = [&](std::chrono::milliseconds limit, std::string name) {
    auto end = Clock::now() + limit;
    if (end < overall) {
      set_deadline(end);
      state_->phase_timeout = std::move(name);
    } else {
      set_deadline(overall);
    }
  };

  phase(limits_.dial_timeout, "dial tcp " + address + ": i/o timeout");
  if (error) {
    // A kubelet may be known by its Hostname or DNS address only.
    asio::ip::tcp::resolver resolver(state_->stream.get_executor());
    auto [resolve_error, results] =
        co_await resolver.async_resolve(backend_.host, std::to_string(backend_.port), as_tuple_awaitable);
    if (resolve_error || results.empty())
      fail(resolve_error ? resolve_error : asio::error::host_not_found, "dial tcp: lookup " + backend_.host);
    ip = results.begin()->endpoint().address();
  }
  auto& socket = state_->stream.lowest_layer();
  auto [connect_error] = co_await socket.async_connect(asio::ip::tcp::endpoint(ip, backend_.port), as_tuple_awaitable);
  if (connect_error) fail(connect_error, "dial tcp " + address + ": connect");
  socket.set_option(asio::ip::tcp::no_delay(true), error);
  if (state_->plain) {
    set_deadline(overall);
    co_return;
  }

  phase(limits_.handshake_timeout, "net/http: TLS handshake timeout");
  SSL* ssl = state_->stream.native_handle();
  asio::error_code not_ip;
  asio::ip::make_address(backend_.server_name, not_ip);
  if (!backend_.server_name.empty() && !not_ip) {
    // An IP address is checked against the certificate's IP SANs and, as Go does, sent without SNI.
    if (backend_.verify_server_name) X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), backend_.server_name.c_str());
  } else if (!backend_.server_name.empty()) {
    SSL_set_tlsext_host_name(ssl, backend_.server_name.c_str());
    if (backend_.verify_server_name) {
      // Checked during chain verification, against the subjectAltNames only: Go stopped falling back to the
      // common name, and so does the aggregator.
      SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
      SSL_set1_host(ssl, backend_.server_name.c_str());
    }
  }
  static constexpr unsigned char kHttp2ThenHttp11[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  if (offer_http2) SSL_set_alpn_protos(ssl, kHttp2ThenHttp11, sizeof kHttp2ThenHttp11);
  auto [handshake_error] = co_await state_->stream.async_handshake(asio::ssl::stream_base::client, as_tuple_awaitable);
  if (handshake_error) {
    if (state_->expired.empty() && (SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER) != 0) {
      long verify = SSL_get_verify_result(ssl);
      if (verify != X509_V_OK)
        throw BackendError(handshake_error, std::string("tls: failed to verify certificate for ") +
                                                backend_.server_name + ": " + X509_verify_cert_error_string(verify));
    }
    fail(handshake_error, "tls: handshake with " + address);
  }
  const unsigned char* protocol = nullptr;
  unsigned protocol_length = 0;
  SSL_get0_alpn_selected(ssl, &protocol, &protocol_length);
  if (std::string_view(reinterpret_cast<const char*>(protocol), protocol_length) == "h2")
    http2_ = std::make_unique<BackendHttp2>(limits_.max_header_bytes);
  set_deadline(overall);
}

asio::awaitable<void> BackendConnection::send_http2_output() {
  const std::string out = http2_->take_output();
  if (out.empty()) co_return;
  auto writing = state_->write_all(asio::buffer(out));
  auto [error, written] = co_await std::move(writing);
  (void)written;
  if (error) fail(error, "write tcp " + join_host_port(backend_.host, backend_.port));
}

asio::awaitable<void> BackendConnection::send(const BackendRequest& request) {
  if (http2_) {
    http2_->submit(request, join_host_port(backend_.host, backend_.port));
    auto sending = send_http2_output();
    co_await std::move(sending);
    co_return;
  }
  parser_->head_request = request.method == "HEAD";
  upgrade_sent_ = request.upgrade;
  std::string out;
  out.reserve(512 + request.body.size());
  out.append(request.method).append(" ").append(request.target.empty() ? "/" : request.target).append(" HTTP/1.1\r\n");
  if (!request.headers.has("Host")) out.append("Host: ").append(join_host_port(backend_.host, backend_.port)).append("\r\n");
  for (const auto& field : request.headers) {
    if (http::iequals(field.name, "Content-Length") || http::iequals(field.name, "Transfer-Encoding") ||
        http::iequals(field.name, "Connection"))
      continue;
    out.append(field.name).append(": ").append(field.value).append("\r\n");
  }
  // Go's transport sends a length for a body, and "Content-Length: 0" for the methods that expect one.
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH")
    out.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  out.append(request.upgrade      ? "Connection: Upgrade\r\n\r\n"
             : request.keep_alive ? "Connection: keep-alive\r\n\r\n"
                                  : "Connection: close\r\n\r\n");
  out.append(request.body);
  auto writing = state_->write_all(asio::buffer(out));
  auto [error, written] = co_await std::move(writing);
  (void)written;
  if (error) fail(error, "write tcp " + join_host_port(backend_.host, backend_.port));
}

asio::awaitable<bool> BackendConnection::read_more() {
  std::unique_ptr<char[]> buffer = std::make_unique_for_overwrite<char[]>(kReadBufferBytes);
  auto reading = state_->read_some(asio::buffer(buffer.get(), kReadBufferBytes));
  auto [error, n] = co_await std::move(reading);
  if (!error && n > 0) response_started_ = true;
  if (http2_) {
    if (error == asio::error::eof || error == asio::ssl::error::stream_truncated) {
      if (!state_->expired.empty()) fail(error, "");
      if (!http2_->ended()) throw BackendError(asio::error::eof, "unexpected EOF");
      co_return false;
    }
    if (error) fail(error, "read tcp " + join_host_port(backend_.host, backend_.port));
    auto problem = http2_->feed(std::span<const char>(buffer.get(), n));
    if (!problem.empty()) throw BackendError(std::make_error_code(std::errc::protocol_error), problem);
    auto sending = send_http2_output();  // acknowledgements and window updates
    co_await std::move(sending);
    co_return true;
  }
  if (error == asio::error::eof || error == asio::ssl::error::stream_truncated) {
    // The end of the stream (with or without TLS close_notify, which not every server sends): it ends a body
    // that runs until close; any other unfinished message is an error.
    if (!state_->expired.empty()) fail(error, "");
    auto problem = parser_->finish();
    if (!problem.empty()) throw BackendError(std::make_error_code(std::errc::protocol_error), problem);
    co_return false;
  }
  if (error) fail(error, "read tcp " + join_host_port(backend_.host, backend_.port));
  auto problem = parser_->feed(buffer.get(), n);
  if (!problem.empty()) throw BackendError(std::make_error_code(std::errc::protocol_error), problem);
  co_return true;
}

asio::awaitable<ResponseHead> BackendConnection::read_head() {
  if (http2_) {
    while (!http2_->head_done()) {
      bool more = co_await read_more();
      if (!more && !http2_->head_done())
        throw BackendError(asio::error::eof, "the backend closed the connection before sending a response (EOF)");
    }
    co_return http2_->head();
  }
  while (!parser_->head_done) {
    bool more = co_await read_more();
    if (!more && !parser_->head_done)
      throw BackendError(asio::error::eof, "the backend closed the connection before sending a response (EOF)");
  }
  co_return parser_->head;
}

asio::awaitable<std::optional<std::string>> BackendConnection::read_body() {
  while (http2_) {
    if (std::string piece = http2_->take_body(); !piece.empty()) co_return piece;
    if (http2_->ended()) co_return std::nullopt;
    bool more = co_await read_more();
    if (!more && !http2_->ended()) throw BackendError(asio::error::eof, "unexpected EOF in the backend's response body");
  }
  for (;;) {
    if (!parser_->body.empty()) {
      std::string piece;
      piece.swap(parser_->body);
      co_return piece;
    }
    if (parser_->message_done) co_return std::nullopt;
    bool more = co_await read_more();
    if (!more && !parser_->message_done && parser_->body.empty())
      throw BackendError(asio::error::eof, "unexpected EOF in the backend's response body");
  }
}

asio::awaitable<BackendResponse> fetch_from_backend(const Backend& backend, std::string method, std::string target,
                                                    http::Headers headers, std::chrono::milliseconds timeout,
                                                    std::size_t max_body) {
  auto executor = co_await asio::this_coro::executor;
  BackendConnection connection(executor, backend);
  connection.set_deadline(Clock::now() + timeout);
  co_await connection.connect();
  BackendRequest request{std::move(method), std::move(target), std::move(headers), {}};
  co_await connection.send(request);
  ResponseHead head = co_await connection.read_head();
  BackendResponse response{head.status, std::move(head.headers), {}};
  for (;;) {
    std::optional<std::string> piece = co_await connection.read_body();
    if (!piece) break;
    if (response.body.size() + piece->size() > max_body)
      throw std::runtime_error("the backend's response body exceeds " + std::to_string(max_body) + " bytes");
    response.body.append(*piece);
  }
  co_return response;
}

}  // namespace kapi::proxy

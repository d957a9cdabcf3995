#pragma once
// The HTTP/1.1 client with which kube-apiserver reaches what it proxies to — extension API servers for the
// aggregator, kubelets, pods and services for the connect subresources: one request per TLS connection (the
// admission webhooks keep theirs alive through ConnectionPool, connection_pool.h), the response parsed by llhttp
// as it arrives so a watch streams through chunk by chunk. Errors carry messages close to
// what Go's transport says ("dial tcp 10.0.0.5:443: connect: connection refused", "context deadline exceeded"),
// because kube-aggregator shows them to clients after "error trying to reach service: ".
#include "server/proxy/backend.h"
#include "server/http/headers.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kapi::proxy {

class BackendHttp2;

struct BackendClientLimits {
  std::chrono::milliseconds dial_timeout{30'000};       // the net.Dialer timeout of kube's proxy transport
  std::chrono::milliseconds handshake_timeout{10'000};  // utilnet.SetTransportDefaults' TLSHandshakeTimeout
  std::size_t max_header_bytes = 10 << 20;              // Go's transport default for response headers
};

struct BackendRequest {
  std::string method;
  std::string target;  // origin-form: escaped path, then "?query" if any
  // Sent as given, except framing fields (Content-Length, Transfer-Encoding, Connection), which the client sets.
  // Without a Host field, Host is the backend's host:port.
  http::Headers headers;
  std::string body;
  // A protocol upgrade (exec, port-forward): sent with "Connection: Upgrade" instead of "Connection: close"; the
  // Upgrade header is among `headers`.
  bool upgrade = false;
  // Sent with "Connection: keep-alive": the connection may carry another request after the response (see
  // BackendConnection::reusable).
  bool keep_alive = false;
};

struct ResponseHead {
  int status = 0;
  http::Headers headers;  // as received, framing fields included
  std::optional<std::uint64_t> content_length;  // the body's length when Content-Length frames it
  bool chunked = false;
};

class BackendConnection {
 public:
  using Clock = std::chrono::steady_clock;

  BackendConnection(asio::any_io_executor executor, Backend backend, BackendClientLimits limits = {});
  ~BackendConnection();
  BackendConnection(const BackendConnection&) = delete;
  BackendConnection& operator=(const BackendConnection&) = delete;

  // After `deadline` every operation fails with "context deadline exceeded" (the socket is closed under it), as a
  // Go request does when its context expires. Can be moved at any time; max() means none.
  void set_deadline(Clock::time_point deadline);

  // Dials the backend and completes the TLS handshake (SNI and, unless insecure, the certificate checked for
  // server_name), each within its timeout. Throws std::system_error. With `offer_http2`, ALPN offers "h2" before
  // "http/1.1", and the request goes over HTTP/2 when the backend chooses it (backend_http2.h), behind the same
  // calls; upgrades and kept-alive connections stay on HTTP/1.1.
  asio::awaitable<void> connect(bool offer_http2 = false);
  bool http2() const { return http2_ != nullptr; }
  // Writes the request. `head_request`-style bodyless responses are told to the parser by the method.
  asio::awaitable<void> send(const BackendRequest& request);
  // Reads until the status line and headers are complete (1xx interim responses other than 101 are skipped).
  asio::awaitable<ResponseHead> read_head();
  // The next decoded piece of the body as it arrives (at most one read's worth), std::nullopt at its end. Throws
  // std::system_error when the connection fails or the framing is broken before the end.
  asio::awaitable<std::optional<std::string>> read_body();

  // After a 101: the backend's bytes that came with its response head, which belong to the new protocol (taken
  // once), then raw reads (0 at the end of the stream or on an error) and writes (throwing when it is gone).
  std::string take_upgraded_bytes();
  asio::awaitable<std::size_t> read_some(std::span<char> buffer);
  asio::awaitable<void> write(std::string_view data);

  // Closes the connection now; pending operations fail.
  void close();

  // For keep-alive (ConnectionPool). Whether any byte of a response arrived since the last request was sent.
  bool response_started() const { return response_started_; }
  // Whether the watchdog closed the connection (its deadline passed).
  bool timed_out() const;
  // Whether the connection may carry another request: the response was read to its end, the backend did not ask
  // to close (Connection: close, HTTP/1.0 without keep-alive, a body running until close), nothing followed it,
  // the deadline did not pass and the socket is open.
  bool reusable() const;
  // Makes a reusable connection ready for the next request (a fresh parser, no deadline).
  void reset_for_next_request();
  // Whether an idle connection still looks usable: open, not expired, and nothing readable on it — an idle
  // connection has nothing to receive, so readable bytes or the end of the stream mean the backend closed it (or
  // is about to). A non-blocking peek: must run where the connection's other operations run.
  bool idle_and_open();

 private:
  struct State;
  struct Parser;
  [[noreturn]] void fail(const std::error_code& error, const std::string& what);
  asio::awaitable<bool> read_more();  // false at end of stream
  asio::awaitable<void> send_http2_output();

  std::shared_ptr<State> state_;
  std::unique_ptr<Parser> parser_;
  std::unique_ptr<BackendHttp2> http2_;  // when the backend chose h2
  Backend backend_;
  BackendClientLimits limits_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool response_started_ = false;
  bool upgrade_sent_ = false;
};

struct BackendResponse {
  int status = 0;
  http::Headers headers;
  std::string body;
};

// One request to the backend, whole body (at most max_body bytes, else an error), within `timeout` overall.
// Throws std::system_error / std::runtime_error with a readable message on connection, TLS or protocol failure.
asio::awaitable<BackendResponse> fetch_from_backend(const Backend& backend, std::string method, std::string target,
                                                    http::Headers headers, std::chrono::milliseconds timeout,
                                                    std::size_t max_body = 64 << 20);

}  // namespace kapi::proxy

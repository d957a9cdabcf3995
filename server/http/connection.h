#pragma once
// Serving one client connection: a coroutine reads requests, hands each to the handler in order (pipelining),
// and writes its response; a watchdog enforces the read-header and idle timeouts. While a handler waits on its
// client (Request::client_gone, a watch), the socket is read in the background so that a client closing the
// connection ends the request at once.
#include "server/http/request_parser.h"
#include "server/http/response_writer.h"

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/stream.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kapi::http {

struct ConnectionOptions {
  ParserLimits limits;
  std::chrono::steady_clock::duration read_header_timeout = std::chrono::seconds(32);
  std::chrono::steady_clock::duration idle_timeout = std::chrono::seconds(90);
  // How long a response may wait for its client to take any of it: then the HTTP/2 stream is reset, or the
  // connection closed when the client reads nothing at all. On HTTP/1.1 the connection is closed, at most an
  // idle (or read-header) timeout later when the stall began while the connection waited for a request.
  std::chrono::steady_clock::duration write_stall_timeout = std::chrono::seconds(60);
  // HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS (--http2-max-streams-per-connection, kube-apiserver's 1000).
  std::uint32_t http2_max_concurrent_streams = 1000;
};

// The Date header's value for a response sent now (each reactor thread formats it once a second); the
// reference is this thread's copy, valid until its next call.
const std::string& http_date();

using RequestHandler = std::function<asio::awaitable<void>(Request&, ResponseWriter&)>;

// Knows every open connection so shutdown can close the idle ones and let busy ones finish their response.
class ConnectionRegistry {
 public:
  struct Entry {
    std::function<void()> close_if_idle;  // runs on the connection's own executor
  };
  std::uint64_t add(Entry entry);
  void remove(std::uint64_t id);
  // Asks every connection to close once it is idle (now, if it is idle already).
  void close_all_when_idle();
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, Entry> entries_;
};

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;

asio::awaitable<void> serve_plain_connection(asio::ip::tcp::socket socket, ConnectionOptions options,
                                             RequestHandler handler, ConnectionRegistry& registry);
asio::awaitable<void> serve_tls_connection(TlsStream stream, ConnectionOptions options, RequestHandler handler,
                                           ConnectionRegistry& registry);

}  // namespace kapi::http

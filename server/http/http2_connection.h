#pragma once
// Serving one HTTP/2 connection (RFC 9113), after TLS's ALPN chose "h2", as Go's http2.Server serves
// kube-apiserver's secure port. nghttp2 does the framing, HPACK and flow control; kapi drives it from the
// connection's strand: one coroutine reads frames into the session, one writes what the session has to send, and
// each request (a stream) runs the same RequestHandler as over HTTP/1.1 in a coroutine of its own on that strand,
// so every call into the session happens on one thread at a time and no stream waits for another.
//
// Settings as kube's (k8s.io/apiserver secure_serving.go on golang.org/x/net/http2): at most
// `max_concurrent_streams` streams (--http2-max-streams-per-connection, 1000 in kube-apiserver), 1 MiB windows
// per stream and that times the streams for the connection, frames up to 1 MiB, the header list within the
// HTTP/1.1 header limit (431 past it, as Go answers). A stream's response body is handed to the session as the
// client's window allows: a handler writing faster than its client reads waits (write_chunk returns once its data
// is nearly all taken), and other streams go on; a stream whose client takes nothing for the write stall timeout
// is reset. The idle timeout closes a connection without streams; shutdown sends GOAWAY and lets the open streams
// finish. A client that resets a stream ends its handler's long-running work (Request::client_gone).
//
// Against the HTTP/2 attack classes: at most max_concurrent_streams handlers run per connection, whatever the
// client resets (requests beyond wait, and a client that piles up too many is cut off with ENHANCE_YOUR_CALM, as
// Go's server does since CVE-2023-44487); nghttp2 limits RST_STREAM rates, CONTINUATION frames, unread SETTINGS
// and PING acknowledgements, SETTINGS entries, frame sizes and the HPACK table (the constants in the .cc file).
//
// Lifetime: the connection outlives every stream's handler (it waits for them before it returns); a handler whose
// stream the client reset sees its next write fail, as over a closed HTTP/1.1 connection.
#include "server/http/connection.h"

#include <asio/buffer.hpp>
#include <asio/error_code.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace kapi::http {

// The ALPN protocol ID of HTTP/2 over TLS.
inline constexpr std::string_view kHttp2Protocol = "h2";

// The bytes under an HTTP/2 connection: the TLS stream in the server; memory in the fuzz target
// (tests/fuzz/http2_frames_fuzz.cc), which feeds a session frames without sockets.
class Http2Transport {
 public:
  virtual ~Http2Transport() = default;
  // Some bytes into `buffer`; an error instead at the end of the stream, or when it failed or was closed.
  virtual asio::awaitable<std::size_t> read_some(asio::mutable_buffer buffer, asio::error_code& error) = 0;
  // All of `data`, or an error.
  virtual asio::awaitable<void> write(asio::const_buffer data, asio::error_code& error) = 0;
  // Ends both directions: a read or write in progress, and every later one, fails.
  virtual void close() = 0;
};

asio::awaitable<void> serve_http2_connection(TlsStream& stream, const ConnectionOptions& options,
                                             RequestHandler handler, ConnectionRegistry& registry,
                                             std::optional<PeerCertificate> peer, std::string remote_address);
asio::awaitable<void> serve_http2_connection(Http2Transport& transport, const ConnectionOptions& options,
                                             RequestHandler handler, ConnectionRegistry& registry,
                                             std::optional<PeerCertificate> peer, std::string remote_address);

}  // namespace kapi::http

#pragma once
// Serving one HTTP/2 connection (RFC 9113), after TLS's ALPN chose "h2", as Go's http2.Server serves
// kube-apiserver's secure port. nghttp2 does the framing, HPACK and flow control; kapi drives it from the
// connection's strand: one coroutine reads frames into the session, one writes what the session has to send, and
// each request (a stream) runs the same RequestHandler as over HTTP/1.1 in a coroutine of its own on that strand,
// so every call into the session happens on one thread at a time and no stream waits for another.
//
// Settings as kube's (k8s.io/apiserver secure_serving.go on golang.org/x/net/http2): at most
// `max_concurrent_streams` streams (250 unless --http2-max-streams-per-connection says otherwise), 1 MiB windows
// per stream and that times the streams for the connection, frames up to 1 MiB, the header list within the
// HTTP/1.1 header limit. A stream's response body is handed to the session as the client's window allows: a
// handler writing faster than its client reads waits (write_chunk returns once its data is nearly all taken), and
// other streams go on. The idle timeout closes a connection without streams; shutdown sends GOAWAY and lets the
// open streams finish.
//
// Lifetime: the connection outlives every stream's handler (it waits for them before it returns); a handler whose
// stream the client reset sees its next write fail, as over a closed HTTP/1.1 connection.
#include "server/http/connection.h"

#include <optional>
#include <string>

namespace kapi::http {

// The ALPN protocol ID of HTTP/2 over TLS.
inline constexpr std::string_view kHttp2Protocol = "h2";

asio::awaitable<void> serve_http2_connection(TlsStream& stream, const ConnectionOptions& options,
                                             RequestHandler handler, ConnectionRegistry& registry,
                                             std::optional<PeerCertificate> peer, std::string remote_address);

}  // namespace kapi::http

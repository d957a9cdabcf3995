#pragma once
// One request to a backend over HTTP/2, when its TLS handshake chose "h2" (client-go's transport offers it, so
// kube-aggregator speaks HTTP/2 to extension API servers that serve it). nghttp2 does the framing, HPACK and flow
// control; BackendConnection does the I/O: it sends what take_output() returns and feeds what it reads, so the
// exchange runs in the caller's coroutine with BackendConnection's deadline and error wording. One stream per
// connection, as the aggregator makes one connection per request; the response streams through piece by piece, and
// the windows open as the pieces are taken (a slow client holds back its backend's stream only).
#include "server/proxy/backend_client.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>

struct nghttp2_session;

namespace kapi::proxy {

// Sends, on a new client session, the settings Go's http2.Transport opens with (no push, 4 MiB per stream) and
// widens the connection's window to its 1 GiB.
void send_go_transport_settings(nghttp2_session* session);

class BackendHttp2 {
 public:
  explicit BackendHttp2(std::size_t max_header_bytes);
  ~BackendHttp2();
  BackendHttp2(const BackendHttp2&) = delete;
  BackendHttp2& operator=(const BackendHttp2&) = delete;

  // Queues the request; Host becomes :authority (else `authority`), HTTP/1.1's connection fields are dropped.
  void submit(const BackendRequest& request, std::string_view authority);
  // What the session has to send now: the preface, SETTINGS, the request, acknowledgements, window updates.
  std::string take_output();
  // Bytes read from the backend. Empty when fine, else why the exchange failed (in Go's words).
  std::string feed(std::span<const char> bytes);

  bool head_done() const;
  const ResponseHead& head() const;
  std::string take_body();  // the body's bytes received and not taken yet
  bool ended() const;       // the response is complete (every byte of it received)
  // Why the stream ended before its response did (the backend reset it or went away); empty otherwise.
  std::string failure() const;

 private:
  struct Session;
  std::unique_ptr<Session> session_;
};

}  // namespace kapi::proxy

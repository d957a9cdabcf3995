#pragma once
// An HTTP/2 client connection for load generation (RFC 9113 over TLS, ALPN "h2", nghttp2 for framing, HPACK and
// flow control), as client-go talks to kube-apiserver: any number of requests at once, each a stream of the one
// connection. Not thread-safe: every call comes from coroutines on one single-threaded executor, as kapi-bench
// runs its load. A failed connection fails its streams and reconnects on the next request.
#include "bench/client/http_client.h"

#include <asio/steady_timer.hpp>

#include <map>
#include <memory>

namespace kapi::bench {

class Http2Session final : public HttpTransport {
 public:
  Http2Session(asio::any_io_executor executor, ServerAddress server);
  ~Http2Session() override;

  asio::awaitable<HttpResponse> send(const HttpRequest& request, BodyHandling body = BodyHandling::discard) override;
  asio::awaitable<HttpResponse> send_streaming(const HttpRequest& request, BodySink sink) override;
  void close() noexcept override;
  std::size_t bytes_sent() const noexcept override;

 private:
  struct Connection;
  asio::awaitable<HttpResponse> exchange(const HttpRequest& request, BodyHandling body, BodySink sink);

  asio::any_io_executor executor_;
  ServerAddress server_;
  std::shared_ptr<Connection> connection_;  // shared with its read and write loops, which may outlive a close()
  std::size_t bytes_sent_before_ = 0;       // by connections closed already
};

}  // namespace kapi::bench

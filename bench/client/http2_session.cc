#include "bench/client/http2_session.h"

#include "base/wake_signal.h"
#include "server/proxy/backend_http2.h"

#include <asio/buffer.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <nghttp2/nghttp2.h>

#include <cstring>
#include <set>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace kapi::bench {
namespace {

using Clock = std::chrono::steady_clock;
using asio::use_awaitable;
constexpr auto as_tuple = asio::experimental::as_tuple(use_awaitable);

constexpr std::size_t kReadBufferBytes = 64 * 1024;
constexpr std::size_t kWriteBatchBytes = 64 * 1024;

using Signal = base::WakeSignal;

struct Stream {
  explicit Stream(const asio::any_io_executor& executor) : done(executor) {}
  HttpResponse response;
  BodyHandling body = BodyHandling::discard;
  BodySink sink;
  std::string_view request_body;
  std::size_t request_body_sent = 0;
  bool closed = false;
  bool connection_failed = false;
  std::uint32_t error_code = 0;
  Signal done;
};

nghttp2_nv field(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NO_COPY_NAME};
}

}  // namespace

struct Http2Session::Connection {
  Connection(const asio::any_io_executor& executor, asio::ssl::context& tls)
      : stream(executor, tls), want_write(executor), established(executor, Clock::time_point::max()) {}
  ~Connection() {
    if (session) nghttp2_session_del(session);
  }

  static Connection& self(void* user_data) { return *static_cast<Connection*>(user_data); }
  static Stream* stream_of(nghttp2_session* session, std::int32_t id) {
    return static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, id));
  }

  void fail() {
    if (dead) return;
    dead = true;
    std::error_code ignored;
    stream.next_layer().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    stream.next_layer().close(ignored);
    for (Stream* pending : streams) {
      pending->closed = true;
      pending->connection_failed = true;
      pending->done.notify();
    }
    want_write.notify();
    established.cancel();
  }

  // Requests made while the connection is being set up wait for it.
  asio::awaitable<void> wait_until_ready() {
    while (!ready && !dead) co_await established.async_wait(as_tuple);
    if (dead) throw std::system_error(asio::error::connection_reset, "the HTTP/2 connection failed");
  }

  void start_session() {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(
        callbacks, [](nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                      std::size_t name_length, const std::uint8_t* value, std::size_t value_length, std::uint8_t,
                      void*) -> int {
          Stream* target = stream_of(session, frame->hd.stream_id);
          if (!target) return 0;
          const std::string_view key(reinterpret_cast<const char*>(name), name_length);
          const std::string_view text(reinterpret_cast<const char*>(value), value_length);
          if (key == ":status") {
            target->response.status = std::atoi(std::string(text).c_str());
          } else if (key == "retry-after") {
            for (char c : text)
              if (c >= '0' && c <= '9') target->response.retry_after_seconds = target->response.retry_after_seconds * 10 + (c - '0');
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        callbacks, [](nghttp2_session* session, const nghttp2_frame* frame, void*) -> int {
          Stream* target = stream_of(session, frame->hd.stream_id);
          if (!target) return 0;
          target->response.bytes_received += 9 + frame->hd.length;
          if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_RESPONSE && target->sink)
            target->sink({});
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        callbacks, [](nghttp2_session* session, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                      std::size_t length, void*) -> int {
          Stream* target = stream_of(session, id);
          if (!target) return 0;
          const std::string_view piece(reinterpret_cast<const char*>(data), length);
          if (target->sink)
            target->sink(piece);
          else if (target->body == BodyHandling::keep)
            target->response.body.append(piece);
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        callbacks, [](nghttp2_session* session, std::int32_t id, std::uint32_t error_code, void*) -> int {
          Stream* target = stream_of(session, id);
          if (!target) return 0;
          target->closed = true;
          target->error_code = error_code;
          target->done.notify();
          return 0;
        });
    nghttp2_session_client_new(&session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    proxy::send_go_transport_settings(session);  // as client-go opens its connections
  }

  static asio::awaitable<void> read_loop(std::shared_ptr<Connection> connection) {
    std::vector<std::uint8_t> buffer(kReadBufferBytes);
    while (!connection->dead) {
      auto [error, n] = co_await connection->stream.async_read_some(asio::buffer(buffer), as_tuple);
      if (error || connection->dead) break;
      if (nghttp2_session_mem_recv(connection->session, buffer.data(), n) < 0) break;
      connection->want_write.notify();  // acknowledgements and window updates
    }
    connection->fail();
  }

  static asio::awaitable<void> write_loop(std::shared_ptr<Connection> connection) {
    std::string batch;
    while (!connection->dead) {
      batch.clear();
      const std::uint8_t* data = nullptr;
      ssize_t n = 0;
      while (batch.size() < kWriteBatchBytes && (n = nghttp2_session_mem_send(connection->session, &data)) > 0)
        batch.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
      if (n < 0) break;
      if (batch.empty()) {
        auto woken = connection->want_write.wait();
        co_await std::move(woken);
        continue;
      }
      auto [error, written] = co_await asio::async_write(connection->stream, asio::buffer(batch), as_tuple);
      if (error) break;
      connection->bytes_sent += written;
    }
    connection->fail();
  }

  asio::ssl::stream<asio::ip::tcp::socket> stream;
  nghttp2_session* session = nullptr;
  Signal want_write;
  std::set<Stream*> streams;  // waiting for their responses
  std::size_t bytes_sent = 0;
  asio::steady_timer established;  // cancelled, waking every waiter, once the session is up or has failed
  bool ready = false;
  bool dead = false;
};

std::unique_ptr<HttpTransport> connect_to(asio::any_io_executor executor, const ServerAddress& server) {
  if (server.http2) return std::make_unique<Http2Session>(std::move(executor), server);
  return std::make_unique<HttpConnection>(std::move(executor), server);
}

Http2Session::Http2Session(asio::any_io_executor executor, ServerAddress server)
    : executor_(std::move(executor)), server_(std::move(server)) {
  if (!server_.tls) throw std::invalid_argument("HTTP/2 is served over TLS only: an https:// server is needed");
}

Http2Session::~Http2Session() { close(); }

void Http2Session::close() noexcept {
  if (connection_) connection_->fail();
}

std::size_t Http2Session::bytes_sent() const noexcept {
  return bytes_sent_before_ + (connection_ ? connection_->bytes_sent : 0);
}

asio::awaitable<HttpResponse> Http2Session::send(const HttpRequest& request, BodyHandling body) {
  return exchange(request, body, {});
}

asio::awaitable<HttpResponse> Http2Session::send_streaming(const HttpRequest& request, BodySink sink) {
  return exchange(request, BodyHandling::discard, std::move(sink));
}

asio::awaitable<HttpResponse> Http2Session::exchange(const HttpRequest& request, BodyHandling body, BodySink sink) {
  if (!connection_ || connection_->dead) {
    if (connection_) bytes_sent_before_ += connection_->bytes_sent;
    auto connection = std::make_shared<Connection>(executor_, *server_.tls);
    connection_ = connection;
    try {
      co_await connection->stream.next_layer().async_connect(server_.endpoint, use_awaitable);
      connection->stream.next_layer().set_option(asio::ip::tcp::no_delay(true));
      static constexpr unsigned char kH2[] = {2, 'h', '2'};
      SSL_set_alpn_protos(connection->stream.native_handle(), kH2, sizeof kH2);
      co_await connection->stream.async_handshake(asio::ssl::stream_base::client, use_awaitable);
    } catch (...) {
      connection->fail();  // and the requests waiting for it
      throw;
    }
    const unsigned char* protocol = nullptr;
    unsigned length = 0;
    SSL_get0_alpn_selected(connection->stream.native_handle(), &protocol, &length);
    if (std::string_view(reinterpret_cast<const char*>(protocol), length) != "h2") {
      connection->fail();
      throw std::runtime_error("the server did not agree to HTTP/2 in ALPN (is --disable-http2-serving set?)");
    }
    connection->start_session();
    connection->ready = true;
    connection->established.cancel();
    asio::co_spawn(executor_, Connection::read_loop(connection), asio::detached);
    asio::co_spawn(executor_, Connection::write_loop(connection), asio::detached);
  }
  auto connection = connection_;  // this stream's, whatever a reconnect does meanwhile
  auto ready = connection->wait_until_ready();
  co_await std::move(ready);

  Stream stream(executor_);
  stream.body = body;
  stream.sink = std::move(sink);
  stream.request_body = request.body;
  const std::string authority = server_.host_header();
  const bool has_body = !request.body.empty() || request.method == "POST" || request.method == "PUT";
  const std::string content_length = std::to_string(request.body.size());
  std::vector<nghttp2_nv> fields{field(":method", request.method), field(":scheme", "https"),
                                 field(":authority", authority), field(":path", request.target),
                                 field("user-agent", "kapi-bench"), field("accept", request.accept)};
  if (!server_.authorization.empty()) fields.push_back(field("authorization", server_.authorization));
  if (has_body) {
    fields.push_back(field("content-type", request.content_type));
    fields.push_back(field("content-length", content_length));
  }
  nghttp2_data_provider provider{};
  provider.source.ptr = &stream;
  provider.read_callback = [](nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                              std::uint32_t* flags, nghttp2_data_source* source, void*) -> ssize_t {
    auto& sending = *static_cast<Stream*>(source->ptr);
    const std::size_t n = std::min(length, sending.request_body.size() - sending.request_body_sent);
    std::memcpy(buffer, sending.request_body.data() + sending.request_body_sent, n);
    sending.request_body_sent += n;
    if (sending.request_body_sent == sending.request_body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  };
  const std::int32_t id = nghttp2_submit_request(connection->session, nullptr, fields.data(), fields.size(),
                                                 has_body ? &provider : nullptr, &stream);
  if (id < 0) throw std::system_error(std::make_error_code(std::errc::protocol_error), nghttp2_strerror(id));
  connection->streams.insert(&stream);
  connection->want_write.notify();
  while (!stream.closed) {
    auto woken = stream.done.wait();
    co_await std::move(woken);
  }
  connection->streams.erase(&stream);
  if (connection->session && !connection->dead) nghttp2_session_set_stream_user_data(connection->session, id, nullptr);
  if (stream.connection_failed || (stream.error_code != NGHTTP2_NO_ERROR && stream.response.status == 0))
    throw std::system_error(asio::error::connection_reset, "the HTTP/2 stream ended before its response");
  co_return std::move(stream.response);
}

}  // namespace kapi::bench

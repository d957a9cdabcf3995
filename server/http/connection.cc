#include "server/http/connection.h"

#include "base/go_time.h"
#include "base/race.h"
#include "base/wake_signal.h"
#include "server/apierrors/errors.h"
#include "server/http/http2_connection.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>

namespace kapi::http {

std::uint64_t ConnectionRegistry::add(Entry entry) {
  std::lock_guard lock(mutex_);
  auto id = next_id_++;
  entries_.emplace(id, std::move(entry));
  return id;
}

void ConnectionRegistry::remove(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  entries_.erase(id);
}

void ConnectionRegistry::close_all_when_idle() {
  std::lock_guard lock(mutex_);
  for (auto& [id, entry] : entries_) entry.close_if_idle();
}

std::size_t ConnectionRegistry::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

// The Date header changes once a second: each reactor thread formats it once per second, not per response.
const std::string& http_date() {
  thread_local std::time_t formatted_at = -1;
  thread_local std::string formatted;
  const std::time_t now = std::time(nullptr);
  if (now != formatted_at) {
    formatted = base::format_http_date(now);
    formatted_at = now;
  }
  return formatted;
}

namespace {

using Clock = std::chrono::steady_clock;
using asio::use_awaitable;

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

// What a connection shares with the registry; touched only on the connection's executor (see http_server.h).
struct ConnectionState {
  bool idle = true;
  bool draining = false;  // shutdown asked: close after the current response
  bool alive = true;
  std::function<void()> close;
  // The watchdog's timer while it waits: woken when the connection ends, so a closed keep-alive connection does not
  // leave a wait behind for the rest of its idle timeout (or forever, when it ended while answering).
  asio::steady_timer* watchdog_timer = nullptr;
};

template <typename Stream>
auto& lowest_socket(Stream& stream) {
  if constexpr (std::is_same_v<Stream, asio::ip::tcp::socket>)
    return stream;
  else
    return stream.lowest_layer();
}

// "ip:port" of the client, as Go's RemoteAddr ("[ip]:port" for IPv6); empty once the socket is gone.
template <typename Stream>
std::string remote_address_of(Stream& stream) {
  asio::error_code ec;
  auto endpoint = lowest_socket(stream).remote_endpoint(ec);
  if (ec) return {};
  auto address = endpoint.address().to_string();
  if (endpoint.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(endpoint.port());
}

// The hijacked connection: what the parser read past the upgrade request first, then the socket itself.
template <typename Stream>
class ConnectionUpgradedStream final : public UpgradedStream {
 public:
  ConnectionUpgradedStream(Stream& stream, std::string early_bytes)
      : stream_(stream), early_bytes_(std::move(early_bytes)) {}

  asio::awaitable<std::size_t> read_some(std::span<char> buffer) override {
    if (early_offset_ < early_bytes_.size()) {
      const std::size_t n = std::min(buffer.size(), early_bytes_.size() - early_offset_);
      std::copy_n(early_bytes_.data() + early_offset_, n, buffer.data());
      early_offset_ += n;
      co_return n;
    }
    auto [error, n] = co_await stream_.async_read_some(asio::buffer(buffer.data(), buffer.size()),
                                                       asio::experimental::as_tuple(use_awaitable));
    co_return error ? 0 : n;
  }

  asio::awaitable<void> write(std::string_view data) override {
    co_await asio::async_write(stream_, asio::buffer(data.data(), data.size()), use_awaitable);
  }

  void close() override {
    asio::error_code ignored;
    auto& socket = lowest_socket(stream_);
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }

 private:
  Stream& stream_;
  std::string early_bytes_;
  std::size_t early_offset_ = 0;
};

// When the response write in progress started, for the watchdog's write-stall timeout: set for as long as one
// write of the response waits for its client.
using WriteClock = std::optional<std::chrono::steady_clock::time_point>;
class WriteTimer {
 public:
  explicit WriteTimer(WriteClock& clock) : clock_(clock) { clock_ = std::chrono::steady_clock::now(); }
  ~WriteTimer() { clock_.reset(); }
  WriteTimer(const WriteTimer&) = delete;
  WriteTimer& operator=(const WriteTimer&) = delete;

 private:
  WriteClock& clock_;
};

template <typename Stream>
class ConnectionWriter final : public ResponseWriter {
 public:
  // `draining` (may be null) turns true when shutdown begins, possibly while the handler runs.
  ConnectionWriter(Stream& stream, const Request& request, bool keep_alive, const bool* draining,
                   WriteClock& writing_since)
      : stream_(stream), draining_(draining), writing_since_(writing_since), head_only_(request.method == "HEAD"),
        http10_(request.version_minor == 0), keep_alive_(keep_alive) {}

  Headers& headers() override { return headers_; }

  asio::awaitable<void> write(int status, std::string body) override {
    mark_committed(status);
    if (!status_allows_body(status)) body.clear();
    std::string head = status_head(status);
    head.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n");
    body_bytes_ = body.size();
    if (head_only_) body.clear();
    std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
    WriteTimer timer(writing_since_);
    co_await asio::async_write(stream_, buffers, until_written(), use_awaitable);
    finished_ = true;
  }

  asio::awaitable<void> begin_stream(int status) override {
    mark_committed(status);
    streaming_ = true;
    std::string head = status_head(status);
    // HTTP/1.0 has no chunked coding: the end of the stream is the end of the connection.
    if (http10_)
      keep_alive_ = false;
    else
      head.append("Transfer-Encoding: chunked\r\n");
    head.append("\r\n");
    WriteTimer timer(writing_since_);
    co_await asio::async_write(stream_, asio::buffer(head), until_written(), use_awaitable);
  }

  asio::awaitable<void> write_chunk(std::string_view data) override {
    if (!streaming_ || finished_) throw std::logic_error("write_chunk outside a stream");
    if (data.empty() || head_only_) co_return;
    body_bytes_ += data.size();
    if (http10_) {
      WriteTimer timer(writing_since_);
      co_await asio::async_write(stream_, asio::buffer(data.data(), data.size()), until_written(), use_awaitable);
      co_return;
    }
    std::array<char, 20> size_line{};
    int n = std::snprintf(size_line.data(), size_line.size(), "%zx\r\n", data.size());
    std::array<asio::const_buffer, 3> buffers{asio::buffer(size_line.data(), static_cast<std::size_t>(n)),
                                              asio::buffer(data.data(), data.size()), asio::buffer("\r\n", 2)};
    WriteTimer timer(writing_since_);
    if constexpr (!std::is_same_v<Stream, asio::ip::tcp::socket>) {
      if (data.size() > kTlsGatherBytes) {
        // Asio's TLS stream encrypts one buffer at a time, after gathering small leading ones into 8 KiB: a large
        // chunk framed in three pieces went out as records of 8 KiB, 16 KiB... and one of the final 2 bytes, each
        // a send. Framed in one buffer, it goes out in full records.
        framed_.assign(size_line.data(), static_cast<std::size_t>(n)).append(data).append("\r\n");
        co_await asio::async_write(stream_, asio::buffer(framed_), until_written(), use_awaitable);
        co_return;
      }
    }
    co_await asio::async_write(stream_, buffers, until_written(), use_awaitable);
  }

  asio::awaitable<void> end_stream() override {
    if (!streaming_ || finished_) co_return;
    finished_ = true;
    if (http10_ || head_only_) co_return;
    WriteTimer timer(writing_since_);
    co_await asio::async_write(stream_, asio::buffer("0\r\n\r\n", 5), until_written(), use_awaitable);
  }

  // Go's Hijack: the 101 head goes out as the handler built it, and the connection is the handler's until it
  // returns; then it closes (kube-apiserver never reuses a hijacked connection).
  asio::awaitable<std::unique_ptr<UpgradedStream>> switch_protocols() override {
    if (!upgraded_bytes_) throw std::logic_error("switch_protocols on a request that asked for no upgrade");
    mark_committed(101);
    keep_alive_ = false;
    finished_ = true;
    std::string head = "HTTP/1.1 101 Switching Protocols\r\n";
    for (const auto& field : headers_) {
      if (iequals(field.name, "Content-Length") || iequals(field.name, "Transfer-Encoding") ||
          iequals(field.name, "Connection"))
        continue;
      head.append(field.name).append(": ").append(field.value).append("\r\n");
    }
    head.append("Connection: Upgrade\r\n\r\n");
    WriteTimer timer(writing_since_);
    co_await asio::async_write(stream_, asio::buffer(head), until_written(), use_awaitable);
    co_return std::make_unique<ConnectionUpgradedStream<Stream>>(stream_, std::move(*upgraded_bytes_));
  }
  // For an upgrade request: where the bytes the client sent after it are, which switch_protocols hands over.
  void allow_upgrade(std::string* upgraded_bytes) { upgraded_bytes_ = upgraded_bytes; }

  bool committed() const override { return status_ != 0; }
  int status() const override { return status_; }
  std::size_t body_bytes() const override { return body_bytes_; }

  bool finished() const { return finished_; }
  bool streaming() const { return streaming_; }
  bool keep_alive() const { return keep_alive_; }

 private:
  // transfer_all, noting each piece the client took: the write-stall timeout counts from the last progress.
  auto until_written() {
    return [&since = writing_since_](const asio::error_code& error, std::size_t) -> std::size_t {
      if (error) return 0;
      since = std::chrono::steady_clock::now();
      return 64 * 1024;
    };
  }

  void mark_committed(int status) {
    if (status_ != 0) throw std::logic_error("response already committed");
    status_ = status;
  }

  std::string status_head(int status) {
    std::string head;
    head.reserve(512);  // kube's usual headers (Audit-ID, the two APF UIDs, Date, ...) without a regrowth
    head.append(http10_ ? "HTTP/1.0 " : "HTTP/1.1 ")
        .append(std::to_string(status))
        .append(" ")
        .append(reason_phrase(status))
        .append("\r\n");
    bool has_date = false;
    for (const auto& field : headers_) {
      if (iequals(field.name, "Content-Length") || iequals(field.name, "Transfer-Encoding") ||
          iequals(field.name, "Connection"))
        continue;
      has_date = has_date || iequals(field.name, "Date");
      head.append(field.name).append(": ").append(field.value).append("\r\n");
    }
    if (!has_date) head.append("Date: ").append(http_date()).append("\r\n");
    // A response that starts after shutdown began is the connection's last: say so, as Go's server does.
    if (draining_ && *draining_) keep_alive_ = false;
    if (!keep_alive_)
      head.append("Connection: close\r\n");
    else if (http10_)
      head.append("Connection: keep-alive\r\n");
    return head;
  }

  Stream& stream_;
  const bool* draining_;
  WriteClock& writing_since_;
  Headers headers_;
  // Chunks up to this size go out in one TLS record as they are (asio gathers up to 8 KiB of buffers, framing
  // included); larger ones are framed in framed_ first.
  static constexpr std::size_t kTlsGatherBytes = 8 * 1024 - 32;
  std::string framed_;
  bool head_only_;
  bool http10_;
  bool keep_alive_;
  int status_ = 0;
  bool streaming_ = false;
  bool finished_ = false;
  std::size_t body_bytes_ = 0;
  std::string* upgraded_bytes_ = nullptr;
};

template <typename Stream>
class Connection {
 public:
  Connection(Stream& stream, ConnectionOptions options, RequestHandler handler, ConnectionRegistry& registry,
             bool tls)
      : stream_(stream), options_(std::move(options)), handler_(std::move(handler)), registry_(registry),
        parser_(options_.limits), tls_(tls) {}

  asio::awaitable<void> run(std::optional<PeerCertificate> peer) {
    auto executor = co_await asio::this_coro::executor;
    state_ = std::make_shared<ConnectionState>();
    state_->close = [this] { close(); };
    auto state = state_;
    registration_ = registry_.add({[state, executor] {
      asio::post(executor, [state] {
        state->draining = true;
        if (state->alive && state->idle) state->close();
      });
    }});
    peer_ = std::move(peer);
    remote_ = remote_address_of(stream_);
    deadline_ = Clock::now() + options_.read_header_timeout;
    asio::co_spawn(executor, watchdog(state), asio::detached);
    try {
      co_await serve();
    } catch (const std::exception&) {
      // The client went away or misbehaved mid-response; nothing more can be said on this connection.
    }
    state->alive = false;
    if (state->watchdog_timer) state->watchdog_timer->cancel();
    registry_.remove(registration_);
    close();
  }

 private:
  void close() {
    asio::error_code ec;
    auto& socket = lowest_socket(stream_);
    if (socket.is_open()) {
      socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
      socket.close(ec);
    }
  }

  // Closes the connection when its deadline passes (a request not read in time, an idle keep-alive connection)
  // or, while a request is answered, when a write of the response waited longer than the write-stall timeout
  // for its client to take any of it. While answering it looks again every stall timeout, which also brings it
  // back to the idle deadline once the answer is over.
  asio::awaitable<void> watchdog(std::shared_ptr<ConnectionState> state) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    state->watchdog_timer = &timer;
    const auto stall = options_.write_stall_timeout;
    while (state->alive) {
      watchdog_wakes_ = answering_ ? writing_since_.value_or(Clock::now()) + stall : deadline_;
      timer.expires_at(watchdog_wakes_);
      co_await timer.async_wait(asio::experimental::as_tuple(use_awaitable));  // woken early when cancelled
      if (!state->alive) break;
      const auto now = Clock::now();
      if (answering_ ? writing_since_ && now >= *writing_since_ + stall : now >= deadline_) {
        close();
        break;
      }
    }
    state->watchdog_timer = nullptr;
  }

  asio::awaitable<void> serve() {
    // Held only while reading: a connection that is answering (a watch, for hours) does not keep it, which
    // would be 16 KiB of every idle watcher. Taking it again per request is a thread-cache hit in jemalloc.
    constexpr std::size_t kReadBufferBytes = 16 * 1024;
    std::unique_ptr<char[]> buffer;
    for (;;) {
      while (!parser_.ready().empty()) {
        buffer.reset();
        Request request = std::move(parser_.ready().front());
        parser_.ready().pop_front();
        if (!co_await answer(request)) co_return;
      }
      if (parser_.stopped()) {
        if (parser_.failure()->status != 0) {
          co_await answer_failure(*parser_.failure());
          co_await linger_after_refusal();
        }
        co_return;
      }
      if (parser_.take_continue_request())
        co_await asio::async_write(stream_, asio::buffer("HTTP/1.1 100 Continue\r\n\r\n", 25), use_awaitable);
      if (state_->draining && !parser_.in_message()) co_return;
      state_->idle = !parser_.in_message();
      if (parser_.in_message())
        set_deadline(std::min(deadline_, Clock::now() + options_.read_header_timeout));
      if (!buffer) buffer = std::make_unique_for_overwrite<char[]>(kReadBufferBytes);
      auto [ec, n] = co_await stream_.async_read_some(asio::buffer(buffer.get(), kReadBufferBytes),
                                                      asio::experimental::as_tuple(use_awaitable));
      if (ec) co_return;
      if (!parser_.in_message()) set_deadline(Clock::now() + options_.read_header_timeout);
      state_->idle = false;
      parser_.feed(std::string_view(buffer.get(), n));
    }
  }

  // A deadline earlier than the watchdog's next look (after a long answer, with a stall timeout longer than the
  // idle one) wakes it; otherwise it finds the new deadline when it wakes, and requests pay nothing for it.
  void set_deadline(Clock::time_point deadline) {
    deadline_ = deadline;
    if (deadline < watchdog_wakes_ && state_->watchdog_timer) state_->watchdog_timer->cancel();
  }

  // Serves one request; false when the connection must close afterwards.
  asio::awaitable<bool> answer(Request& request) {
    state_->idle = false;
    deadline_ = Clock::time_point::max();
    request.tls = tls_;
    request.remote_address = remote_;
    request.peer_certificate = peer_;
    bool keep_alive = request.keep_alive && !state_->draining;
    ConnectionWriter<Stream> writer(stream_, request, keep_alive, &state_->draining, writing_since_);
    answering_ = true;
    struct Answered {
      bool& answering;
      ~Answered() { answering = false; }
    } answered{answering_};
    // The parser stops after an upgrade request: it is the last, and what followed it is the new protocol's.
    std::string upgraded_bytes;
    CloseWatchSlot close_watch{std::nullopt, &request.client_gone};
    if (parser_.stopped() && parser_.failure()->status == 0 && parser_.ready().empty()) {
      upgraded_bytes = parser_.take_upgraded_bytes();
      writer.allow_upgrade(&upgraded_bytes);
    } else if (parser_.ready().empty() && !parser_.in_message()) {
      // Two pointers: std::function holds them without allocating, which every request would pay for.
      request.client_gone.watch_with([this, slot = &close_watch] { watch_for_close(*slot); });
    }
    std::exception_ptr failure;
    try {
      co_await handler_(request, writer);
    } catch (...) {
      failure = std::current_exception();
    }
    auto stopping = stop_watching_for_close(close_watch);
    const bool client_closed = co_await std::move(stopping);
    if (failure) std::rethrow_exception(failure);
    if (client_closed) co_return false;
    if (!writer.committed()) co_await writer.write(200, {});
    if (writer.streaming() && !writer.finished()) co_await writer.end_stream();
    if (!writer.keep_alive() || state_->draining) co_return false;
    state_->idle = true;
    set_deadline(Clock::now() + options_.idle_timeout);
    co_return true;
  }

  // Go's connReader.backgroundRead, for a request whose handler waits on its client (Request::client_gone): the
  // client closing the connection ends the request, as Go cancels its context; a byte that comes instead (the
  // next, pipelined request) ends the background read and waits for the parser. One byte, as Go reads: the rest
  // stays in the kernel's or TLS's buffer.
  struct CloseWatch {
    explicit CloseWatch(const asio::any_io_executor& executor) : finished(executor) {}
    bool running = true;
    bool client_closed = false;
    char byte = 0;
    std::size_t bytes = 0;
    base::WakeSignal finished;
  };
  struct CloseWatchSlot {
    std::optional<CloseWatch> watch;  // once the handler asks
    ClientGone* gone;
  };

  // A plain completion handler rather than a coroutine: an idle watch keeps this read for hours, and a handler is
  // a fraction of a coroutine's frames. It completes on the connection's executor, where the handler runs.
  void watch_for_close(CloseWatchSlot& slot) {
    CloseWatch& watch = slot.watch.emplace(stream_.get_executor());
    stream_.async_read_some(asio::buffer(&watch.byte, 1), [&slot](const asio::error_code& error, std::size_t n) {
      CloseWatch& ended = *slot.watch;
      ended.bytes = n;
      if (error && error != asio::error::operation_aborted) {
        ended.client_closed = true;
        slot.gone->fire();
      }
      ended.running = false;
      ended.finished.notify();
    });
  }

  // Ends the background read, if one was started; whether the client closed the connection meanwhile.
  asio::awaitable<bool> stop_watching_for_close(CloseWatchSlot& slot) {
    std::optional<CloseWatch>& watch = slot.watch;
    if (!watch) co_return false;
    if (watch->running) {
      asio::error_code ignored;
      lowest_socket(stream_).cancel(ignored);
      auto finished = watch->finished.wait();
      co_await std::move(finished);
    }
    if (watch->bytes > 0) parser_.feed(std::string_view(&watch->byte, watch->bytes));
    co_return watch->client_closed;
  }

  asio::awaitable<void> answer_failure(const ParseFailure& failure) {
    Request request;
    request.method = "GET";
    ConnectionWriter<Stream> writer(stream_, request, /*keep_alive=*/false, /*draining=*/nullptr, writing_since_);
    apierrors::Status status;
    switch (failure.status) {
      case 413: status = apierrors::request_entity_too_large(failure.message); break;
      case 431: status = {431, "RequestHeaderFieldsTooLarge", failure.message, std::nullopt}; break;
      default: status = apierrors::bad_request("malformed HTTP request: " + failure.message); break;
    }
    writer.headers().set("Content-Type", "application/json");
    co_await writer.write(status.code, apierrors::to_json(status));
  }

  // Go's closeWriteAndWait after a 431: a client still sending what was refused (the rest of its headers or
  // body) would get a reset instead of the answer if the connection closed at once. Its input is read and
  // dropped for half a second (Go's rstAvoidanceDelay), then the watchdog closes the connection.
  asio::awaitable<void> linger_after_refusal() {
    constexpr auto kRstAvoidanceDelay = std::chrono::milliseconds(500);
    set_deadline(Clock::now() + kRstAvoidanceDelay);
    std::array<char, 4096> dropped;
    for (;;) {
      auto [ec, n] =
          co_await stream_.async_read_some(asio::buffer(dropped), asio::experimental::as_tuple(use_awaitable));
      if (ec || n == 0) co_return;
    }
  }

  Stream& stream_;
  ConnectionOptions options_;
  RequestHandler handler_;
  ConnectionRegistry& registry_;
  RequestParser parser_;
  bool tls_;
  std::shared_ptr<ConnectionState> state_;
  std::uint64_t registration_ = 0;
  std::optional<PeerCertificate> peer_;
  bool answering_ = false;
  WriteClock writing_since_;  // while a response write waits for the client
  Clock::time_point watchdog_wakes_ = Clock::time_point::max();
  std::string remote_;
  Clock::time_point deadline_{};
};

std::optional<PeerCertificate> peer_certificate_of(TlsStream& stream) {
  SSL* ssl = stream.native_handle();
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return std::nullopt;
  PeerCertificate peer;
  peer.chain.emplace_back(cert, &X509_free);
  // A server's peer chain leaves the leaf out: these are the intermediates the client sent.
  if (STACK_OF(X509)* sent = SSL_get_peer_cert_chain(ssl)) {
    for (int i = 0; i < sk_X509_num(sent); ++i) {
      X509* intermediate = sk_X509_value(sent, i);
      if (X509_cmp(intermediate, cert) == 0) continue;
      X509_up_ref(intermediate);
      peer.chain.emplace_back(intermediate, &X509_free);
    }
  }
  long verify = SSL_get_verify_result(ssl);
  peer.verified = verify == X509_V_OK;
  if (!peer.verified) peer.verify_error = X509_verify_cert_error_string(verify);
  X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
    const unsigned char* data = nullptr;
    ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
    int length = ASN1_STRING_to_UTF8(const_cast<unsigned char**>(&data), value);
    if (length >= 0) {
      peer.common_name.assign(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
      OPENSSL_free(const_cast<unsigned char*>(data));
    }
  }
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
    unsigned char* data = nullptr;
    int length = ASN1_STRING_to_UTF8(&data, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
    if (length >= 0) {
      peer.organizations.emplace_back(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
      OPENSSL_free(data);
    }
  }
  return peer;
}

}  // namespace

asio::awaitable<void> serve_plain_connection(asio::ip::tcp::socket socket, ConnectionOptions options,
                                             RequestHandler handler, ConnectionRegistry& registry) {
  Connection<asio::ip::tcp::socket> connection(socket, std::move(options), std::move(handler), registry, false);
  co_await connection.run(std::nullopt);
}

asio::awaitable<void> serve_tls_connection(TlsStream stream, ConnectionOptions options, RequestHandler handler,
                                           ConnectionRegistry& registry) {
  // The handshake must finish within the read-header timeout, like Go's server.
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(options.read_header_timeout);
  try {
    auto give_up = [&]() -> asio::awaitable<void> {
      co_await timer.async_wait(use_awaitable);
      asio::error_code ignored;
      stream.lowest_layer().close(ignored);  // a stalled handshake ends with its socket
    };
    if (co_await base::race(stream.async_handshake(asio::ssl::stream_base::server, use_awaitable), give_up()) == 1)
      co_return;
  } catch (const std::exception&) {
    co_return;  // handshake failed: nothing to answer on a connection without TLS
  }
  auto peer = peer_certificate_of(stream);
  const unsigned char* protocol = nullptr;
  unsigned int protocol_length = 0;
  SSL_get0_alpn_selected(stream.native_handle(), &protocol, &protocol_length);
  if (std::string_view(reinterpret_cast<const char*>(protocol), protocol_length) == kHttp2Protocol) {
    co_await serve_http2_connection(stream, options, std::move(handler), registry, std::move(peer),
                                    remote_address_of(stream));
    co_return;
  }
  Connection<TlsStream> connection(stream, std::move(options), std::move(handler), registry, true);
  co_await connection.run(std::move(peer));
}

}  // namespace kapi::http

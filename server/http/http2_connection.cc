#include "server/http/http2_connection.h"

#include "base/wake_signal.h"
#include "server/apierrors/errors.h"
#include "server/http/request_parser.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace kapi::http {
namespace {

using Clock = std::chrono::steady_clock;
using asio::use_awaitable;

constexpr std::uint32_t kMaxFrameBytes = 1 << 20;
constexpr std::int32_t kStreamWindowBytes = 1 << 20;
// A handler's write_chunk returns once no more than this of its stream waits for the session to take it.
constexpr std::size_t kPendingBytes = 64 * 1024;
constexpr std::size_t kReadBufferBytes = 16 * 1024;
constexpr std::size_t kWriteBatchBytes = 64 * 1024;
constexpr std::chrono::seconds kGoAwayLinger{1};  // Go's goAwayTimeout

// Defences against the HTTP/2 attack classes, beside the handler limit of dispatch(). nghttp2 (with Debian's
// backports) enforces them; they are named here so that they do not change with the library's defaults.
// - Rapid reset (CVE-2023-44487): RST_STREAMs from the client beyond a token bucket end the connection with GOAWAY.
constexpr std::uint64_t kResetBurst = 1000;
constexpr std::uint64_t kResetsPerSecond = 33;
// - CONTINUATION flood (CVE-2024-27316, CVE-2024-28182): HEADERS may be followed by this many CONTINUATIONs;
//   with 1 MiB frames they carry the largest header list kapi accepts.
constexpr std::size_t kMaxContinuations = 8;
// - SETTINGS and PING floods (CVE-2019-9512, -9515): acknowledgements the client leaves unread.
constexpr std::size_t kMaxOutboundAcks = 1000;
constexpr std::size_t kMaxSettingsEntries = 32;
// Requests whose handlers cannot start yet, beyond the streams' limit, before the connection is cut (Go's
// http2 server: 4 × MaxConcurrentStreams).
constexpr std::size_t kWaitingHandlersPerStream = 4;

using Signal = base::WakeSignal;

// Headers that describe an HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 8.2.2).
bool connection_specific(std::string_view name) {
  for (std::string_view forbidden : {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"})
    if (iequals(name, forbidden)) return true;
  return false;
}

struct StreamState {
  StreamState(std::int32_t stream_id, const asio::any_io_executor& executor) : id(stream_id), drained(executor) {}

  std::int32_t id;
  Request request;
  std::size_t header_bytes = 0;
  bool headers_too_large = false;  // answered 431, the rest of the header list ignored
  bool body_too_large = false;     // answered 413, the rest of the body ignored
  bool dispatched = false;
  bool handler_done = false;
  bool closed = false;  // by the client's reset, the end of the exchange or of the connection
  bool reset = false;   // RST_STREAM sent
  // The response body the session has not taken yet: pending[taken..].
  std::string pending;
  std::size_t taken = 0;
  std::uint64_t taken_in_all = 0;  // grows as the session takes the body: the client's progress
  bool eof = false;
  bool deferred = false;  // the session waits for resume_data
  Signal drained;         // the handler waiting for its body to be taken

  std::size_t waiting() const { return pending.size() - taken; }
};

class Http2Connection;

// A write to a stream the client reset, or on a connection that is gone: the filters take a std::system_error for
// a client that went away, with nothing to answer and nothing to log.
[[noreturn]] void stream_gone() {
  throw std::system_error(std::make_error_code(std::errc::connection_reset), "the client reset the stream");
}

class Http2Writer final : public ResponseWriter {
 public:
  Http2Writer(Http2Connection& connection, std::shared_ptr<StreamState> stream)
      : connection_(connection), stream_(std::move(stream)), head_only_(stream_->request.method == "HEAD") {}

  Headers& headers() override { return headers_; }
  asio::awaitable<void> write(int status, std::string body) override;
  asio::awaitable<void> begin_stream(int status) override;
  asio::awaitable<void> write_chunk(std::string_view data) override;
  asio::awaitable<void> end_stream() override;
  bool committed() const override { return status_ != 0; }
  int status() const override { return status_; }
  std::size_t body_bytes() const override { return body_bytes_; }

  bool streaming() const { return streaming_; }
  bool finished() const { return finished_; }

 private:
  void commit(int status) {
    if (status_ != 0) throw std::logic_error("response already committed");
    status_ = status;
  }
  // Waits until no more than `left` bytes of the body wait for the session; false when the stream is gone.
  asio::awaitable<bool> drain(std::size_t left);

  Http2Connection& connection_;
  std::shared_ptr<StreamState> stream_;
  Headers headers_;
  bool head_only_;
  int status_ = 0;
  bool streaming_ = false;
  bool finished_ = false;
  std::size_t body_bytes_ = 0;
};

class Http2Connection {
 public:
  Http2Connection(Http2Transport& transport, const ConnectionOptions& options, RequestHandler handler,
                  ConnectionRegistry& registry, std::optional<PeerCertificate> peer, std::string remote,
                  const asio::any_io_executor& executor)
      : transport_(transport), options_(options), handler_(std::move(handler)), registry_(registry),
        peer_(std::move(peer)), remote_(std::move(remote)), executor_(executor), want_write_(executor),
        done_(executor), idle_timer_(executor), write_timer_(executor) {}
  ~Http2Connection() {
    if (session_) nghttp2_session_del(session_);
  }
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;

  asio::awaitable<void> run();

  bool dead() const { return dead_; }
  // What the client's flow-control windows let the session send on `stream` now.
  std::size_t send_window(const StreamState& stream) const {
    const std::int32_t window = std::min(nghttp2_session_get_stream_remote_window_size(session_, stream.id),
                                         nghttp2_session_get_remote_window_size(session_));
    return window > 0 ? static_cast<std::size_t>(window) : 0;
  }
  Clock::duration write_stall_timeout() const { return options_.write_stall_timeout; }
  // Ends the stream with RST_STREAM (once; not after the stream closed).
  void reset(StreamState& stream, std::uint32_t error_code) {
    if (stream.closed || stream.reset || dead_) return;
    stream.reset = true;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, error_code);
    want_write_.notify();
  }
  // Sends the response head; with a body source unless the response ends with its head.
  void respond(StreamState& stream, int status, const Headers& headers, bool with_body);
  // The stream's body grew or ended: the session may take it.
  void resume(StreamState& stream) {
    if (stream.deferred && !stream.closed) {
      stream.deferred = false;
      nghttp2_session_resume_data(session_, stream.id);
    }
    want_write_.notify();
  }

 private:
  static Http2Connection& self(void* user_data) { return *static_cast<Http2Connection*>(user_data); }
  std::shared_ptr<StreamState> find(std::int32_t id) {
    auto found = streams_.find(id);
    return found == streams_.end() ? nullptr : found->second;
  }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* user_data);
  static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                           std::size_t length, void* user_data);
  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int on_stream_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user_data);
  static int on_frame_sent(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*);

  void start_session();
  void dispatch(const std::shared_ptr<StreamState>& stream);
  void start_handler(const std::shared_ptr<StreamState>& stream);
  asio::awaitable<void> serve_stream(std::shared_ptr<StreamState> stream);
  // Frees the handler's slot for a request that waits.
  void handler_ended(StreamState& stream);
  asio::awaitable<void> read_loop();
  asio::awaitable<void> write_loop();
  asio::awaitable<void> watchdog();
  void watch_write(Clock::time_point deadline);
  void go_away();
  void close_socket() { transport_.close(); }

  Http2Transport& transport_;
  const ConnectionOptions& options_;
  RequestHandler handler_;
  ConnectionRegistry& registry_;
  std::optional<PeerCertificate> peer_;
  std::string remote_;
  asio::any_io_executor executor_;
  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, std::shared_ptr<StreamState>> streams_;
  // Requests whose streams the client closed its side of while max_concurrent_streams handlers ran, in order.
  std::deque<std::shared_ptr<StreamState>> waiting_handlers_;
  Signal want_write_;
  Signal done_;  // a handler, the writer or the watchdog ended
  asio::steady_timer idle_timer_;
  asio::steady_timer write_timer_;  // closes a connection whose client takes none of a write
  bool write_timer_armed_ = false;
  std::optional<Clock::time_point> writing_since_;  // a write to the socket is in progress
  std::size_t running_handlers_ = 0;
  bool watchdog_running_ = false;
  // Read by what the registry posts here at shutdown, which may run after the connection is gone.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool dead_ = false;       // the socket failed or the session hit a protocol error
  bool going_away_ = false;  // GOAWAY sent: the streams open finish, no new one starts
  bool writer_done_ = false;
  bool cut_ = false;  // an error's GOAWAY is in the batch being written: close after it
  Clock::time_point idle_since_ = Clock::now();
};

// Http2Writer.

asio::awaitable<bool> Http2Writer::drain(std::size_t left) {
  // A client that opens no window (or reads nothing) for the stall timeout gets its stream reset: the handler and
  // its response are freed, whatever the client does with the connection.
  std::uint64_t progress = stream_->taken_in_all;
  Clock::time_point stalled_at = Clock::now() + connection_.write_stall_timeout();
  while (!stream_->closed && !connection_.dead() && stream_->waiting() > left) {
    auto woken = stream_->drained.wait_until(stalled_at);
    co_await std::move(woken);
    if (stream_->taken_in_all != progress) {
      progress = stream_->taken_in_all;
      stalled_at = Clock::now() + connection_.write_stall_timeout();
    } else if (Clock::now() >= stalled_at) {
      connection_.reset(*stream_, NGHTTP2_CANCEL);
      co_return false;
    }
  }
  co_return !stream_->closed || stream_->waiting() == 0;
}

asio::awaitable<void> Http2Writer::write(int status, std::string body) {
  commit(status);
  if (!status_allows_body(status)) body.clear();
  body_bytes_ = body.size();
  headers_.set("Content-Length", std::to_string(body.size()));
  if (head_only_) body.clear();
  finished_ = true;
  if (stream_->closed) stream_gone();
  const bool with_body = !body.empty();
  stream_->pending = std::move(body);
  stream_->eof = true;
  connection_.respond(*stream_, status, headers_, with_body);
  // A body the client's windows take whole is the session's now (the stream keeps it); only a larger one waits,
  // so that a client that never opens its window has the stream reset after the stall timeout.
  if (!with_body || stream_->waiting() <= connection_.send_window(*stream_)) co_return;
  auto draining = drain(0);  // named: g++ 12 miscompiles a co_await inside a condition
  const bool delivered = co_await std::move(draining);
  if (!delivered) stream_gone();
}

asio::awaitable<void> Http2Writer::begin_stream(int status) {
  commit(status);
  streaming_ = true;
  if (stream_->closed) stream_gone();
  connection_.respond(*stream_, status, headers_, !head_only_);
  if (head_only_) finished_ = true;
  co_return;
}

asio::awaitable<void> Http2Writer::write_chunk(std::string_view data) {
  if (!streaming_) throw std::logic_error("write_chunk outside a stream");
  if (head_only_ || data.empty()) co_return;
  if (finished_) throw std::logic_error("write_chunk after the stream ended");
  if (stream_->closed || connection_.dead()) stream_gone();
  body_bytes_ += data.size();
  stream_->pending.append(data);
  connection_.resume(*stream_);
  auto draining = drain(kPendingBytes);
  const bool delivered = co_await std::move(draining);
  if (!delivered) stream_gone();
}

asio::awaitable<void> Http2Writer::end_stream() {
  if (!streaming_ || finished_) co_return;
  finished_ = true;
  stream_->eof = true;
  connection_.resume(*stream_);
  auto draining = drain(0);
  co_await std::move(draining);
}

// Http2Connection.

void Http2Connection::respond(StreamState& stream, int status, const Headers& headers, bool with_body) {
  // nghttp2 copies names and values; HTTP/2 wants names in lower case.
  std::vector<std::string> names;
  names.reserve(headers.size() + 1);
  std::vector<nghttp2_nv> fields;
  fields.reserve(headers.size() + 2);
  const std::string status_text = std::to_string(status);
  auto add = [&](std::string_view name, std::string_view value) {
    fields.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                      NGHTTP2_NV_FLAG_NONE});
  };
  add(":status", status_text);
  bool has_date = false;
  bool close_after = false;  // "Connection: close" from a handler (--goaway-chance): GOAWAY, as Go's server does
  for (const auto& field : headers) {
    close_after = close_after || (iequals(field.name, "connection") && iequals(field.value, "close"));
    if (connection_specific(field.name)) continue;
    std::string& name = names.emplace_back(field.name);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    has_date = has_date || name == "date";
    add(name, field.value);
  }
  const std::string date = has_date ? std::string() : http_date();
  if (!has_date) add("date", date);
  nghttp2_data_provider body{};
  body.source.ptr = &stream;
  body.read_callback = &read_body;
  nghttp2_submit_response(session_, stream.id, fields.data(), fields.size(), with_body ? &body : nullptr);
  if (close_after) go_away();
  want_write_.notify();
}

ssize_t Http2Connection::read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                                   std::uint32_t* flags, nghttp2_data_source* source, void*) {
  auto& stream = *static_cast<StreamState*>(source->ptr);
  const std::size_t n = std::min(length, stream.waiting());
  std::memcpy(buffer, stream.pending.data() + stream.taken, n);
  stream.taken += n;
  stream.taken_in_all += n;
  if (stream.taken == stream.pending.size()) {
    stream.pending.clear();
    stream.taken = 0;
  }
  if (stream.waiting() <= kPendingBytes) stream.drained.notify();
  if (stream.waiting() == 0 && stream.eof) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
  if (n == 0) {
    stream.deferred = true;
    return NGHTTP2_ERR_DEFERRED;
  }
  return static_cast<ssize_t>(n);
}

int Http2Connection::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  Http2Connection& connection = self(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  auto stream = std::make_shared<StreamState>(frame->hd.stream_id, connection.executor_);
  stream->request.tls = true;
  stream->request.http2 = true;
  stream->request.remote_address = connection.remote_;
  stream->request.peer_certificate = connection.peer_;
  connection.streams_[frame->hd.stream_id] = std::move(stream);
  return 0;
}

int Http2Connection::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name_bytes,
                               std::size_t name_length, const std::uint8_t* value_bytes, std::size_t value_length,
                               std::uint8_t, void* user_data) {
  Http2Connection& connection = self(user_data);
  auto stream = connection.find(frame->hd.stream_id);
  if (!stream || stream->dispatched) return 0;  // trailers are not read, as Go's handlers do not see them late
  const std::string_view name(reinterpret_cast<const char*>(name_bytes), name_length);
  const std::string_view value(reinterpret_cast<const char*>(value_bytes), value_length);
  // Go counts each field as its name, its value and 32 bytes, against the HTTP/1.1 header limit; past it, the
  // rest of the list is decoded (HPACK's state must follow) but not kept, and the request is answered 431.
  if (stream->headers_too_large) return 0;
  stream->header_bytes += name.size() + value.size() + 32;
  if (stream->header_bytes > connection.options_.limits.max_header_bytes) {
    stream->headers_too_large = true;
    stream->request.headers = {};
    return 0;
  }
  Request& request = stream->request;
  if (name == ":method") request.method = value;
  else if (name == ":path") request.target = value;
  else if (name == ":authority") request.headers.add("Host", std::string(value));
  else if (!name.starts_with(':')) request.headers.add(std::string(name), std::string(value));
  return 0;
}

int Http2Connection::on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                                   std::size_t length, void* user_data) {
  auto stream = self(user_data).find(id);
  if (!stream || stream->dispatched || stream->body_too_large) return 0;
  std::string& body = stream->request.body;
  if (body.size() + length > self(user_data).options_.limits.max_body_bytes) {
    stream->body_too_large = true;
    body.clear();
    return 0;
  }
  body.append(reinterpret_cast<const char*>(data), length);
  return 0;
}

int Http2Connection::on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  Http2Connection& connection = self(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
  if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
  if (auto stream = connection.find(frame->hd.stream_id); stream && !stream->dispatched) connection.dispatch(stream);
  return 0;
}

int Http2Connection::on_stream_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user_data) {
  Http2Connection& connection = self(user_data);
  auto stream = connection.find(id);
  if (!stream) return 0;
  stream->closed = true;
  stream->drained.notify();
  if (stream->dispatched && !stream->handler_done) stream->request.client_gone.fire();
  if (!stream->dispatched || stream->handler_done) connection.streams_.erase(id);
  if (connection.streams_.empty()) connection.idle_since_ = Clock::now();
  return 0;
}

// At most max_concurrent_streams handlers run, as in Go's http2 server since CVE-2023-44487: a client that resets
// its streams has them closed at once, and their handlers still run once started (unlike Go's, one whose stream
// was reset before it started does not); the requests beyond wait for a handler to end, and a client that piles up
// more than kWaitingHandlersPerStream times the limit is cut off.
// A GOAWAY for an error (a protocol violation, a flood, too many resets) ends the connection once it is out, as
// Go's server closes it; nghttp2 alone would go on reading until the client's streams are over.
int Http2Connection::on_frame_sent(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR) self(user_data).cut_ = true;
  return 0;
}

void Http2Connection::dispatch(const std::shared_ptr<StreamState>& stream) {
  stream->dispatched = true;
  if (running_handlers_ < options_.http2_max_concurrent_streams) {
    start_handler(stream);
  } else if (waiting_handlers_.size() < kWaitingHandlersPerStream * options_.http2_max_concurrent_streams) {
    waiting_handlers_.push_back(stream);
  } else {
    nghttp2_session_terminate_session(session_, NGHTTP2_ENHANCE_YOUR_CALM);
    want_write_.notify();
  }
}

void Http2Connection::start_handler(const std::shared_ptr<StreamState>& stream) {
  ++running_handlers_;
  // Posted, not spawned here (co_spawn would run the handler at once, inside nghttp2's callback): the handler starts
  // after the rest of the read, and not at all when that read reset its stream, as a rapid reset's thousands of
  // streams are. Running those handlers held the reactor for the whole burst, and every connection it serves.
  asio::post(executor_, [this, stream] {
    if (stream->closed)
      handler_ended(*stream);
    else
      asio::co_spawn(executor_, serve_stream(stream), asio::detached);
  });
}

asio::awaitable<void> Http2Connection::serve_stream(std::shared_ptr<StreamState> stream) {
  Http2Writer writer(*this, stream);
  try {
    Request& request = stream->request;
    request.body.shrink_to_fit();
    if (stream->headers_too_large) {
      // Go's http2 server answers so, before any handler.
      writer.headers().set("Content-Type", "text/html; charset=utf-8");
      co_await writer.write(431, "<h1>HTTP Error 431</h1><p>Request Header Field(s) Too Large</p>");
    } else if (stream->body_too_large) {
      auto status = apierrors::request_entity_too_large("the request body is larger than " +
                                                        std::to_string(options_.limits.max_body_bytes) + " bytes");
      writer.headers().set("Content-Type", "application/json");
      co_await writer.write(status.code, apierrors::to_json(status));
    } else if (request.method.empty() || !set_request_target(request.target, request)) {
      auto status = apierrors::bad_request("malformed HTTP request: invalid :method or :path");
      writer.headers().set("Content-Type", "application/json");
      co_await writer.write(status.code, apierrors::to_json(status));
    } else {
      co_await handler_(request, writer);
      if (!writer.committed()) co_await writer.write(200, {});
      if (writer.streaming() && !writer.finished()) co_await writer.end_stream();
    }
  } catch (const std::exception&) {
    // The client reset the stream or left mid-response; a response cut short is reset, as Go's server does.
    reset(*stream, NGHTTP2_INTERNAL_ERROR);
  }
  handler_ended(*stream);
}

void Http2Connection::handler_ended(StreamState& stream) {
  stream.handler_done = true;
  if (stream.closed) streams_.erase(stream.id);
  --running_handlers_;
  while (!dead_ && !waiting_handlers_.empty() && running_handlers_ < options_.http2_max_concurrent_streams) {
    auto next = std::move(waiting_handlers_.front());
    waiting_handlers_.pop_front();
    if (!next->closed) {
      start_handler(next);
    } else {
      next->handler_done = true;  // reset by the client before its handler started: nothing to answer
      streams_.erase(next->id);
    }
  }
  done_.notify();
}

void Http2Connection::start_session() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_stream_close);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &on_frame_sent);
  nghttp2_option* limits = nullptr;
  nghttp2_option_new(&limits);
  nghttp2_option_set_stream_reset_rate_limit(limits, kResetBurst, kResetsPerSecond);
  nghttp2_option_set_max_continuations(limits, kMaxContinuations);
  nghttp2_option_set_max_outbound_ack(limits, kMaxOutboundAcks);
  nghttp2_option_set_max_settings(limits, kMaxSettingsEntries);
  nghttp2_session_server_new2(&session_, callbacks, this, limits);
  nghttp2_option_del(limits);
  nghttp2_session_callbacks_del(callbacks);
  const std::uint32_t streams = options_.http2_max_concurrent_streams;
  const std::array<nghttp2_settings_entry, 4> settings{{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(kStreamWindowBytes)},
      {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, kMaxFrameBytes},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, static_cast<std::uint32_t>(options_.limits.max_header_bytes)},
  }};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  // The connection's window holds every stream's (Go's MaxUploadBufferPerConnection, as kube sizes it).
  const auto connection_window = static_cast<std::int32_t>(
      std::min<std::int64_t>(std::int64_t{kStreamWindowBytes} * streams, std::int64_t{1} << 30));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, connection_window);
}

asio::awaitable<void> Http2Connection::run() {
  start_session();
  auto registration = registry_.add({[this, alive = alive_, executor = executor_] {
    // Shutdown: no new stream, the open ones finish (GOAWAY), as Go's server shuts an HTTP/2 connection down.
    asio::post(executor, [this, alive] {
      if (*alive && !dead_) go_away();
    });
  }});
  watchdog_running_ = true;
  asio::co_spawn(executor_, write_loop(), asio::detached);
  asio::co_spawn(executor_, watchdog(), asio::detached);
  co_await read_loop();
  dead_ = true;
  close_socket();
  waiting_handlers_.clear();
  for (auto& [id, stream] : streams_) {
    stream->closed = true;
    stream->drained.notify();
    if (stream->dispatched && !stream->handler_done) stream->request.client_gone.fire();
  }
  want_write_.notify();
  idle_timer_.cancel();
  while (running_handlers_ > 0 || !writer_done_ || watchdog_running_) co_await done_.wait();
  *alive_ = false;
  registry_.remove(registration);
}

asio::awaitable<void> Http2Connection::read_loop() {
  std::vector<std::uint8_t> buffer(kReadBufferBytes);
  for (;;) {
    asio::error_code error;
    auto reading = transport_.read_some(asio::buffer(buffer), error);  // named: no temporary in a co_await (g++ 12)
    const std::size_t n = co_await std::move(reading);
    if (error || dead_) co_return;
    const ssize_t read = nghttp2_session_mem_recv(session_, buffer.data(), n);
    // SETTINGS and PING acks, WINDOW_UPDATEs, GOAWAY on a protocol error; a request's HEADERS need no answer yet.
    if (nghttp2_session_want_write(session_)) want_write_.notify();
    if (read < 0) co_return;
  }
}

asio::awaitable<void> Http2Connection::write_loop() {
  std::string batch;
  while (!dead_) {
    batch.clear();
    const std::uint8_t* data = nullptr;
    ssize_t n = 0;
    while (batch.size() < kWriteBatchBytes && (n = nghttp2_session_mem_send(session_, &data)) > 0)
      batch.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    if (n < 0) break;
    if (!batch.empty()) {
      writing_since_ = Clock::now();
      if (!write_timer_armed_) watch_write(*writing_since_ + options_.write_stall_timeout);
      asio::error_code error;
      auto writing = transport_.write(asio::buffer(batch), error);
      co_await std::move(writing);
      writing_since_.reset();
      if (error) break;
      if (cut_) {
        // As Go's server after an error's GOAWAY (goAwayTimeout), the connection stays open a moment, still read:
        // closing it with the client's bytes unread in the socket is a reset, which can reach the client before
        // the GOAWAY does and take it away.
        asio::steady_timer linger(executor_, kGoAwayLinger);
        auto waiting = linger.async_wait(asio::experimental::as_tuple(use_awaitable));
        co_await std::move(waiting);
        break;
      }
      continue;
    }
    // Nothing to send, nothing more to read (GOAWAY done, every stream over): the connection is finished.
    if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) break;
    co_await want_write_.wait();
  }
  dead_ = true;
  close_socket();  // ends the read loop
  writer_done_ = true;
  done_.notify();
}

asio::awaitable<void> Http2Connection::watchdog() {
  while (!dead_ && !going_away_) {
    idle_timer_.expires_at(idle_since_ + options_.idle_timeout);
    co_await idle_timer_.async_wait(asio::experimental::as_tuple(use_awaitable));
    if (!dead_ && streams_.empty() && Clock::now() >= idle_since_ + options_.idle_timeout) go_away();
  }
  watchdog_running_ = false;
  done_.notify();
}

// A client that takes none of a write for the stall timeout is gone for all that matters. The timer is armed at
// most once per timeout, not per write: it looks at the write in progress when it fires.
void Http2Connection::watch_write(Clock::time_point deadline) {
  write_timer_armed_ = true;
  write_timer_.expires_at(deadline);
  write_timer_.async_wait([this, alive = alive_](const asio::error_code& error) {
    if (error || !*alive) return;
    write_timer_armed_ = false;
    if (!writing_since_) return;
    if (Clock::now() >= *writing_since_ + options_.write_stall_timeout)
      close_socket();
    else
      watch_write(*writing_since_ + options_.write_stall_timeout);
  });
}

void Http2Connection::go_away() {
  if (going_away_) return;
  going_away_ = true;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                        NGHTTP2_NO_ERROR, nullptr, 0);
  want_write_.notify();
}

// The server's transport: the TLS stream ALPN chose h2 on.
class TlsTransport final : public Http2Transport {
 public:
  explicit TlsTransport(TlsStream& stream) : stream_(stream) {}

  asio::awaitable<std::size_t> read_some(asio::mutable_buffer buffer, asio::error_code& error) override {
    auto [failure, n] = co_await stream_.async_read_some(buffer, asio::experimental::as_tuple(use_awaitable));
    error = failure;
    co_return n;
  }
  asio::awaitable<void> write(asio::const_buffer data, asio::error_code& error) override {
    auto [failure, written] = co_await asio::async_write(stream_, data, asio::experimental::as_tuple(use_awaitable));
    error = failure;
  }
  void close() override {
    asio::error_code ignored;
    stream_.lowest_layer().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    stream_.lowest_layer().close(ignored);
  }

 private:
  TlsStream& stream_;
};

}  // namespace

asio::awaitable<void> serve_http2_connection(TlsStream& stream, const ConnectionOptions& options,
                                             RequestHandler handler, ConnectionRegistry& registry,
                                             std::optional<PeerCertificate> peer, std::string remote_address) {
  TlsTransport transport(stream);
  auto serving = serve_http2_connection(transport, options, std::move(handler), registry, std::move(peer),
                                        std::move(remote_address));
  co_await std::move(serving);
}

asio::awaitable<void> serve_http2_connection(Http2Transport& transport, const ConnectionOptions& options,
                                             RequestHandler handler, ConnectionRegistry& registry,
                                             std::optional<PeerCertificate> peer, std::string remote_address) {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  Http2Connection connection(transport, options, std::move(handler), registry, std::move(peer),
                             std::move(remote_address), executor);
  co_await connection.run();
}

}  // namespace kapi::http

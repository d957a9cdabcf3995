#include "server/proxy/backend_http2.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace kapi::proxy {
namespace {

// Fields HTTP/2 forbids (RFC 9113 8.2.2), and those the session sets itself.
bool not_sent(std::string_view name) {
  for (std::string_view dropped :
       {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "content-length"})
    if (http::iequals(name, dropped)) return true;
  return false;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

struct BackendHttp2::Session {
  explicit Session(std::size_t max_headers) : max_header_bytes(max_headers) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_close);
    nghttp2_session_client_new(&session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    send_go_transport_settings(session);
  }
  ~Session() { nghttp2_session_del(session); }

  static Session& self(void* user_data) { return *static_cast<Session*>(user_data); }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* user_data) {
    Session& s = self(user_data);
    if (frame->hd.stream_id != s.stream_id || s.head_done) return 0;  // trailers are not relayed
    s.header_bytes += name_length + value_length + 32;
    if (s.header_bytes > s.max_header_bytes) {
      s.error = "net/http: server response headers exceeded " + std::to_string(s.max_header_bytes) + " bytes; aborted";
      return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    const std::string_view key(reinterpret_cast<const char*>(name), name_length);
    const std::string_view text(reinterpret_cast<const char*>(value), value_length);
    if (key == ":status") {
      s.head.status = std::atoi(std::string(text).c_str());
    } else if (!key.starts_with(':')) {
      if (key == "content-length") s.head.content_length = std::strtoull(std::string(text).c_str(), nullptr, 10);
      s.head.headers.add(std::string(key), std::string(text));
    }
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    Session& s = self(user_data);
    if (frame->hd.type == NGHTTP2_GOAWAY && !s.ended && frame->goaway.last_stream_id < s.stream_id) {
      s.error = std::string("http2: server sent GOAWAY and closed the connection; ErrCode=") +
                nghttp2_http2_strerror(frame->goaway.error_code);
      return 0;
    }
    if (frame->hd.stream_id != s.stream_id || frame->hd.type != NGHTTP2_HEADERS || s.head_done) return 0;
    if (s.head.status >= 100 && s.head.status < 200) {  // an interim response: the real one follows
      s.head = ResponseHead{};
      s.header_bytes = 0;
      return 0;
    }
    s.head_done = true;
    return 0;
  }

  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data, std::size_t length,
                     void* user_data) {
    Session& s = self(user_data);
    if (id == s.stream_id) s.body.append(reinterpret_cast<const char*>(data), length);
    return 0;
  }

  static int on_close(nghttp2_session*, std::int32_t id, std::uint32_t error_code, void* user_data) {
    Session& s = self(user_data);
    if (id != s.stream_id) return 0;
    if (error_code == NGHTTP2_NO_ERROR && s.head_done) {
      s.ended = true;
    } else if (s.error.empty()) {
      s.error = "stream error: stream ID " + std::to_string(id) + "; " + nghttp2_http2_strerror(error_code) +
                "; received from peer";
    }
    return 0;
  }

  static ssize_t read_request_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                                   std::uint32_t* flags, nghttp2_data_source* source, void*) {
    Session& s = *static_cast<Session*>(source->ptr);
    const std::size_t n = std::min(length, s.request_body.size() - s.request_body_sent);
    std::memcpy(buffer, s.request_body.data() + s.request_body_sent, n);
    s.request_body_sent += n;
    if (s.request_body_sent == s.request_body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  nghttp2_session* session = nullptr;
  std::int32_t stream_id = -1;
  std::string request_body;
  std::size_t request_body_sent = 0;
  std::size_t max_header_bytes;
  std::size_t header_bytes = 0;
  ResponseHead head;
  bool head_done = false;
  bool ended = false;
  std::string body;
  std::string error;
};

void send_go_transport_settings(nghttp2_session* session) {
  // Go's http2.Transport: 4 MiB per stream, 1 GiB for the connection.
  constexpr std::uint32_t kStreamWindowBytes = 4 << 20;
  constexpr std::int32_t kConnectionWindowBytes = 1 << 30;
  const std::array<nghttp2_settings_entry, 2> settings{{{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kStreamWindowBytes}}};
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kConnectionWindowBytes);
}

BackendHttp2::BackendHttp2(std::size_t max_header_bytes) : session_(std::make_unique<Session>(max_header_bytes)) {}

BackendHttp2::~BackendHttp2() = default;

void BackendHttp2::submit(const BackendRequest& request, std::string_view authority) {
  const std::string host = std::string(request.headers.get("Host").value_or(authority));
  const std::string path = request.target.empty() ? "/" : request.target;
  std::vector<std::string> names;
  names.reserve(request.headers.size());
  std::vector<nghttp2_nv> fields;
  fields.reserve(request.headers.size() + 5);
  auto add = [&fields](std::string_view name, std::string_view value) {
    fields.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                      NGHTTP2_NV_FLAG_NONE});
  };
  add(":method", request.method);
  add(":scheme", "https");
  add(":authority", host);
  add(":path", path);
  for (const auto& field : request.headers) {
    if (not_sent(field.name)) continue;
    add(names.emplace_back(lower(field.name)), field.value);
  }
  // Go's transport sends a length for a body, and 0 for the methods that expect one.
  const bool has_body = !request.body.empty() || request.method == "POST" || request.method == "PUT" ||
                        request.method == "PATCH";
  const std::string length = std::to_string(request.body.size());
  if (has_body) add("content-length", length);
  session_->request_body = request.body;
  nghttp2_data_provider provider{};
  provider.source.ptr = session_.get();
  provider.read_callback = &Session::read_request_body;
  // nghttp2 copies the fields; the body is read from the session as the window allows.
  session_->stream_id =
      nghttp2_submit_request(session_->session, nullptr, fields.data(), fields.size(), has_body ? &provider : nullptr,
                             nullptr);
  if (session_->stream_id < 0) session_->error = std::string("http2: ") + nghttp2_strerror(session_->stream_id);
}

std::string BackendHttp2::take_output() {
  std::string out;
  const std::uint8_t* data = nullptr;
  for (ssize_t n; (n = nghttp2_session_mem_send(session_->session, &data)) > 0;)
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  return out;
}

std::string BackendHttp2::feed(std::span<const char> bytes) {
  const ssize_t read = nghttp2_session_mem_recv(session_->session, reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                bytes.size());
  if (read < 0 && session_->error.empty()) session_->error = std::string("http2: ") + nghttp2_strerror(static_cast<int>(read));
  return session_->error;
}

bool BackendHttp2::head_done() const { return session_->head_done; }
const ResponseHead& BackendHttp2::head() const { return session_->head; }
bool BackendHttp2::ended() const { return session_->ended; }
std::string BackendHttp2::failure() const { return session_->error; }

std::string BackendHttp2::take_body() {
  std::string piece;
  piece.swap(session_->body);
  return piece;
}

}  // namespace kapi::proxy

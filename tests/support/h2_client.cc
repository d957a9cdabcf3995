#include "tests/support/h2_client.h"

#include <nghttp2/nghttp2.h>

#include <stdexcept>

namespace kapi::test_support::h2 {
namespace {

void put_u32(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

std::uint32_t get_u32(std::string_view bytes) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

// An HPACK integer with an N-bit prefix (RFC 7541 5.1), its first byte starting with `high_bits`.
std::string hpack_integer(std::uint32_t value, int prefix_bits, std::uint8_t high_bits) {
  const std::uint32_t max = (1u << prefix_bits) - 1;
  std::string out;
  if (value < max) {
    out.push_back(static_cast<char>(high_bits | value));
    return out;
  }
  out.push_back(static_cast<char>(high_bits | max));
  for (value -= max; value >= 128; value /= 128) out.push_back(static_cast<char>(value % 128 + 128));
  out.push_back(static_cast<char>(value));
  return out;
}

std::string hpack_string(std::string_view text) {
  return hpack_integer(static_cast<std::uint32_t>(text.size()), 7, 0x00) + std::string(text);
}

}  // namespace

std::uint32_t Frame::error_code() const {
  if (type == FrameType::GoAway && payload.size() >= 8) return get_u32(std::string_view(payload).substr(4));
  if (type == FrameType::RstStream && payload.size() >= 4) return get_u32(payload);
  throw std::logic_error("no error code in this frame");
}

std::string frame(FrameType type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string out;
  out.reserve(9 + payload.size());
  const auto length = static_cast<std::uint32_t>(payload.size());
  out.push_back(static_cast<char>((length >> 16) & 0xff));
  out.push_back(static_cast<char>((length >> 8) & 0xff));
  out.push_back(static_cast<char>(length & 0xff));
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>(flags));
  put_u32(out, stream & 0x7fffffff);
  out.append(payload);
  return out;
}

std::string settings(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& entries) {
  std::string payload;
  for (const auto& [id, value] : entries) {
    payload.push_back(static_cast<char>(id >> 8));
    payload.push_back(static_cast<char>(id & 0xff));
    put_u32(payload, value);
  }
  return frame(FrameType::Settings, 0, 0, payload);
}

std::string rst_stream(std::uint32_t stream, std::uint32_t error_code) {
  std::string payload;
  put_u32(payload, error_code);
  return frame(FrameType::RstStream, 0, stream, payload);
}

std::string window_update(std::uint32_t stream, std::uint32_t increment) {
  std::string payload;
  put_u32(payload, increment);
  return frame(FrameType::WindowUpdate, 0, stream, payload);
}

std::string ping(std::string_view opaque) { return frame(FrameType::Ping, 0, 0, opaque.substr(0, 8)); }

std::string literal(std::string_view name, std::string_view value) {
  return std::string(1, '\0') + hpack_string(name) + hpack_string(value);
}

std::string literal_indexed(std::string_view name, std::string_view value) {
  return std::string(1, '\x40') + hpack_string(name) + hpack_string(value);
}

std::string indexed(std::uint32_t index) { return hpack_integer(index, 7, 0x80); }

std::string request_block(std::string_view method, std::string_view path) {
  return literal(":method", method) + literal(":scheme", "https") + literal(":path", path) +
         literal(":authority", "localhost");
}

struct Client::Inflater {
  nghttp2_hd_inflater* inflater = nullptr;
  Inflater() { nghttp2_hd_inflate_new(&inflater); }
  ~Inflater() { nghttp2_hd_inflate_del(inflater); }
};

Client::Client(int port, TlsClientOptions tls, const std::vector<std::pair<std::uint16_t, std::uint32_t>>& initial)
    : connection_(port, [&] {
        tls.alpn = "h2";
        return tls;
      }()),
      inflater_(std::make_unique<Inflater>()) {
  if (connection_.negotiated_protocol() != "h2")
    throw std::runtime_error("the server did not choose h2 (ALPN: \"" + connection_.negotiated_protocol() + "\")");
  connection_.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + settings(initial));
}

Client::~Client() = default;

std::uint32_t Client::get(std::string_view path) {
  const std::uint32_t stream = take_stream();
  send(frame(FrameType::Headers, flags::kEndStream | flags::kEndHeaders, stream, request_block("GET", path)));
  return stream;
}

int Client::decode_status(std::string_view block) {
  int status = 0;
  auto* in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(block.data()));
  std::size_t left = block.size();
  for (;;) {
    nghttp2_nv field;
    int inflate_flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(inflater_->inflater, &field, &inflate_flags, in, left, 1);
    if (used < 0) throw std::runtime_error("the server's header block does not decode");
    in += used;
    left -= static_cast<std::size_t>(used);
    if (inflate_flags & NGHTTP2_HD_INFLATE_EMIT) {
      const std::string_view name(reinterpret_cast<const char*>(field.name), field.namelen);
      if (name == ":status") status = std::stoi(std::string(reinterpret_cast<const char*>(field.value), field.valuelen));
    }
    if (inflate_flags & NGHTTP2_HD_INFLATE_FINAL) {
      nghttp2_hd_inflate_end_headers(inflater_->inflater);
      return status;
    }
    if (used == 0 && left == 0) return status;
  }
}

Frame Client::read(HttpConnection::Duration timeout) {
  const std::string head = connection_.read_bytes(9, timeout);
  Frame frame;
  const std::size_t length = (static_cast<unsigned char>(head[0]) << 16) | (static_cast<unsigned char>(head[1]) << 8) |
                             static_cast<unsigned char>(head[2]);
  frame.type = static_cast<FrameType>(head[3]);
  frame.flags = static_cast<std::uint8_t>(head[4]);
  frame.stream = get_u32(std::string_view(head).substr(5)) & 0x7fffffff;
  frame.payload = connection_.read_bytes(length, timeout);
  switch (frame.type) {
    case FrameType::Settings:
      if (!(frame.flags & flags::kAck)) send(h2::frame(FrameType::Settings, flags::kAck, 0, {}));
      break;
    case FrameType::Headers:
    case FrameType::Continuation:
      // Every block is decoded, whoever reads it: HPACK's table follows all of them in order.
      header_block_ += frame.payload;
      if (frame.flags & flags::kEndHeaders) {
        const int status = decode_status(header_block_);
        if (status != 0) statuses_[frame.stream] = status;
        header_block_.clear();
      }
      break;
    case FrameType::Data:
      if (open_windows_ && !frame.payload.empty()) {
        const auto taken = static_cast<std::uint32_t>(frame.payload.size());
        send(window_update(0, taken) + window_update(frame.stream, taken));
      }
      break;
    default:
      break;
  }
  return frame;
}

std::optional<Frame> Client::read_until_goaway(HttpConnection::Duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  try {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<HttpConnection::Duration>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw ReadTimeout("no GOAWAY and no close in time");
      Frame next = read(left);
      if (next.type == FrameType::GoAway) return next;
    }
  } catch (const ConnectionClosed&) {
    return std::nullopt;
  }
}

std::pair<int, std::string> Client::read_response(std::uint32_t stream, HttpConnection::Duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string body;
  for (;;) {
    const auto left = std::chrono::duration_cast<HttpConnection::Duration>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw ReadTimeout("the response did not end in time");
    Frame next = read(left);
    if (next.stream != stream) continue;
    if (next.type == FrameType::RstStream) return {0, body};
    if (next.type == FrameType::Data) body += next.payload;
    if ((next.type == FrameType::Data || next.type == FrameType::Headers) && (next.flags & flags::kEndStream))
      return {statuses_[stream], body};
  }
}

}  // namespace kapi::test_support::h2

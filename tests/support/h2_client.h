#pragma once
// HTTP/2 spoken frame by frame (RFC 9113 sections 4 and 6, HPACK of RFC 7541), for tests that must send what no
// well-behaved client sends: resets by the thousand, endless CONTINUATIONs, floods of SETTINGS and PINGs, header
// bombs, windows that never open. Requests are encoded as plain literals; responses' header blocks are decoded
// with nghttp2's HPACK inflater, so a test can read a :status.
#include "tests/support/http_client.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::test_support::h2 {

enum class FrameType : std::uint8_t {
  Data = 0,
  Headers = 1,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  WindowUpdate = 8,
  Continuation = 9,
};

namespace flags {
inline constexpr std::uint8_t kEndStream = 0x1;
inline constexpr std::uint8_t kAck = 0x1;
inline constexpr std::uint8_t kEndHeaders = 0x4;
}  // namespace flags

// Error codes (RFC 9113 section 7).
inline constexpr std::uint32_t kNoError = 0x0;
inline constexpr std::uint32_t kProtocolError = 0x1;
inline constexpr std::uint32_t kInternalError = 0x2;
inline constexpr std::uint32_t kFlowControlError = 0x3;
inline constexpr std::uint32_t kFrameSizeError = 0x6;
inline constexpr std::uint32_t kRefusedStream = 0x7;
inline constexpr std::uint32_t kCancel = 0x8;
inline constexpr std::uint32_t kEnhanceYourCalm = 0xb;

// SETTINGS identifiers.
inline constexpr std::uint16_t kHeaderTableSize = 0x1;
inline constexpr std::uint16_t kMaxConcurrentStreams = 0x3;
inline constexpr std::uint16_t kInitialWindowSize = 0x4;
inline constexpr std::uint16_t kMaxFrameSize = 0x5;

struct Frame {
  FrameType type{};
  std::uint8_t flags = 0;
  std::uint32_t stream = 0;
  std::string payload;

  // GOAWAY's and RST_STREAM's error code.
  std::uint32_t error_code() const;
};

std::string frame(FrameType type, std::uint8_t flags, std::uint32_t stream, std::string_view payload);
std::string settings(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& entries = {});
std::string rst_stream(std::uint32_t stream, std::uint32_t error_code = kCancel);
std::string window_update(std::uint32_t stream, std::uint32_t increment);
std::string ping(std::string_view opaque = "01234567");

// HPACK fields: a literal never added to the table (6.2.2), one added to it (6.2.1), a reference to an entry (6.1).
std::string literal(std::string_view name, std::string_view value);
std::string literal_indexed(std::string_view name, std::string_view value);
std::string indexed(std::uint32_t index);
// The pseudo-header fields of a request, with the admin's headers as literals.
std::string request_block(std::string_view method, std::string_view path);

class Client {
 public:
  // Connects with ALPN "h2", sends the preface and `initial_settings`.
  Client(int port, TlsClientOptions tls,
         const std::vector<std::pair<std::uint16_t, std::uint32_t>>& initial_settings = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(std::string_view bytes) { connection_.send(bytes); }
  // A GET (or any bodiless request) on a new stream; returns its ID.
  std::uint32_t get(std::string_view path);

  // The next frame; the server's SETTINGS are acknowledged on the way. Throws ReadTimeout or ConnectionClosed.
  Frame read(HttpConnection::Duration timeout = HttpConnection::kDefaultTimeout);
  // Reads frames until GOAWAY (returned) or until the server closes the connection (std::nullopt).
  std::optional<Frame> read_until_goaway(HttpConnection::Duration timeout = HttpConnection::kDefaultTimeout);
  // Reads until the response on `stream` ends or is reset: its :status (0 when reset) and body.
  std::pair<int, std::string> read_response(std::uint32_t stream,
                                            HttpConnection::Duration timeout = HttpConnection::kDefaultTimeout);

  // By default each DATA frame read is acknowledged with WINDOW_UPDATEs; off, the windows only shrink.
  void open_windows_as_read(bool open) { open_windows_ = open; }

  HttpConnection& connection() { return connection_; }
  std::uint32_t next_stream() const { return next_stream_; }
  std::uint32_t take_stream() { return std::exchange(next_stream_, next_stream_ + 2); }

 private:
  HttpConnection connection_;
  std::uint32_t next_stream_ = 1;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
  std::map<std::uint32_t, int> statuses_;  // of the responses whose headers were read
  std::string header_block_;               // a HEADERS frame's block until its END_HEADERS
  bool open_windows_ = true;
  int decode_status(std::string_view block);
};

}  // namespace kapi::test_support::h2

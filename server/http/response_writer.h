#pragma once
// How a handler answers: either one whole response, or a stream (status, then chunks, then the end).
// Filters add headers before the response is committed; wrappers (timeout, audit) decorate a writer.
#include "server/http/headers.h"

#include <asio/awaitable.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <stdexcept>
#include <string_view>

namespace kapi::http {

// The client's connection after 101 Switching Protocols (Go's Hijack): raw bytes both ways, no HTTP framing. Valid
// until the handler that switched returns; the connection closes then.
class UpgradedStream {
 public:
  virtual ~UpgradedStream() = default;
  // The bytes the client sent after its upgrade request come first. 0 at the end of the stream or on an error.
  virtual asio::awaitable<std::size_t> read_some(std::span<char> buffer) = 0;
  // Throws when the client is gone.
  virtual asio::awaitable<void> write(std::string_view data) = 0;
  // Ends both directions now; a pending read or write fails.
  virtual void close() = 0;
};

// Whether a response of this status may carry a body (RFC 9110: not 1xx, 204 or 304).
inline bool status_allows_body(int status) {
  return !(status == 204 || status == 304 || (status >= 100 && status < 200));
}

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;

  // Headers sent with the response; a header the response itself names wins over one set here earlier,
  // except repeated fields such as Warning, which are all sent.
  virtual Headers& headers() = 0;

  // Sends a complete response with Content-Length.
  virtual asio::awaitable<void> write(int status, std::string body) = 0;

  // Starts a streamed response (chunked on HTTP/1.1).
  virtual asio::awaitable<void> begin_stream(int status) = 0;
  // Sends one piece of a streamed response right away. Throws when the client is gone.
  virtual asio::awaitable<void> write_chunk(std::string_view data) = 0;
  virtual asio::awaitable<void> end_stream() = 0;

  // Answers an upgrade request (Connection: Upgrade) with 101 Switching Protocols and headers(), which name the
  // protocol (Upgrade, Sec-WebSocket-Accept, ...), and hands the connection over. Throws std::logic_error when the
  // request was no upgrade or the connection cannot be handed over.
  virtual asio::awaitable<std::unique_ptr<UpgradedStream>> switch_protocols() {
    throw std::logic_error("this response cannot switch protocols");
  }

  virtual bool committed() const = 0;  // status line sent (or being sent): no other response is possible
  virtual int status() const = 0;      // 0 until committed
  virtual std::size_t body_bytes() const = 0;
};

// Forwards everything to an inner writer; derive from it to intercept a part.
class ResponseWriterDecorator : public ResponseWriter {
 public:
  explicit ResponseWriterDecorator(ResponseWriter& inner) : inner_(inner) {}
  Headers& headers() override { return inner_.headers(); }
  asio::awaitable<void> write(int status, std::string body) override { return inner_.write(status, std::move(body)); }
  asio::awaitable<void> begin_stream(int status) override { return inner_.begin_stream(status); }
  asio::awaitable<void> write_chunk(std::string_view data) override { return inner_.write_chunk(data); }
  asio::awaitable<void> end_stream() override { return inner_.end_stream(); }
  asio::awaitable<std::unique_ptr<UpgradedStream>> switch_protocols() override { return inner_.switch_protocols(); }
  bool committed() const override { return inner_.committed(); }
  int status() const override { return inner_.status(); }
  std::size_t body_bytes() const override { return inner_.body_bytes(); }

 protected:
  ResponseWriter& inner() { return inner_; }

 private:
  ResponseWriter& inner_;
};

}  // namespace kapi::http

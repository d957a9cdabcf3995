#pragma once
// How a handler answers: either one whole response, or a stream (status, then chunks, then the end).
// Filters add headers before the response is committed; wrappers (timeout, audit) decorate a writer.
#include "server/http/headers.h"

#include <asio/awaitable.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kapi::http {

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
  bool committed() const override { return inner_.committed(); }
  int status() const override { return inner_.status(); }
  std::size_t body_bytes() const override { return inner_.body_bytes(); }

 protected:
  ResponseWriter& inner() { return inner_; }

 private:
  ResponseWriter& inner_;
};

}  // namespace kapi::http

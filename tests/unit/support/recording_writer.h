#pragma once
// In-memory ResponseWriter and a synchronous runner, for unit tests of filters and handlers.
#include "request/exchange.h"

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>

#include <string>

namespace kapi::test_support {

class RecordingWriter final : public http::ResponseWriter {
 public:
  http::Headers& headers() override { return headers_; }
  asio::awaitable<void> write(int status, std::string body) override {
    status_ = status;
    body_ = std::move(body);
    co_return;
  }
  asio::awaitable<void> begin_stream(int status) override {
    status_ = status;
    co_return;
  }
  asio::awaitable<void> write_chunk(std::string_view data) override {
    body_.append(data);
    co_return;
  }
  asio::awaitable<void> end_stream() override { co_return; }
  bool committed() const override { return status_ != 0; }
  int status() const override { return status_; }
  std::size_t body_bytes() const override { return body_.size(); }
  const std::string& body() const { return body_; }

 private:
  http::Headers headers_;
  int status_ = 0;
  std::string body_;
};

// Runs a coroutine to completion on a private io_context; rethrows what it threw.
template <typename T>
T run_sync(asio::awaitable<T> work) {
  asio::io_context io;
  auto future = asio::co_spawn(io, std::move(work), asio::use_future);
  io.run();
  return future.get();
}

inline http::Request make_request(std::string method, std::string target) {
  http::Request request;
  request.method = std::move(method);
  request.target = target;
  auto q = target.find('?');
  request.path = target.substr(0, q);
  if (q != std::string::npos) request.raw_query = target.substr(q + 1);
  request.query = http::QueryParams::parse(request.raw_query);
  return request;
}

}  // namespace kapi::test_support

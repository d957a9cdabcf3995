// Fuzzes kapi's HTTP/2 server connection (server/http/http2_connection.h over libnghttp2) with the bytes a client
// sends after its connection preface: frames of every type, HPACK header blocks, flow control, resets and GOAWAYs,
// in any order and cut anywhere. The connection runs as the server runs it, on one io_context, over an in-memory
// transport instead of TLS: the client's bytes arrive in reads of the size the first input byte chooses (0: all at
// once), the handlers run between two reads, and the stream ends once the input does.
//
// The handler is a trivial one whose path picks what it does: echo the body, write one larger than the client's
// windows, stream chunks, wait for the client to go as a watch does, throw, or ask for the connection to close.
// Small stream, header and body limits let small inputs reach the defences (431, 413, the waiting handlers' bound).
//
// The connection must never crash, leak or hang: run() ends when the input has, with every handler done and the
// connection unregistered. Anything escaping it, a crash, a sanitizer report (leaks included) or a timeout is a
// finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include "base/wake_signal.h"
#include "server/http/http2_connection.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace http = kapi::http;

constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
// The handlers and the writer run this many times between the end of the input and the end of the stream, so that
// what the last frames started gets answered.
constexpr int kTurnsBeforeEnd = 16;

// The client's side of the connection, in memory: its bytes in reads of `read_size` (all at once when 0); of what
// the server writes only the start is kept, which must be its SETTINGS frame (RFC 9113 3.4).
class MemoryTransport final : public http::Http2Transport {
 public:
  MemoryTransport(std::string input, std::size_t read_size) : input_(std::move(input)), read_size_(read_size) {}

  asio::awaitable<std::size_t> read_some(asio::mutable_buffer buffer, asio::error_code& error) override {
    // As the network would, the reads leave the other coroutines their turns.
    const int turns = at_ < input_.size() ? 1 : kTurnsBeforeEnd;
    for (int i = 0; i < turns && !closed_; ++i)
      co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    if (closed_) {
      error = asio::error::operation_aborted;
      co_return 0;
    }
    if (at_ == input_.size()) {
      error = asio::error::eof;
      co_return 0;
    }
    std::size_t n = std::min(buffer.size(), input_.size() - at_);
    if (read_size_ != 0) n = std::min(n, read_size_);
    std::memcpy(buffer.data(), input_.data() + at_, n);
    at_ += n;
    co_return n;
  }

  asio::awaitable<void> write(asio::const_buffer data, asio::error_code& error) override {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    if (closed_) {
      error = asio::error::broken_pipe;
      co_return;
    }
    const std::size_t kept = std::min(data.size(), kFrameHeaderBytes - std::min(start_.size(), kFrameHeaderBytes));
    start_.append(static_cast<const char*>(data.data()), kept);
  }

  void close() override { closed_ = true; }

  // Whatever the server wrote starts with a SETTINGS frame on stream 0 (it may have written nothing).
  bool began_with_settings() const {
    if (start_.empty()) return true;
    return start_.size() == kFrameHeaderBytes && start_[3] == 4 && start_.substr(5) == std::string(4, '\0');
  }

 private:
  std::string input_;
  std::size_t read_size_;
  static constexpr std::size_t kFrameHeaderBytes = 9;
  std::size_t at_ = 0;
  std::string start_;
  bool closed_ = false;
};

asio::awaitable<void> handle(http::Request& request, http::ResponseWriter& writer) {
  const std::string_view path = request.path;
  if (path.starts_with("/throw")) throw std::runtime_error("the handler failed");
  if (path.starts_with("/big")) {
    // More than the client's initial windows (64 KiB): the rest waits for its WINDOW_UPDATEs.
    co_await writer.write(200, std::string(100 * 1024, 'x'));
  } else if (path.starts_with("/stream")) {
    co_await writer.begin_stream(200);
    for (int i = 0; i < 3; ++i) co_await writer.write_chunk(std::string(30 * 1024, 'y'));
    co_await writer.end_stream();
  } else if (path.starts_with("/watch")) {
    // A watch: one event, then nothing until the client goes.
    co_await writer.begin_stream(200);
    co_await writer.write_chunk("{\"type\":\"ADDED\"}\n");
    kapi::base::WakeSignal gone(co_await asio::this_coro::executor);
    request.client_gone.on_gone([&gone] { gone.notify(); });
    co_await gone.wait();
    request.client_gone.forget();
  } else {
    if (path.starts_with("/close")) writer.headers().set("Connection", "close");
    writer.headers().set("Content-Type", "text/plain");
    co_await writer.write(200, request.method + " " + request.target + "\n" + request.body);
  }
}

http::ConnectionOptions options() {
  http::ConnectionOptions options;
  options.limits.max_header_bytes = 4096;
  options.limits.max_body_bytes = 16 * 1024;
  options.http2_max_concurrent_streams = 4;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view frames(reinterpret_cast<const char*>(data) + 1, size - 1);
  MemoryTransport transport(std::string(kClientPreface) + std::string(frames), data[0]);
  static const http::ConnectionOptions kOptions = options();
  http::ConnectionRegistry registry;
  asio::io_context io;
  bool finished = false;
  auto connection = http::serve_http2_connection(transport, kOptions, handle, registry, std::nullopt, "192.0.2.1:443");
  asio::co_spawn(io, std::move(connection),
                 [&](std::exception_ptr failure) {
                   if (failure) {
                     try {
                       std::rethrow_exception(failure);
                     } catch (const std::exception& e) {
                       finding(std::string("the connection threw: ") + e.what());
                     }
                   }
                   finished = true;
                 });
  io.run();
  if (!finished) finding("the connection never finished: a coroutine waits for what never comes");
  if (registry.size() != 0) finding("the connection is still registered");
  if (!transport.began_with_settings()) finding("the server's first frame is not its SETTINGS");
  return 0;
}

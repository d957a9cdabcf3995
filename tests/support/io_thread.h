#pragma once
// An io_context running on its own thread, and a way for a test body (a plain thread) to run a coroutine on it and
// wait for the result with a time bound. The destructor lets every outstanding operation complete (no stop()):
// callbacks from other threads (gRPC) may still be on their way to this context.
#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>

#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>

namespace kapi::test_support {

class IoThread {
 public:
  IoThread() : work_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    thread_.join();
  }
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  asio::io_context& context() { return io_; }
  asio::any_io_executor executor() { return io_.get_executor(); }

  // Runs `task` on the context and returns its result (or rethrows its exception); throws std::runtime_error
  // when it takes longer than `timeout`.
  template <typename T>
  T run(asio::awaitable<T> task, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto future = asio::co_spawn(io_, std::move(task), asio::use_future);
    if (future.wait_for(timeout) != std::future_status::ready) throw std::runtime_error("coroutine timed out");
    return future.get();
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace kapi::test_support

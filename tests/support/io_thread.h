#pragma once
// An io_context running on its own thread, and a way for a test body (a plain thread) to run a coroutine on it and
// wait for the result with a time bound. The destructor lets every outstanding operation complete (no stop()):
// callbacks from other threads (gRPC) may still be on their way to this context. Work still outstanding after
// 30 s is reported and the context stopped, so a leaked operation fails loudly instead of hanging the binary.
#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace kapi::test_support {

class IoThread {
 public:
  IoThread()
      : work_(asio::make_work_guard(io_)), finished_(done_.get_future()), thread_([this] {
          io_.run();
          done_.set_value();
        }) {}
  ~IoThread() {
    work_.reset();
    if (finished_.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      std::fprintf(stderr, "IoThread: operations still outstanding 30 s after the test; stopping the context\n");
      io_.stop();
    }
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
    if (future.wait_for(timeout) == std::future_status::ready) return future.get();
    // The task still uses the caller's objects, which the throw would destroy under it: the test fails only once
    // the task is done, and a task that never finishes stops the binary with a message instead of a use after free.
    if (future.wait_for(kGraceAfterTimeout) != std::future_status::ready) {
      std::fprintf(stderr, "IoThread: a coroutine is still running %lld ms after its %lld ms timeout; aborting\n",
                   static_cast<long long>(kGraceAfterTimeout.count()), static_cast<long long>(timeout.count()));
      std::abort();
    }
    throw std::runtime_error("coroutine timed out (it finished after its " + std::to_string(timeout.count()) +
                             " ms timeout)");
  }

 private:
  static constexpr std::chrono::milliseconds kGraceAfterTimeout{60'000};

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::promise<void> done_;
  std::future<void> finished_;
  std::thread thread_;
};

}  // namespace kapi::test_support

#pragma once
// kapi's reactor: one io_context per thread (Asio's io_context-per-core, Envoy's worker per core) rather than one
// io_context run by every thread. A shared io_context hands each ready handler to whichever thread is free, so for
// every step of every request the threads wake each other and meet on its queue's lock: a GET from the cache cost
// 28 % more CPU on two threads than on one (scheduler switches, wake-ups, the queue's mutex). Here a connection
// lives on one reactor for its whole life, run by one thread, so its requests change thread only to reach a shared
// service (a store, a cache, APF, a controller), which synchronises itself as it always had to.
//
// Contract:
//  - The main reactor (the io_context the server was built on) runs everything that is not a connection: storage,
//    reflectors, controllers, timers, the shutdown sequence. It takes its turn with connections too, so it must be
//    run by run() alone (one thread), like the others.
//  - Every other reactor serves connections only and is run by exactly one thread, so what runs on it needs no
//    strand: a connection's handlers already run one at a time, in the order they were posted.
//  - run() runs the main reactor on the calling thread and each other one on a thread of its own. When the main
//    reactor stops (io_context::stop(), as the shutdown sequence ends; or it runs out of work), the others are
//    stopped and their threads joined before run() returns.
//  - Each reactor has a LowPriorityLane (low_priority_lane.h) for the work APF admitted to a limited level.
//  - Like the main io_context, the pool must outlive everything its pending work may refer to: declare it right
//    after that io_context, so that whatever a stopped reactor still holds goes with the reactors, last.
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace kapi::http {

class ReactorPool {
 public:
  // `threads` reactors in all, `main` included (at least one).
  ReactorPool(asio::io_context& main, int threads);
  ~ReactorPool();
  ReactorPool(const ReactorPool&) = delete;
  ReactorPool& operator=(const ReactorPool&) = delete;

  // The reactor the next connection runs on, each in turn. Any thread.
  asio::io_context& next();

  std::size_t size() const { return 1 + others_.size(); }

  // Blocks until the main reactor stops; see the contract above.
  void run();

 private:
  struct Reactor {
    asio::io_context io{1};  // one thread: Asio's single-threaded scheduler (still safe to post to from others)
    asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  };

  asio::io_context& main_;
  std::vector<std::unique_ptr<Reactor>> others_;
  std::atomic<std::size_t> turn_{0};
};

}  // namespace kapi::http

#include "server/http/reactor_pool.h"

#include "server/http/low_priority_lane.h"

#include <algorithm>
#include <thread>

namespace kapi::http {

ReactorPool::ReactorPool(asio::io_context& main, int threads) : main_(main) {
  for (int i = 1; i < std::max(threads, 1); ++i) others_.push_back(std::make_unique<Reactor>());
  add_low_priority_lane(main_);
  for (auto& reactor : others_) add_low_priority_lane(reactor->io);
}

ReactorPool::~ReactorPool() = default;

asio::io_context& ReactorPool::next() {
  const std::size_t turn = turn_.fetch_add(1, std::memory_order_relaxed) % size();
  return turn == 0 ? main_ : others_[turn - 1]->io;
}

void ReactorPool::run() {
  std::vector<std::thread> threads;
  threads.reserve(others_.size());
  for (auto& reactor : others_) threads.emplace_back([&io = reactor->io] { io.run(); });
  main_.run();
  for (auto& reactor : others_) {
    reactor->work.reset();
    reactor->io.stop();
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace kapi::http

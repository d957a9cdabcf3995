#include "server/lifecycle.h"

#include <asio/post.hpp>

namespace kapi::server {

bool Lifecycle::try_begin_request() {
  std::lock_guard lock(mutex_);
  if (not_accepting_) return false;
  ++in_flight_;
  return true;
}

void Lifecycle::end_request() {
  std::lock_guard lock(mutex_);
  --in_flight_;
}

std::int64_t Lifecycle::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

std::uint64_t Lifecycle::add_long_running(asio::any_io_executor executor, std::function<void()> end) {
  std::lock_guard lock(mutex_);
  auto id = next_id_++;
  if (ending_long_running_) {
    asio::post(executor, std::move(end));
    return id;
  }
  long_running_.emplace(id, std::make_pair(std::move(executor), std::move(end)));
  return id;
}

void Lifecycle::remove_long_running(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  long_running_.erase(id);
}

void Lifecycle::end_long_running_requests() {
  std::lock_guard lock(mutex_);
  ending_long_running_ = true;
  for (auto& [id, entry] : long_running_) asio::post(entry.first, entry.second);
}

std::size_t Lifecycle::long_running_count() const {
  std::lock_guard lock(mutex_);
  return long_running_.size();
}

}  // namespace kapi::server

#pragma once
// A first-in first-out queue on one ring of slots that grows by doubling, for queues that exist by the thousand
// and are mostly empty or short (a connection's pipelined requests, a watcher's pending events). libstdc++'s
// std::deque allocates a map and a 512-byte block as soon as it is constructed, and for an element of 512 bytes
// or more a block per element pushed; an empty RingQueue holds nothing, and one that has held n items keeps room
// for the most it held at once, rounded up to a power of two, so a steady queue allocates nothing.
#include <cstddef>
#include <utility>
#include <vector>

namespace kapi::base {

// T must be default-constructible and move-assignable: a slot out of use holds a default T, so a popped item
// releases what it owned at once.
template <typename T>
class RingQueue {
 public:
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return slots_.size(); }

  T& front() { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  // The i-th item from the front.
  T& operator[](std::size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }

  void push_back(T item) {
    if (size_ == slots_.size()) grow();
    (*this)[size_] = std::move(item);
    ++size_;
  }

  void pop_front() {
    slots_[head_] = T{};
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }

  // Drops every item and the room they took.
  void clear() {
    std::vector<T>().swap(slots_);
    head_ = 0;
    size_ = 0;
  }

 private:
  void grow() {
    std::vector<T> larger(slots_.empty() ? 1 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) larger[i] = std::move((*this)[i]);
    slots_ = std::move(larger);
    head_ = 0;
  }

  std::vector<T> slots_;  // a power of two of them, or none
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kapi::base

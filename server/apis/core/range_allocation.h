#pragma once
// A range of values (service cluster IPs, node ports) shared by every server on one store, as kube keeps it:
// - AllocationBitmap is kube's allocator.AllocationBitmap with its randomScanStrategyWithOffset
//   (pkg/registry/core/service/allocator/bitmap.go): offset i is bit i of a big integer, handed out at random
//   from the upper band first and from the lower band, kept for values users choose, only when the upper is full.
// - StoredRange is kube's allocator/storage.Etcd: the bitmap lives in one RangeAllocation object
//   (`/registry/ranges/serviceips`, `/registry/ranges/servicenodeports`) and every change is a compare-and-swap of
//   that object, so two servers never hand out one value. Its `data` is the integer's big-endian bytes, as Go's
//   big.Int.Bytes() writes them, so a range kube-apiserver wrote reads the same.
//
// StoredRange holds no state of its own between calls: each reads the object, changes a copy and writes it back
// if nobody wrote in between (storage's guaranteed_update), so it is safe from any thread and any server.
#include "storage/interface.h"

#include <asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::core {

class AllocationBitmap {
 public:
  AllocationBitmap(std::uint64_t size, std::uint64_t static_band);

  std::uint64_t size() const { return size_; }
  std::uint64_t used() const { return used_; }
  bool has(std::uint64_t offset) const { return offset < size_ && bits_[offset]; }
  // False when taken or out of range.
  bool allocate(std::uint64_t offset);
  std::optional<std::uint64_t> allocate_next(std::mt19937_64& random);
  void release(std::uint64_t offset);
  void for_each(const std::function<void(std::uint64_t offset)>& visit) const;

  // big.Int.Bytes() of the bitmap, and its inverse (bits past the range are dropped, as kube's Restore keeps them
  // but never hands them out).
  std::string snapshot() const;
  void restore(std::string_view bytes);

 private:
  std::uint64_t size_;
  std::uint64_t static_band_;
  std::uint64_t used_ = 0;
  std::vector<bool> bits_;
};

// kube's api.RangeAllocation: the range's text ("10.0.0.0/24", "30000-32767"), the bitmap's bytes, and the
// revision it was read at (0: not stored yet).
struct RangeSnapshot {
  std::string range;
  std::string data;
  storage::Revision revision = 0;
};
std::string encode_range_allocation(const RangeSnapshot& snapshot);
// std::nullopt when `value` is not a RangeAllocation.
std::optional<RangeSnapshot> decode_range_allocation(std::string_view value);

struct StoredRangeOptions {
  std::string key;             // "/registry/ranges/serviceips"
  std::string resource;        // "serviceipallocations", for errors
  std::string range;           // the configured range's text
  std::uint64_t size = 0;      // offsets 0..size-1
  std::uint64_t static_band = 0;
};

class StoredRange {
 public:
  StoredRange(storage::Interface& storage, StoredRangeOptions options);

  const StoredRangeOptions& options() const { return options_; }

  // Each throws StorageError when the store fails, and an Internal one ("cannot allocate resources of type
  // serviceipallocations at this time") until the range object exists: the first repair creates it.
  // False when the offset is taken (or outside the range).
  asio::awaitable<bool> allocate(std::uint64_t offset);
  // std::nullopt when the range is full.
  asio::awaitable<std::optional<std::uint64_t>> allocate_next();
  asio::awaitable<void> release(std::vector<std::uint64_t> offsets);
  // kube's dry-run allocator: what allocate / allocate_next would answer, nothing written.
  asio::awaitable<bool> available(std::uint64_t offset);
  asio::awaitable<std::optional<std::uint64_t>> next_available();

  // The stored object (revision 0 when there is none) and the repair's write of a rebuilt bitmap: created when
  // `snapshot.revision` is 0, else written only if still at that revision (ResourceVersionConflicts otherwise).
  asio::awaitable<RangeSnapshot> get();
  asio::awaitable<void> create_or_update(RangeSnapshot snapshot);

  // An empty bitmap of this range, and one holding `snapshot` (empty when the snapshot names another range).
  AllocationBitmap empty() const;
  AllocationBitmap bitmap_of(const RangeSnapshot& snapshot) const;

 private:
  // Reads the stored bitmap, lets `change` alter it (false: leave it as it was) and writes it back if it changed.
  asio::awaitable<void> update(std::function<bool(AllocationBitmap&)> change);
  asio::awaitable<AllocationBitmap> read();
  std::optional<std::uint64_t> pick_next(AllocationBitmap& bitmap);
  // Until the first repair creates the range (kube's tryUpdate on an object without a resourceVersion).
  storage::StorageError not_stored_yet() const;

  storage::Interface& storage_;
  StoredRangeOptions options_;
  std::mutex random_mutex_;
  std::mt19937_64 random_;
};

}  // namespace kapi::apis::core

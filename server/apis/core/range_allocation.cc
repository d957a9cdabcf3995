#include "server/apis/core/range_allocation.h"

#include "base/base64.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis::core {

namespace json = boost::json;

// AllocationBitmap.

AllocationBitmap::AllocationBitmap(std::uint64_t size, std::uint64_t static_band)
    : size_(size), static_band_(std::min(static_band, size)), bits_(size, false) {}

bool AllocationBitmap::allocate(std::uint64_t offset) {
  if (offset >= size_ || bits_[offset]) return false;
  bits_[offset] = true;
  ++used_;
  return true;
}

std::optional<std::uint64_t> AllocationBitmap::allocate_next(std::mt19937_64& random) {
  auto scan = [&](std::uint64_t first, std::uint64_t count) -> std::optional<std::uint64_t> {
    if (count == 0) return std::nullopt;
    const std::uint64_t start = std::uniform_int_distribution<std::uint64_t>(0, count - 1)(random);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t offset = first + (start + i) % count;
      if (allocate(offset)) return offset;
    }
    return std::nullopt;
  };
  if (used_ >= size_) return std::nullopt;
  if (auto upper = scan(static_band_, size_ - static_band_)) return upper;
  return scan(0, static_band_);
}

void AllocationBitmap::release(std::uint64_t offset) {
  if (offset >= size_ || !bits_[offset]) return;
  bits_[offset] = false;
  --used_;
}

void AllocationBitmap::for_each(const std::function<void(std::uint64_t offset)>& visit) const {
  for (std::uint64_t offset = 0; offset < size_; ++offset)
    if (bits_[offset]) visit(offset);
}

std::string AllocationBitmap::snapshot() const {
  std::uint64_t highest = size_;
  while (highest > 0 && !bits_[highest - 1]) --highest;
  std::string bytes((highest + 7) / 8, '\0');  // big-endian: bit i sits in the i/8-th byte from the end
  for (std::uint64_t offset = 0; offset < highest; ++offset)
    if (bits_[offset]) bytes[bytes.size() - 1 - offset / 8] |= static_cast<char>(1u << (offset % 8));
  return bytes;
}

void AllocationBitmap::restore(std::string_view bytes) {
  bits_.assign(size_, false);
  used_ = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto byte = static_cast<unsigned char>(bytes[bytes.size() - 1 - i]);
    for (unsigned bit = 0; bit < 8; ++bit)
      if (byte & (1u << bit)) allocate(i * 8 + bit);
  }
}

// The stored object.

std::string encode_range_allocation(const RangeSnapshot& snapshot) {
  json::object object{{"kind", "RangeAllocation"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"range", snapshot.range},
                      {"data", base::base64_encode(snapshot.data)}};
  return json::serialize(object);
}

std::optional<RangeSnapshot> decode_range_allocation(std::string_view value) {
  std::optional<json::object> object = registry::parse_json_object(value);
  if (!object) return std::nullopt;
  RangeSnapshot snapshot;
  if (const json::value* range = object->if_contains("range"); range && range->is_string())
    snapshot.range = std::string(range->as_string());
  if (const json::value* data = object->if_contains("data"); data && data->is_string()) {
    base::Base64Decoded decoded = base::base64_decode_with_error(data->as_string());
    if (decoded.corrupt_at) return std::nullopt;
    snapshot.data = std::move(decoded.bytes);
  }
  return snapshot;
}

// StoredRange.

StoredRange::StoredRange(storage::Interface& storage, StoredRangeOptions options)
    : storage_(storage), options_(std::move(options)), random_(std::random_device{}()) {}

storage::StorageError StoredRange::not_stored_yet() const {
  return storage::StorageError(storage::ErrorCode::Internal, options_.key,
                               "cannot allocate resources of type " + options_.resource + " at this time");
}

AllocationBitmap StoredRange::empty() const { return AllocationBitmap(options_.size, options_.static_band); }

AllocationBitmap StoredRange::bitmap_of(const RangeSnapshot& snapshot) const {
  AllocationBitmap bitmap = empty();
  if (snapshot.range == options_.range) bitmap.restore(snapshot.data);
  return bitmap;
}

std::optional<std::uint64_t> StoredRange::pick_next(AllocationBitmap& bitmap) {
  std::lock_guard lock(random_mutex_);
  return bitmap.allocate_next(random_);
}

asio::awaitable<void> StoredRange::update(std::function<bool(AllocationBitmap&)> change) {
  storage::TryUpdate try_update = [this, change = std::move(change)](const storage::KeyValue* current)
      -> std::optional<std::string> {
    std::optional<RangeSnapshot> stored = current ? decode_range_allocation(current->value) : std::nullopt;
    if (!stored) throw not_stored_yet();
    AllocationBitmap bitmap = bitmap_of(*stored);
    if (!change(bitmap)) return std::nullopt;
    return encode_range_allocation(RangeSnapshot{options_.range, bitmap.snapshot()});
  };
  storage::PreconditionCheck no_preconditions;
  storage::WriteOptions write_options;
  auto pending = storage_.guaranteed_update(options_.key, true, std::move(no_preconditions), std::move(try_update),
                                            write_options);
  co_await std::move(pending);
}

asio::awaitable<bool> StoredRange::allocate(std::uint64_t offset) {
  bool taken = false;
  auto pending = update([&](AllocationBitmap& bitmap) { return taken = bitmap.allocate(offset); });
  co_await std::move(pending);
  co_return taken;
}

asio::awaitable<std::optional<std::uint64_t>> StoredRange::allocate_next() {
  std::optional<std::uint64_t> taken;
  auto pending = update([&](AllocationBitmap& bitmap) { return (taken = pick_next(bitmap)).has_value(); });
  co_await std::move(pending);
  co_return taken;
}

asio::awaitable<void> StoredRange::release(std::vector<std::uint64_t> offsets) {
  if (offsets.empty()) co_return;
  auto pending = update([&](AllocationBitmap& bitmap) {
    const std::uint64_t before = bitmap.used();
    for (std::uint64_t offset : offsets) bitmap.release(offset);
    return bitmap.used() != before;
  });
  co_await std::move(pending);
}

asio::awaitable<AllocationBitmap> StoredRange::read() {
  RangeSnapshot snapshot = co_await get();
  if (snapshot.revision == 0) throw not_stored_yet();
  co_return bitmap_of(snapshot);
}

asio::awaitable<bool> StoredRange::available(std::uint64_t offset) {
  AllocationBitmap bitmap = co_await read();
  co_return bitmap.allocate(offset);
}

asio::awaitable<std::optional<std::uint64_t>> StoredRange::next_available() {
  AllocationBitmap bitmap = co_await read();
  co_return pick_next(bitmap);
}

asio::awaitable<RangeSnapshot> StoredRange::get() {
  storage::GetOptions options{.ignore_not_found = true};
  auto pending = storage_.get(options_.key, options);
  std::optional<storage::KeyValue> current = co_await std::move(pending);
  if (!current) co_return RangeSnapshot{};
  std::optional<RangeSnapshot> snapshot = decode_range_allocation(current->value);
  if (!snapshot) snapshot.emplace();  // unreadable: the repair writes it anew
  snapshot->revision = current->mod_revision;
  co_return *snapshot;
}

asio::awaitable<void> StoredRange::create_or_update(RangeSnapshot snapshot) {
  std::string value = encode_range_allocation(snapshot);
  storage::WriteOptions write_options;
  if (snapshot.revision == 0) {
    auto creating = storage_.create(options_.key, std::move(value), write_options);
    try {
      co_await std::move(creating);
    } catch (const storage::StorageError& error) {
      if (error.code() != storage::ErrorCode::KeyExists) throw;
      throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, options_.key,
                                  "the provided resource version does not match");
    }
    co_return;
  }
  storage::PreconditionCheck unchanged = [&](const storage::KeyValue& latest) {
    if (latest.mod_revision != snapshot.revision)
      throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, options_.key,
                                  "the provided resource version does not match");
  };
  storage::TryUpdate replace = [&value](const storage::KeyValue*) -> std::optional<std::string> { return value; };
  auto updating = storage_.guaranteed_update(options_.key, false, std::move(unchanged), std::move(replace),
                                             write_options);
  co_await std::move(updating);
}

}  // namespace kapi::apis::core

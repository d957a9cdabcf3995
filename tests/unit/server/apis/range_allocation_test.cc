// The stored ranges as kube keeps them: the bitmap's bytes as Go's big.Int writes them, the RangeAllocation object,
// allocation by compare-and-swap from two servers, and the repair's write refused when the range moved since.
#include "server/apis/core/range_allocation.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace kapi::apis::core::range_allocation_test {
namespace {

TEST(AllocationBitmapTest, BytesAreGoBigIntBytes) {
  AllocationBitmap bitmap(256, 16);
  EXPECT_EQ(bitmap.snapshot(), "");  // big.NewInt(0).Bytes()
  bitmap.allocate(0);
  bitmap.allocate(9);
  EXPECT_EQ(bitmap.snapshot(), std::string("\x02\x01", 2));  // 1<<9 | 1<<0, big-endian, no leading zero bytes
  bitmap.allocate(255);
  EXPECT_EQ(bitmap.snapshot().size(), 32u);
  EXPECT_EQ(static_cast<unsigned char>(bitmap.snapshot().front()), 0x80);

  AllocationBitmap restored(256, 16);
  restored.restore(bitmap.snapshot());
  EXPECT_EQ(restored.used(), 3u);
  EXPECT_TRUE(restored.has(0) && restored.has(9) && restored.has(255));
  EXPECT_FALSE(restored.allocate(9));
}

TEST(AllocationBitmapTest, NextValuesComeFromTheUpperBandUntilItIsFull) {
  AllocationBitmap bitmap(32, 16);
  std::mt19937_64 random(7);
  std::set<std::uint64_t> taken;
  for (int i = 0; i < 16; ++i) taken.insert(*bitmap.allocate_next(random));
  EXPECT_EQ(*taken.begin(), 16u);  // offsets 0..15 are kept for values users choose
  for (int i = 0; i < 16; ++i) taken.insert(*bitmap.allocate_next(random));
  EXPECT_EQ(taken.size(), 32u);
  EXPECT_FALSE(bitmap.allocate_next(random));
}

TEST(RangeAllocationTest, StoredAsKubesRangeAllocation) {
  const std::string encoded = encode_range_allocation({"10.0.0.0/24", std::string("\x02\x01", 2), 0});
  EXPECT_EQ(encoded,
            R"({"kind":"RangeAllocation","apiVersion":"v1","metadata":{"creationTimestamp":null},)"
            R"("range":"10.0.0.0/24","data":"AgE="})");
  std::optional<RangeSnapshot> decoded = decode_range_allocation(encoded);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->range, "10.0.0.0/24");
  EXPECT_EQ(decoded->data, std::string("\x02\x01", 2));
  EXPECT_FALSE(decode_range_allocation("not json"));
}

class StoredRangeTest : public ::testing::Test {
 protected:
  StoredRangeTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
  }
  StoredRangeOptions range_options() const {
    return {.key = "/registry/ranges/servicenodeports", .resource = "servicenodeportallocations",
            .range = "30000-30039", .size = 40, .static_band = 16};
  }

  test_support::TempDir dir_{"kapi-range-allocation"};
  test_support::IoThread io_;
  std::unique_ptr<storage::embedded::Store> backend_;
};

TEST_F(StoredRangeTest, NothingIsHandedOutBeforeTheRangeIsStored) {
  StoredRange range(*backend_, range_options());
  try {
    io_.run(range.allocate_next());
    ADD_FAILURE() << "allocated from a range that is not stored";
  } catch (const storage::StorageError& error) {
    EXPECT_STREQ(error.what(), "cannot allocate resources of type servicenodeportallocations at this time");
  }
  EXPECT_EQ(io_.run(range.get()).revision, 0);
}

TEST_F(StoredRangeTest, TwoServersShareOneBitmap) {
  StoredRange one(*backend_, range_options());
  StoredRange two(*backend_, range_options());
  test_support::IoThread other_io;
  io_.run(one.create_or_update(RangeSnapshot{"30000-30039", "", 0}));
  std::set<std::uint64_t> taken;
  for (int i = 0; i < 20; ++i) {
    taken.insert(*io_.run(one.allocate_next()));
    taken.insert(*other_io.run(two.allocate_next()));
  }
  EXPECT_EQ(taken.size(), 40u);
  EXPECT_FALSE(io_.run(one.allocate_next()));  // full
  EXPECT_FALSE(other_io.run(two.allocate(3)));
  other_io.run(two.release({3}));
  EXPECT_TRUE(io_.run(one.available(3)));
  EXPECT_TRUE(io_.run(one.allocate(3)));
  EXPECT_FALSE(other_io.run(two.available(3)));
}

TEST_F(StoredRangeTest, ARepairsWriteLosesToAnAllocationSinceItsRead) {
  StoredRange range(*backend_, range_options());
  io_.run(range.create_or_update(RangeSnapshot{"30000-30039", "", 0}));
  // A second server's first repair finds the range created meanwhile.
  try {
    io_.run(range.create_or_update(RangeSnapshot{"30000-30039", "", 0}));
    ADD_FAILURE() << "created twice";
  } catch (const storage::StorageError& error) {
    EXPECT_EQ(error.code(), storage::ErrorCode::ResourceVersionConflicts);
  }
  RangeSnapshot read = io_.run(range.get());
  io_.run(range.allocate(5));
  try {
    io_.run(range.create_or_update(read));
    ADD_FAILURE() << "the repair overwrote an allocation";
  } catch (const storage::StorageError& error) {
    EXPECT_EQ(error.code(), storage::ErrorCode::ResourceVersionConflicts);
  }
  EXPECT_FALSE(io_.run(range.available(5)));
}

}  // namespace
}  // namespace kapi::apis::core::range_allocation_test

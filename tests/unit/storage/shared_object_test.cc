// The encoding cache that a watch cache's objects and events share with every reader: each format is encoded
// once, and readers on any thread get the very same bytes.
#include "storage/shared_object.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace kapi::storage::shared_object_test {
namespace {

TEST(EncodingCacheTest, EncodesEachFormatOnceAndSharesTheBytes) {
  EncodingCache cache;
  EXPECT_EQ(cache.find("json"), nullptr);
  int encoded = 0;
  auto json = cache.get_or_encode("json", [&] { return ++encoded, std::string("{}"); });
  auto again = cache.get_or_encode("json", [&] { return ++encoded, std::string("other"); });
  auto protobuf = cache.get_or_encode("protobuf", [&] { return ++encoded, std::string("k8s\0", 4); });
  EXPECT_EQ(encoded, 2);
  EXPECT_EQ(*json, "{}");
  EXPECT_EQ(json.get(), again.get());
  EXPECT_EQ(cache.find("json").get(), json.get());
  EXPECT_EQ(*protobuf, std::string("k8s\0", 4));
  EXPECT_EQ(cache.find("json;as=Table"), nullptr);
}

TEST(EncodingCacheTest, BytesOutliveTheCache) {
  std::shared_ptr<const std::string> kept;
  {
    EncodingCache cache;
    kept = cache.get_or_encode("json", [] { return std::string("{\"kind\":\"ConfigMap\"}"); });
  }
  EXPECT_EQ(*kept, "{\"kind\":\"ConfigMap\"}");
}

TEST(EncodingCacheTest, RacingReadersAllGetTheFirstStoredBytes) {
  EncodingCache cache;
  constexpr int kThreads = 8;
  constexpr int kFormats = 16;
  std::atomic<bool> go = false;
  std::vector<std::vector<const std::string*>> seen(kThreads, std::vector<const std::string*>(kFormats));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      for (int f = 0; f < kFormats; ++f) {
        const std::string format = "format-" + std::to_string(f);
        seen[t][f] = cache.get_or_encode(format, [&] { return format + " by " + std::to_string(t); }).get();
      }
    });
  }
  go = true;
  for (auto& thread : threads) thread.join();
  for (int f = 0; f < kFormats; ++f) {
    const auto stored = cache.find("format-" + std::to_string(f));
    ASSERT_NE(stored, nullptr);
    EXPECT_TRUE(stored->starts_with("format-" + std::to_string(f) + " by "));
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(seen[t][f], stored.get()) << "format " << f << " thread " << t;
  }
}

}  // namespace
}  // namespace kapi::storage::shared_object_test

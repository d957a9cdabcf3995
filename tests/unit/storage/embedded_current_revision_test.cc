// The embedded store's current revision covers every write a read can already see. A consistent LIST from the
// watch cache waits for the cache to reach current_revision(); a revision older than a write a GET has returned
// lets that LIST answer without the write, after the GET (the linearizability test found it: a LIST begun after two
// GETs had returned an object at 531 answered the state at 530).
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace kapi::storage::embedded::embedded_current_revision_test {
namespace {

using test_support::IoThread;

// The revision of a GET, and then the store's current revision. A plain function, not a lambda: g++ 12 destroys
// the by-value arguments of a lambda coroutine called in place twice.
asio::awaitable<std::pair<Revision, Revision>> read_then_ask(Store& store, const std::string& key) {
  auto get = store.get(key, GetOptions{});
  const std::optional<KeyValue> object = co_await std::move(get);
  auto ask = store.current_revision();
  const Revision current = co_await std::move(ask);
  co_return std::pair{object->mod_revision, current};
}

TEST(EmbeddedCurrentRevisionTest, CoversEveryWriteAReadHasSeen) {
  test_support::TempDir dir("kapi-embedded-revision");
  std::unique_ptr<Store> store = Store::open({.data_dir = dir.path() / "data"});
  constexpr int kWriters = 4;
  constexpr int kWritesEach = 300;
  auto key = [](int writer) { return "/registry/configmaps/default/k" + std::to_string(writer); };
  {
    IoThread io;
    for (int writer = 0; writer < kWriters; ++writer) io.run(store->create(key(writer), "0", {}));
  }

  // Writers commit in groups while readers read each key and then ask for the current revision: a write is
  // visible to reads from its commit on, so the revision asked afterwards must include it.
  std::atomic<int> writers_done = 0;
  std::vector<std::thread> threads;
  for (int writer = 0; writer < kWriters; ++writer) {
    threads.emplace_back([&, writer] {
      IoThread io;
      for (int n = 1; n <= kWritesEach; ++n) {
        TryUpdate write = [n](const KeyValue*) { return std::optional<std::string>(std::to_string(n)); };
        io.run(store->guaranteed_update(key(writer), false, nullptr, write, {}));
      }
      ++writers_done;
    });
  }
  std::atomic<int> reads = 0;
  std::atomic<int> behind = 0;
  std::string first_behind;
  std::mutex first_mutex;
  for (int reader = 0; reader < 2; ++reader) {
    threads.emplace_back([&, reader] {
      IoThread io;
      for (int n = reader; writers_done < kWriters; ++n) {
        const std::string read_key = key(n % kWriters);
        const auto read = io.run(read_then_ask(*store, read_key));
        ++reads;
        if (read.second < read.first && behind++ == 0) {
          std::lock_guard lock(first_mutex);
          first_behind = "read at " + std::to_string(read.first) + ", then current revision " +
                         std::to_string(read.second);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(reads, 0);
  EXPECT_EQ(behind, 0) << behind << " of " << reads << " reads saw a write the current revision did not cover; first: "
                       << first_behind;
}

}  // namespace
}  // namespace kapi::storage::embedded::embedded_current_revision_test

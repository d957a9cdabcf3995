// registry::reflect over the Store and the embedded backend: a list hands over every object with its
// resourceVersion, watch events follow, a follower's trim keeps only what it reads, in both, and a follower of
// changes alone gets no list.
#include "base/log.h"
#include "base/stop_signal.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <mutex>
#include <thread>

namespace kapi::registry::reflector_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const ResourceDefinition kGadgets{
    .group = "example.com", .version = "v1", .resource = "gadgets", .kind = "Gadget", .singular = "gadget"};

class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    store_ = std::make_unique<Store>(kGadgets, std::make_shared<Strategy>(), *backend_);
  }
  ~ReflectorTest() override { stop_->request(); }

  std::string create(std::string_view name) {
    json::object gadget{{"metadata", json::object{{"name", name}, {"labels", json::object{{"a", "b"}}}}},
                        {"spec", json::object{{"size", 1}}}};
    return io_.run(store_->create("ns", std::move(gadget), WriteOptions{}));
  }
  // Follows the gadgets with `options` on the I/O thread, recording what the handlers get as JSON.
  void follow(ReflectorOptions options, bool with_list = true) {
    ReflectorHandlers handlers;
    if (with_list) handlers.replace = [this](std::vector<json::object> objects, storage::Revision) -> asio::awaitable<void> {
      std::lock_guard lock(mutex_);
      for (const auto& object : objects) listed_.push_back(json::serialize(object));
      co_return;
    };
    handlers.apply = [this](const storage::WatchEvent&, json::object object) -> asio::awaitable<void> {
      std::lock_guard lock(mutex_);
      watched_.push_back(json::serialize(object));
      co_return;
    };
    asio::co_spawn(io_.executor(), reflect(*store_, std::move(handlers), std::move(options), stop_, logger_),
                   asio::detached);
  }
  // What the handlers recorded once `count` objects were listed and watched, at most 5 s.
  std::pair<std::vector<std::string>, std::vector<std::string>> recorded(std::size_t listed, std::size_t watched) {
    for (auto deadline = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < deadline;) {
      {
        std::lock_guard lock(mutex_);
        if (listed_.size() >= listed && watched_.size() >= watched) break;
      }
      std::this_thread::sleep_for(5ms);
    }
    std::lock_guard lock(mutex_);
    return {listed_, watched_};
  }

  test_support::TempDir dir_{"kapi-registry-reflector"};
  test_support::IoThread io_;
  base::Logger logger_{-1};
  std::shared_ptr<base::StopSignal> stop_ = std::make_shared<base::StopSignal>();
  std::unique_ptr<storage::embedded::Store> backend_;
  std::unique_ptr<Store> store_;
  std::mutex mutex_;
  std::vector<std::string> listed_, watched_;
};

TEST_F(ReflectorTest, AListHandsOverEveryObjectAsAGetServesIt) {
  const std::string stored = create("one");
  follow({"gadgets"});
  auto [listed, watched] = recorded(1, 0);
  ASSERT_EQ(listed.size(), 1u);
  // The object as the list serves it: metadata.resourceVersion included.
  EXPECT_EQ(parse_json(listed[0]), parse_json(stored));
  EXPECT_FALSE(meta_string(parse_json(listed[0]).as_object(), "resourceVersion").empty());
}

TEST_F(ReflectorTest, ATrimKeepsOnlyWhatTheFollowerReadsInListsAndEvents) {
  create("one");
  ReflectorOptions options{"gadgets"};
  options.trim = [](json::object& object) { object = json::object{{"name", meta_string(object, "name")}}; };
  follow(std::move(options));
  recorded(1, 0);
  create("two");
  auto [listed, watched] = recorded(1, 1);
  EXPECT_EQ(listed, std::vector<std::string>{R"({"name":"one"})"});
  EXPECT_EQ(watched, std::vector<std::string>{R"({"name":"two"})"});
}

TEST_F(ReflectorTest, AFollowerOfChangesAloneGetsOnlyChanges) {
  create("before");
  follow({"gadgets"}, false);
  // Created until one is watched: the first may land before the reflector's list, and is then not a change.
  std::vector<std::string> watched;
  for (int i = 0; watched.empty() && i < 100; ++i) {
    create("after-" + std::to_string(i));
    watched = recorded(0, 1).second;
  }
  ASSERT_FALSE(watched.empty());
  for (const std::string& object : watched) EXPECT_TRUE(object.find("\"after-") != std::string::npos) << object;
  EXPECT_TRUE(recorded(0, 0).first.empty());
}

TEST_F(ReflectorTest, AWatchTooOldForItsListListsAgainAtOnce) {
  create("one");
  // The first list's revision is compacted away before its watch starts, as when a watch cache that was
  // initialising when the list was served starts its history later: the watch is refused as too old.
  int lists = 0;
  ReflectorHandlers handlers;
  handlers.replace = [this, &lists](std::vector<json::object>, storage::Revision) -> asio::awaitable<void> {
    if (++lists > 1) co_return;
    std::string last;
    for (const char* name : {"two", "three"}) {  // the watch starts after the list, so two revisions go
      auto creating = store_->create("ns", json::object{{"metadata", json::object{{"name", name}}}}, WriteOptions{});
      last = co_await std::move(creating);
    }
    const std::string revision(meta_string(parse_json(last).as_object(), "resourceVersion"));
    auto compacting = backend_->compact(std::stoll(revision));
    co_await std::move(compacting);
  };
  handlers.apply = [](const storage::WatchEvent&, json::object) -> asio::awaitable<void> { co_return; };
  ReflectorOptions options{"gadgets"};
  options.relist_delay = std::chrono::hours(1);
  asio::co_spawn(io_.executor(), reflect(*store_, std::move(handlers), std::move(options), stop_, logger_),
                 asio::detached);
  // Not after relist_delay: the second list follows the refused watch at once.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (io_.run([&lists]() -> asio::awaitable<int> { co_return lists; }()) < 2 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(io_.run([&lists]() -> asio::awaitable<int> { co_return lists; }()), 2);
}

}  // namespace
}  // namespace kapi::registry::reflector_test

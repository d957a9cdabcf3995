// registry::Informer over the Store and the embedded backend: what a reader sees before it is started and before
// its first list is in (the store as listed now, version 0), then every create, update and delete followed in
// key order under a version that moves with each change, and the reflector ending once `stopping` is set.
#include "base/log.h"
#include "server/registry/informer.h"
#include "server/registry/object_meta.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace kapi::registry::informer_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const ResourceDefinition kGadgets{
    .group = "example.com", .version = "v1", .resource = "gadgets", .kind = "Gadget", .singular = "gadget"};

json::object gadget(std::string_view name, int size = 1) {
  return {{"metadata", json::object{{"name", name}}}, {"spec", json::object{{"size", size}}}};
}

class InformerTest : public ::testing::Test {
 protected:
  InformerTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    store_ = std::make_unique<Store>(kGadgets, std::make_shared<Strategy>(), *backend_);
  }
  ~InformerTest() override { stopping_->store(true); }

  void create(const std::string& namespace_, json::object object) {
    io_.run(store_->create(namespace_, std::move(object), WriteOptions{}));
  }
  // "namespace/name:size" of each object, in the informer's order.
  static std::vector<std::string> described(const Informer::Objects& objects) {
    std::vector<std::string> out;
    for (const json::object& object : objects.items)
      out.push_back(std::string(meta_string(object, "namespace")) + "/" + std::string(meta_string(object, "name")) +
                    ":" + json::serialize(object.at("spec").at("size")));
    return out;
  }
  // The informer's synced objects once `wanted` holds for them, at most 5 s.
  std::shared_ptr<const Informer::Objects> until(const Informer& informer,
                                                 const std::function<bool(const Informer::Objects&)>& wanted) {
    std::shared_ptr<const Informer::Objects> objects;
    for (auto deadline = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < deadline;) {
      objects = informer.synced();
      if (objects && wanted(*objects)) break;
      std::this_thread::sleep_for(5ms);
    }
    return objects;
  }

  test_support::TempDir dir_{"kapi-registry-informer"};
  test_support::IoThread io_;
  base::Logger logger_{-1};
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  std::unique_ptr<storage::embedded::Store> backend_;
  std::unique_ptr<Store> store_;
};

TEST_F(InformerTest, UnstartedItListsTheStoreEachTimeUnderVersionZero) {
  Informer informer(store_.get());
  EXPECT_EQ(informer.synced(), nullptr);
  create("b", gadget("one"));
  create("a", gadget("two"));
  std::shared_ptr<const Informer::Objects> objects = io_.run(informer.objects());
  EXPECT_EQ(objects->version, 0u);
  EXPECT_EQ(described(*objects), (std::vector<std::string>{"a/two:1", "b/one:1"}));
  create("a", gadget("three"));
  EXPECT_EQ(described(*io_.run(informer.objects())), (std::vector<std::string>{"a/three:1", "a/two:1", "b/one:1"}));
}

TEST_F(InformerTest, FollowsEveryChangeInKeyOrderWithAMovingVersion) {
  create("default", gadget("kept"));
  Informer informer(store_.get());
  informer.start(io_.executor(), stopping_, logger_, "gadgets");
  std::shared_ptr<const Informer::Objects> listed =
      until(informer, [](const Informer::Objects& objects) { return objects.items.size() == 1; });
  ASSERT_NE(listed, nullptr);
  EXPECT_GT(listed->version, 0u);
  EXPECT_EQ(described(*listed), std::vector<std::string>{"default/kept:1"});
  // Reads between changes share one snapshot.
  EXPECT_EQ(io_.run(informer.objects()), informer.synced());

  create("default", gadget("added"));
  io_.run(store_->update("default", "kept", [](const json::object* current) {
    json::object object = *current;
    object["spec"].as_object()["size"] = 2;
    return object;
  }, WriteOptions{}));
  std::shared_ptr<const Informer::Objects> changed = until(informer, [](const Informer::Objects& objects) {
    return objects.items.size() == 2 && objects.items.back().at("spec").at("size") == 2;
  });
  EXPECT_EQ(described(*changed), (std::vector<std::string>{"default/added:1", "default/kept:2"}));
  EXPECT_GT(changed->version, listed->version);

  io_.run(store_->remove("default", "added", DeleteOptions{}));
  std::shared_ptr<const Informer::Objects> removed =
      until(informer, [](const Informer::Objects& objects) { return objects.items.size() == 1; });
  EXPECT_EQ(described(*removed), std::vector<std::string>{"default/kept:2"});
  EXPECT_GT(removed->version, changed->version);
}

TEST_F(InformerTest, WithoutAStoreThereIsNothing) {
  Informer informer(nullptr);
  informer.start(io_.executor(), stopping_, logger_, "nothing");
  EXPECT_EQ(informer.synced(), nullptr);
  EXPECT_TRUE(io_.run(informer.objects())->items.empty());
}

}  // namespace
}  // namespace kapi::registry::informer_test

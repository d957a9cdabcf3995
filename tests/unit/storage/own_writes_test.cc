// The ledger of this process's writes on etcd (storage/etcd3/own_writes.h): an interval of revisions is proven
// quiet under a prefix only when each of its revisions is a recorded write elsewhere.
#include "storage/etcd3/own_writes.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

namespace kapi::storage::etcd3::own_writes_test {
namespace {

void record(OwnWrites& ledger, std::initializer_list<std::pair<Revision, std::string>> writes) {
  for (const auto& [revision, key] : writes) ledger.record(revision, key);
}

TEST(OwnWritesTest, AnIntervalIsQuietUnderAPrefixOnlyWhenEveryRevisionIsOursElsewhere) {
  OwnWrites writes;
  record(writes, {{11, "/registry/leases/kube-system/a"},
                  {12, "/registry/masterleases/10.0.0.1"},
                  {14, "/registry/configmaps/shop/x"},
                  {15, "/registry/leases/kube-system/a"}});

  EXPECT_TRUE(writes.only_outside("/registry/configmaps/", 10, 10)) << "nothing happened";
  EXPECT_TRUE(writes.only_outside("/registry/configmaps/", 10, 12));
  EXPECT_FALSE(writes.only_outside("/registry/configmaps/", 10, 13)) << "13 is another writer's";
  EXPECT_FALSE(writes.only_outside("/registry/configmaps/", 13, 15)) << "14 is under the prefix";
  EXPECT_TRUE(writes.only_outside("/registry/configmaps/", 14, 15)) << "only 15 is after 14, and it is elsewhere";
  EXPECT_FALSE(writes.only_outside("/registry/configmaps/", 12, 14)) << "14 is under the prefix (and 13 missing)";
  EXPECT_TRUE(writes.only_outside("/registry/configmaps/other/", 13, 15)) << "14 is in another namespace";
  EXPECT_FALSE(writes.only_outside("/registry/configmaps/shop/", 13, 15)) << "14 is under this one";
  EXPECT_TRUE(writes.only_outside("/registry/secrets/", 14, 15));
  EXPECT_FALSE(writes.only_outside("/registry/secrets/", 15, 16)) << "a revision past the ledger";
}

// What a consistent LIST from the cache needs when some of the interval's writes are under its prefix: the
// newest of them, which the cache must have reached before its state is the backend's.
TEST(OwnWritesTest, TheNewestWriteUnderAPrefixIsKnownOnlyWhenEveryRevisionIsOurs) {
  OwnWrites writes;
  record(writes, {{11, "/registry/configmaps/shop/x"},
                  {12, "/registry/leases/kube-system/a"},
                  {13, "/registry/configmaps/shop/y"},
                  {14, "/registry/leases/kube-system/a"},
                  {16, "/registry/configmaps/shop/z"}});

  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 10, 14), 13);
  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 10, 12), 11);
  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 13, 14), 13) << "none after 13: the start";
  EXPECT_EQ(writes.newest_under("/registry/secrets/", 10, 14), 10);
  EXPECT_EQ(writes.newest_under("/registry/secrets/", 14, 14), 14) << "an empty interval";
  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 10, 16), std::nullopt) << "15 is another writer's";
  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 15, 16), 16);
  EXPECT_EQ(writes.newest_under("/registry/configmaps/", 9, 14), std::nullopt) << "10 is not recorded";
}

TEST(OwnWritesTest, OnlyTheLastWritesAreKept) {
  OwnWrites writes;
  for (Revision revision = 1; revision <= static_cast<Revision>(OwnWrites::kCapacity) + 10; ++revision)
    writes.record(revision, "/registry/leases/x");
  EXPECT_FALSE(writes.only_outside("/registry/pods/", 0, 20)) << "the oldest were dropped";
  EXPECT_TRUE(writes.only_outside("/registry/pods/", 20, static_cast<Revision>(OwnWrites::kCapacity) + 10));
}

}  // namespace
}  // namespace kapi::storage::etcd3::own_writes_test

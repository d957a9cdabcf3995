// The garbage collector's graph and its decisions on observed changes (kube's graph_builder.go
// processGraphChanges and its garbagecollector_test.go cases for virtual nodes and invalid owner references).
#include "server/controllers/garbage_collector/graph_builder.h"
#include "server/controllers/garbage_collector/work_queue.h"

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <algorithm>

namespace kapi::controllers::garbage_collector::graph_builder_test {
namespace {

OwnerReference owner_ref(std::string name, std::string uid, std::optional<bool> block = std::nullopt,
                         std::string kind = "ConfigMap", std::string api_version = "v1") {
  return {std::move(api_version), std::move(kind), std::move(name), std::move(uid), std::nullopt, block};
}

ObjectReference identity(std::string name, std::string uid, std::string namespace_ = "ns",
                         std::string kind = "ConfigMap", std::string api_version = "v1") {
  return {std::move(api_version), std::move(kind), std::move(name), std::move(uid), std::move(namespace_)};
}

GraphEvent added(ObjectReference who, std::vector<OwnerReference> owners = {}) {
  GraphEvent event;
  event.type = GraphEvent::Type::Add;
  event.identity = std::move(who);
  event.owners = std::move(owners);
  return event;
}

bool holds(const std::vector<NodePtr>& nodes, std::string_view uid) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const NodePtr& node) { return node->identity.uid == uid; });
}

class GraphBuilderTest : public ::testing::Test {
 protected:
  std::shared_ptr<AbsentOwnerCache> absent = std::make_shared<AbsentOwnerCache>();
  GraphBuilder graph{absent};
};

// The graph is the monitors' informer store: an observed node keeps the state the next event's old object had,
// and a relist accounts for the observed nodes of its kind only.
TEST_F(GraphBuilderTest, ObservedNodesKeepTheirLastStateForTheNextEventAndTheRelist) {
  GraphEvent deleting = added(identity("owner", "o"));
  deleting.being_deleted = true;
  deleting.orphan_finalizer = true;
  graph.process(deleting);
  graph.process(added(identity("dependent", "d"), {owner_ref("absent", "a", std::nullopt, "Secret")}));
  graph.process(added(identity("rs", "r", "ns", "ReplicaSet", "apps/v1")));

  auto owner = graph.observed("o");
  ASSERT_TRUE(owner.has_value());
  EXPECT_TRUE(owner->waiting_for_orphaning);
  EXPECT_FALSE(owner->waiting_for_dependents);
  ASSERT_TRUE(graph.observed("d").has_value());
  EXPECT_FALSE(graph.observed("d")->waiting_for_orphaning);
  EXPECT_FALSE(graph.observed("a").has_value()) << "a virtual owner was never observed";
  EXPECT_FALSE(graph.observed("missing").has_value());

  std::vector<std::string> uids;
  for (const auto& reference : graph.observed_of("v1", "ConfigMap")) uids.push_back(reference.uid);
  std::sort(uids.begin(), uids.end());
  EXPECT_EQ(uids, (std::vector<std::string>{"d", "o"}));
  EXPECT_EQ(graph.observed_of("apps/v1", "ReplicaSet").size(), 1u);
  EXPECT_TRUE(graph.observed_of("v1", "Secret").empty());

  GraphEvent gone;
  gone.type = GraphEvent::Type::Delete;
  gone.identity = identity("owner", "o");
  graph.process(gone);
  EXPECT_FALSE(graph.observed("o").has_value());
}

TEST(OwnerReferencesTest, AreReadFromMetadataAndWrittenBackAsStored) {
  auto object = boost::json::parse(R"({"metadata":{"ownerReferences":[
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u1","controller":true,"blockOwnerDeletion":true},
      {"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u2"},{"name":"no-uid"}]}})").as_object();
  auto references = owner_references(object);
  ASSERT_EQ(references.size(), 2u);
  EXPECT_TRUE(references[0].blocks());
  EXPECT_EQ(references[0].controller, true);
  EXPECT_FALSE(references[1].blocks());
  EXPECT_EQ(boost::json::serialize(to_json(references)),
            R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u1","controller":true,)"
            R"("blockOwnerDeletion":true},{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u2"}])");
  EXPECT_EQ(identity("c", "u2").to_string(), "[v1/ConfigMap, namespace: ns, name: c, uid: u2]");
}

TEST(ReferencesDiffTest, ComparesByUid) {
  auto diff = references_diff({owner_ref("a", "1"), owner_ref("b", "2", true)},
                              {owner_ref("b", "2", false), owner_ref("c", "3")});
  ASSERT_EQ(diff.added.size(), 1u);
  EXPECT_EQ(diff.added[0].uid, "3");
  ASSERT_EQ(diff.removed.size(), 1u);
  EXPECT_EQ(diff.removed[0].uid, "1");
  ASSERT_EQ(diff.changed.size(), 1u);
  EXPECT_TRUE(diff.changed[0].first.blocks());
  EXPECT_TRUE(references_diff({owner_ref("a", "1")}, {owner_ref("a", "1")}).empty());
}

TEST(AbsentOwnerCacheTest, ForgetsTheLeastRecentlyUsed) {
  AbsentOwnerCache cache(2);
  cache.add(identity("a", "1"));
  cache.add(identity("b", "2"));
  EXPECT_TRUE(cache.has(identity("a", "1")));  // a is now the most recent
  cache.add(identity("c", "3"));
  EXPECT_TRUE(cache.has(identity("a", "1")));
  EXPECT_FALSE(cache.has(identity("b", "2")));
  EXPECT_TRUE(cache.has(identity("c", "3")));
  EXPECT_FALSE(cache.has(identity("c", "3", "other")));  // the namespace is part of the key
}

TEST_F(GraphBuilderTest, AnUnobservedOwnerIsAVirtualNodeVerifiedByAttemptToDelete) {
  auto effects = graph.process(added(identity("child", "c1"), {owner_ref("parent", "p1")}));
  ASSERT_EQ(effects.attempt_to_delete.size(), 1u);
  const NodePtr& owner = effects.attempt_to_delete[0];
  EXPECT_EQ(owner->identity, identity("parent", "p1"));  // in the dependent's namespace until observed
  EXPECT_TRUE(owner->is_virtual);
  EXPECT_EQ(graph.size(), 2u);
  NodeView view = graph.view(*owner);
  EXPECT_FALSE(view.observed);
  EXPECT_TRUE(holds(view.dependents, "c1"));

  // Observed: the same node, no longer virtual, and nothing to verify.
  auto observed = graph.process(added(identity("parent", "p1")));
  EXPECT_TRUE(observed.attempt_to_delete.empty());
  EXPECT_TRUE(graph.view(*graph.find("p1")).observed);
}

TEST_F(GraphBuilderTest, DeletingAnOwnerQueuesItsDependentsAndRemembersItAbsent) {
  graph.process(added(identity("parent", "p1")));
  graph.process(added(identity("a", "c1"), {owner_ref("parent", "p1")}));
  graph.process(added(identity("b", "c2"), {owner_ref("parent", "p1")}));
  GraphEvent deleted = added(identity("parent", "p1"));
  deleted.type = GraphEvent::Type::Delete;
  auto effects = graph.process(deleted);
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c2"));
  EXPECT_EQ(graph.find("p1"), nullptr);
  EXPECT_TRUE(absent->has(identity("parent", "p1")));
}

TEST_F(GraphBuilderTest, ForegroundDeletionQueuesTheOwnerAndItsDependentsOnce) {
  graph.process(added(identity("parent", "p1")));
  graph.process(added(identity("a", "c1"), {owner_ref("parent", "p1", true)}));
  graph.process(added(identity("b", "c2"), {owner_ref("parent", "p1", false)}));
  GraphEvent deleting = added(identity("parent", "p1"));
  deleting.type = GraphEvent::Type::Update;
  deleting.being_deleted = true;
  deleting.foreground_finalizer = true;
  auto effects = graph.process(deleting);
  EXPECT_TRUE(holds(effects.attempt_to_delete, "p1"));
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c2"));
  NodeView owner = graph.view(*graph.find("p1"));
  EXPECT_TRUE(owner.deleting_dependents);
  ASSERT_EQ(owner.blocking_dependents.size(), 1u);  // only the one with blockOwnerDeletion
  EXPECT_EQ(owner.blocking_dependents[0]->identity.uid, "c1");

  // The same state again is no transition.
  deleting.was_waiting_for_dependents = true;
  EXPECT_TRUE(graph.process(deleting).attempt_to_delete.empty());

  // The blocking dependent going queues the owner, which then has nothing blocking it.
  GraphEvent gone = added(identity("a", "c1"), {owner_ref("parent", "p1", true)});
  gone.type = GraphEvent::Type::Delete;
  auto after = graph.process(gone);
  EXPECT_TRUE(holds(after.attempt_to_delete, "p1"));
  EXPECT_TRUE(graph.view(*graph.find("p1")).blocking_dependents.empty());
}

TEST_F(GraphBuilderTest, UnblockingAReferenceQueuesTheOwner) {
  graph.process(added(identity("parent", "p1")));
  graph.process(added(identity("a", "c1"), {owner_ref("parent", "p1", true)}));
  GraphEvent unblocked = added(identity("a", "c1"), {owner_ref("parent", "p1", false)});
  unblocked.type = GraphEvent::Type::Update;
  EXPECT_TRUE(holds(graph.process(unblocked).attempt_to_delete, "p1"));
  GraphEvent removed = added(identity("a", "c1"));
  removed.type = GraphEvent::Type::Update;
  EXPECT_FALSE(holds(graph.process(removed).attempt_to_delete, "p1"));  // not blocking any more: nothing to wake
  EXPECT_TRUE(graph.view(*graph.find("p1")).dependents.empty());
}

TEST_F(GraphBuilderTest, OrphanDeletionQueuesTheOwnerForOrphaning) {
  graph.process(added(identity("parent", "p1")));
  GraphEvent orphaning = added(identity("parent", "p1"));
  orphaning.type = GraphEvent::Type::Update;
  orphaning.being_deleted = true;
  orphaning.orphan_finalizer = true;
  auto effects = graph.process(orphaning);
  ASSERT_EQ(effects.attempt_to_orphan.size(), 1u);
  EXPECT_TRUE(effects.attempt_to_delete.empty());
  EXPECT_TRUE(graph.view(*graph.find("p1")).being_deleted);
}

TEST_F(GraphBuilderTest, AnOwnerInAnotherNamespaceIsReportedOnceObserved) {
  // The owner first: the dependent of another namespace is reported at once and verified.
  graph.process(added(identity("parent", "p1", "one")));
  auto effects = graph.process(added(identity("child", "c1", "two"), {owner_ref("parent", "p1")}));
  ASSERT_EQ(effects.invalid_owner_references.size(), 1u);
  EXPECT_EQ(effects.invalid_owner_references[0].owner.to_string(), "[v1/ConfigMap, namespace: two, name: parent, uid: p1]");
  EXPECT_EQ(effects.invalid_owner_references[0].dependent.uid, "c1");
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));
}

TEST_F(GraphBuilderTest, ADependentSeenBeforeItsOwnerOfAnotherNamespaceIsReportedWhenTheOwnerIsObserved) {
  graph.process(added(identity("child", "c1", "two"), {owner_ref("parent", "p1")}));
  auto effects = graph.process(added(identity("parent", "p1", "one")));
  ASSERT_EQ(effects.invalid_owner_references.size(), 1u);
  EXPECT_EQ(effects.invalid_owner_references[0].dependent.uid, "c1");
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));
  EXPECT_EQ(graph.find("p1")->identity.namespace_, "one");  // the observed identity replaced the virtual one
}

TEST_F(GraphBuilderTest, ACleanupOwnerOwnsObjectsOfAnyNamespace) {
  graph.process(added(identity("node", "n1", "", "Node")));
  auto effects = graph.process(added(identity("pod", "c1", "two", "Pod"), {owner_ref("node", "n1", {}, "Node")}));
  EXPECT_TRUE(effects.invalid_owner_references.empty());
  EXPECT_TRUE(effects.attempt_to_delete.empty());
}

TEST_F(GraphBuilderTest, AVirtualDeletionKeepsAnObservedNodeOfOtherCoordinates) {
  graph.process(added(identity("parent", "p1")));
  graph.process(added(identity("child", "c1"), {owner_ref("parent", "p1", {}, "Secret")}));
  GraphEvent virtual_delete;
  virtual_delete.type = GraphEvent::Type::Delete;
  virtual_delete.is_virtual = true;
  virtual_delete.identity = identity("parent", "p1", "ns", "Secret");
  auto effects = graph.process(virtual_delete);
  EXPECT_NE(graph.find("p1"), nullptr);
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));  // the dependent naming the absent coordinates
  EXPECT_TRUE(absent->has(identity("parent", "p1", "ns", "Secret")));
}

TEST_F(GraphBuilderTest, AVirtualOwnerVerifiedAbsentIsRemoved) {
  auto first = graph.process(added(identity("child", "c1"), {owner_ref("parent", "p1")}));
  ASSERT_EQ(first.attempt_to_delete.size(), 1u);
  GraphEvent virtual_delete;
  virtual_delete.type = GraphEvent::Type::Delete;
  virtual_delete.is_virtual = true;
  virtual_delete.identity = first.attempt_to_delete[0]->identity.reference();
  auto effects = graph.process(virtual_delete);
  EXPECT_EQ(graph.find("p1"), nullptr);
  EXPECT_TRUE(holds(effects.attempt_to_delete, "c1"));
}

TEST(RateLimiterTest, BacksOffPerItemAndSharesABucket) {
  RateLimiter limiter;
  auto node = std::make_shared<Node>();
  const auto now = RateLimiter::Clock::now();
  EXPECT_EQ(limiter.when(node, now), std::chrono::milliseconds(5));
  EXPECT_EQ(limiter.when(node, now), std::chrono::milliseconds(10));
  EXPECT_EQ(limiter.when(node, now), std::chrono::milliseconds(20));
  EXPECT_EQ(limiter.failures(node), 3);
  limiter.forget(node);
  EXPECT_EQ(limiter.when(node, now), std::chrono::milliseconds(5));
  // The bucket (burst 100, 10 per second) is drained by 100 calls at one instant: the next waits 100 ms.
  for (int i = 0; i < 96; ++i) limiter.when(std::make_shared<Node>(), now);
  EXPECT_EQ(limiter.when(std::make_shared<Node>(), now), std::chrono::milliseconds(100));
  // Per-item backoff is capped at 1000 s.
  auto failing = std::make_shared<Node>();
  std::chrono::nanoseconds last{};
  for (int i = 0; i < 40; ++i) last = limiter.when(failing, now + std::chrono::hours(1));
  EXPECT_EQ(last, std::chrono::seconds(1000));
}

}  // namespace
}  // namespace kapi::controllers::garbage_collector::graph_builder_test

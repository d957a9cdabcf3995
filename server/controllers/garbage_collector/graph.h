#pragma once
// The garbage collector's dependency graph as kube-controller-manager's pkg/controller/garbagecollector/graph.go
// keeps it: one node per object uid (its identity, its ownerReferences, its dependents), "virtual" nodes for
// owners that are referenced but not observed yet, and the LRU of owners known to be absent. Everything here is
// plain data: the GraphBuilder (graph_builder.h) guards it with its lock.
#include <boost/json/object.hpp>

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kapi::controllers::garbage_collector {

// metav1.OwnerReference.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;

  bool blocks() const { return block_owner_deletion.value_or(false); }
  bool operator==(const OwnerReference&) const = default;
};

// kube's objectReference: an owner reference's coordinates (apiVersion, kind, name, uid) and a namespace.
struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::string namespace_;

  // The coordinates of `reference` in `namespace_` (ownerReferenceCoordinates: controller and
  // blockOwnerDeletion dropped).
  static ObjectReference of(const OwnerReference& reference, std::string namespace_);
  // "[v1/ConfigMap, namespace: ns, name: owner, uid: 1234]", as kube's String().
  std::string to_string() const;
  bool operator==(const ObjectReference&) const = default;
};

// The apiVersion and kind of a node's object: one per kind, which every node of that kind points at.
struct NodeKind {
  std::string api_version;
  std::string kind;
  auto operator<=>(const NodeKind&) const = default;
};

// A node's identity: an ObjectReference whose apiVersion and kind are shared with the other nodes of its kind
// (the GraphBuilder keeps the NodeKinds, and outlives every read of them). The graph holds a node for every object
// of every followed resource, so this makes a ConfigMap's node fit an allocation 64 bytes smaller.
struct NodeIdentity {
  const NodeKind* type = nullptr;
  std::string name;
  std::string uid;
  std::string namespace_;

  const std::string& api_version() const { return type->api_version; }
  const std::string& kind() const { return type->kind; }
  ObjectReference reference() const { return {type->api_version, type->kind, name, uid, namespace_}; }
  std::string to_string() const { return reference().to_string(); }
  bool operator==(const ObjectReference& other) const {
    return uid == other.uid && name == other.name && namespace_ == other.namespace_ &&
           type->kind == other.kind && type->api_version == other.api_version;
  }
};

struct ObjectReferenceHash {
  std::size_t operator()(const ObjectReference& reference) const;
};

// metadata.ownerReferences of `object` (malformed entries skipped: validation keeps them out of storage).
std::vector<OwnerReference> owner_references(const boost::json::object& object);
// The references as stored: what a patch of ownerReferences writes back.
boost::json::array to_json(const std::vector<OwnerReference>& references);

// ownerReferenceMatchesCoordinates.
bool matches_coordinates(const OwnerReference& reference, const ObjectReference& identity);
bool matches_coordinates(const OwnerReference& reference, const NodeIdentity& identity);

struct Node;
using NodePtr = std::shared_ptr<Node>;

// A node's dependents. The graph holds a node for every object of every resource, and most objects are nobody's
// owner, so an empty set is one null pointer rather than an empty hash set (a quarter of a ConfigMap's node).
class DependentSet {
 public:
  using Set = std::unordered_set<NodePtr>;

  DependentSet() = default;
  DependentSet(const DependentSet& other) : set_(other.empty() ? nullptr : std::make_unique<Set>(*other.set_)) {}
  DependentSet& operator=(const DependentSet& other) { return *this = DependentSet(other); }
  DependentSet(DependentSet&&) noexcept = default;
  DependentSet& operator=(DependentSet&&) noexcept = default;

  bool empty() const { return !set_ || set_->empty(); }
  void insert(const NodePtr& node) {
    if (!set_) set_ = std::make_unique<Set>();
    set_->insert(node);
  }
  void erase(const NodePtr& node) {
    if (set_ && set_->erase(node) != 0 && set_->empty()) set_.reset();
  }
  Set::const_iterator begin() const { return set_ ? set_->cbegin() : empty_set().cend(); }
  Set::const_iterator end() const { return set_ ? set_->cend() : empty_set().cend(); }

 private:
  static const Set& empty_set() {
    static const Set empty;
    return empty;
  }

  std::unique_ptr<Set> set_;
};

struct Node {
  // Never changed once the node is in the graph (a node observed with other coordinates is replaced by a copy), so
  // it may be read without the graph's lock.
  NodeIdentity identity;
  // Dependents hold no pointer to their owners (owners are found by uid), so a removed node is freed once no
  // owner lists it and no queue holds it.
  DependentSet dependents;
  std::vector<OwnerReference> owners;  // as last observed
  // Observed with a deletionTimestamp: a one-way trip to the final deletion.
  bool being_deleted = false;
  // Being deleted with the foregroundDeletion finalizer: waiting for its blocking dependents to go.
  bool deleting_dependents = false;
  // Known only as someone's owner, not observed through a watch (yet).
  bool is_virtual = false;
  // What the last observation showed (the informer's old object, for the next event): being deleted with the
  // orphan finalizer, and with the foregroundDeletion finalizer.
  bool observed_waiting_for_orphaning = false;
  bool observed_waiting_for_dependents = false;

  // The dependents whose reference to this node has blockOwnerDeletion (blockingDependents).
  std::vector<NodePtr> blocking_dependents() const;
};

// Dependents of a node, split by whether their reference to `owner`'s uid agrees with its coordinates and
// namespace (partitionDependents); a dependent may be in both.
struct Partition {
  std::vector<NodePtr> matching;
  std::vector<NodePtr> nonmatching;
};
Partition partition_dependents(const std::vector<NodePtr>& dependents, const ObjectReference& owner);

// Another identity the `nonmatching` dependents know a verified-absent owner by (getAlternateOwnerIdentity).
std::optional<ObjectReference> alternate_owner_identity(std::vector<NodePtr> dependents,
                                                        const ObjectReference& verified_absent);

// How two lists of owner references differ, by uid (referencesDiffs).
struct ReferenceDiff {
  std::vector<OwnerReference> added;
  std::vector<OwnerReference> removed;
  std::vector<std::pair<OwnerReference, OwnerReference>> changed;  // old, new

  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};
ReferenceDiff references_diff(const std::vector<OwnerReference>& old_references,
                              const std::vector<OwnerReference>& new_references);

// kube's ReferenceCache: the last `capacity` owners known to be absent (an LRU), so that a thousand dependents
// of one deleted owner ask the apiserver about it once. Thread-safe.
class AbsentOwnerCache {
 public:
  explicit AbsentOwnerCache(std::size_t capacity = 500) : capacity_(capacity) {}

  void add(const ObjectReference& reference);
  bool has(const ObjectReference& reference);

 private:
  std::mutex mutex_;
  std::size_t capacity_;
  std::list<ObjectReference> order_;  // most recent first
  std::unordered_map<ObjectReference, std::list<ObjectReference>::iterator, ObjectReferenceHash> entries_;
};

}  // namespace kapi::controllers::garbage_collector

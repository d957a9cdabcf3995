#pragma once
// The GraphBuilder of kube-controller-manager's pkg/controller/garbagecollector/graph_builder.go, its
// processGraphChanges: each change the monitors observe (and each "virtual" deletion the workers verify) updates
// the dependency graph, and says which nodes the attemptToDelete and attemptToOrphan queues get and which invalid
// owner references deserve an Event. It does no I/O: the monitors (monitors.h) feed it, the GarbageCollector
// applies what it returns; so it is tested as it is.
#include "server/controllers/garbage_collector/graph.h"

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace kapi::controllers::garbage_collector {

// One observed change of an object (kube's event, with the metadata the graph reads), or a virtual deletion.
struct GraphEvent {
  enum class Type { Add, Update, Delete };
  Type type = Type::Add;
  bool is_virtual = false;  // a deletion the collector verified itself (enqueueVirtualDeleteEvent)
  ObjectReference identity;
  std::vector<OwnerReference> owners;
  bool being_deleted = false;  // deletionTimestamp set
  bool orphan_finalizer = false;
  bool foreground_finalizer = false;
  // Whether the previous state the monitor saw was already being deleted with each finalizer (none: first seen).
  bool was_waiting_for_orphaning = false;
  bool was_waiting_for_dependents = false;
};

// An ownerReference naming an owner of another namespace (reportInvalidNamespaceOwnerRef's Event).
struct InvalidOwnerReference {
  ObjectReference dependent;
  ObjectReference owner;  // the reference's coordinates in the dependent's namespace
};

// What a change asks for, in kube's order.
struct GraphEffects {
  std::vector<NodePtr> attempt_to_delete;
  std::vector<NodePtr> attempt_to_delete_rate_limited;
  std::vector<NodePtr> attempt_to_orphan;
  std::vector<InvalidOwnerReference> invalid_owner_references;
};

// A worker's copy of a node and of its dependents, read under the graph's lock.
struct NodeView {
  ObjectReference identity;
  bool being_deleted = false;
  bool deleting_dependents = false;
  bool observed = false;
  std::vector<OwnerReference> owners;
  std::vector<NodePtr> dependents;
  std::vector<NodePtr> dependents_deleting_dependents;
  std::vector<NodePtr> blocking_dependents;                  // blockOwnerDeletion towards this node
  std::vector<NodePtr> blocking_dependents_not_deleting;     // of those, the ones not deleting their own dependents
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::shared_ptr<AbsentOwnerCache> absent_owners) : absent_owners_(std::move(absent_owners)) {}

  // processGraphChanges for one event.
  GraphEffects process(const GraphEvent& event);

  // The old state of the next event of `uid`, as its last observation left it; none when no observed node has it.
  struct Observed {
    bool waiting_for_orphaning = false;
    bool waiting_for_dependents = false;
  };
  std::optional<Observed> observed(const std::string& uid) const;
  // The identities of the observed nodes of one kind: what a relist of its resource must account for.
  std::vector<ObjectReference> observed_of(std::string_view api_version, std::string_view kind) const;

  NodeView view(const Node& node) const;
  // The node the graph holds for `uid`, if any.
  NodePtr find(const std::string& uid) const;
  std::size_t size() const;

 private:
  void insert_node(const NodePtr& node, GraphEffects& effects);
  void add_dependent_to_owners(const NodePtr& node, const std::vector<OwnerReference>& owners, GraphEffects& effects);
  void remove_dependent_from_owners(const NodePtr& node, const std::vector<OwnerReference>& owners);
  void remove_node(const NodePtr& node);
  void add_unblocked_owners(const ReferenceDiff& diff, GraphEffects& effects);
  void process_transitions(const GraphEvent& event, const NodePtr& node, GraphEffects& effects);
  static void record_observation(const GraphEvent& event, Node& node);
  void report_invalid_namespace(const Node& dependent, const std::string& owner_uid, GraphEffects& effects) const;
  NodePtr read(const std::string& uid) const;
  // Maps the node's uid to it, in place of any node with that uid.
  void put(const NodePtr& node);
  // The identity a node keeps for `reference`, its apiVersion and kind shared.
  NodeIdentity identity_of(const ObjectReference& reference);

  std::shared_ptr<AbsentOwnerCache> absent_owners_;
  mutable std::mutex mutex_;
  // uidToNode, under mutex_: the nodes themselves, hashed and found by their identity's uid (a node per object of
  // every followed resource, so no key beside it).
  struct UidOf {
    static std::string_view of(std::string_view uid) { return uid; }
    static std::string_view of(const NodePtr& node) { return node->identity.uid; }
  };
  struct UidHash {
    using is_transparent = void;
    std::size_t operator()(const auto& node_or_uid) const {
      return std::hash<std::string_view>{}(UidOf::of(node_or_uid));
    }
  };
  struct SameUid {
    using is_transparent = void;
    bool operator()(const auto& a, const auto& b) const { return UidOf::of(a) == UidOf::of(b); }
  };
  std::unordered_set<NodePtr, UidHash, SameUid> nodes_;
  std::set<NodeKind> kinds_;  // under mutex_; what the nodes' identities point at, never removed
};

}  // namespace kapi::controllers::garbage_collector

#include "server/controllers/garbage_collector/graph_builder.h"

#include <algorithm>

namespace kapi::controllers::garbage_collector {
namespace {

std::vector<NodePtr> dependents_of(const Node& node) {
  return {node.dependents.begin(), node.dependents.end()};
}

}  // namespace

NodePtr GraphBuilder::read(const std::string& uid) const {
  auto found = nodes_.find(std::string_view(uid));
  return found == nodes_.end() ? nullptr : *found;
}

NodePtr GraphBuilder::find(const std::string& uid) const {
  std::lock_guard lock(mutex_);
  return read(uid);
}

std::size_t GraphBuilder::size() const {
  std::lock_guard lock(mutex_);
  return nodes_.size();
}

std::optional<GraphBuilder::Observed> GraphBuilder::observed(const std::string& uid) const {
  std::lock_guard lock(mutex_);
  NodePtr node = read(uid);
  if (!node || node->is_virtual) return std::nullopt;
  return Observed{node->observed_waiting_for_orphaning, node->observed_waiting_for_dependents};
}

std::vector<ObjectReference> GraphBuilder::observed_of(std::string_view api_version, std::string_view kind) const {
  std::lock_guard lock(mutex_);
  std::vector<ObjectReference> out;
  for (const NodePtr& node : nodes_)
    if (!node->is_virtual && node->identity.kind() == kind && node->identity.api_version() == api_version)
      out.push_back(node->identity.reference());
  return out;
}

NodeView GraphBuilder::view(const Node& node) const {
  std::lock_guard lock(mutex_);
  NodeView out{node.identity.reference(), node.being_deleted, node.deleting_dependents, !node.is_virtual, node.owners,
               dependents_of(node), {}, node.blocking_dependents(), {}};
  for (const auto& dependent : out.dependents)
    if (dependent->deleting_dependents) out.dependents_deleting_dependents.push_back(dependent);
  for (const auto& dependent : out.blocking_dependents)
    if (!dependent->deleting_dependents) out.blocking_dependents_not_deleting.push_back(dependent);
  return out;
}

GraphEffects GraphBuilder::process(const GraphEvent& event) {
  GraphEffects effects;
  std::lock_guard lock(mutex_);
  NodePtr existing = read(event.identity.uid);
  if (existing && !event.is_virtual && existing->is_virtual) {
    // First observation of a node known so far only as someone's owner.
    if (event.identity != existing->identity) {
      // Dependents that named it otherwise may be wrong: attemptToDelete verifies them (bad child -> good parent).
      Partition partition = partition_dependents(dependents_of(*existing), event.identity);
      for (const auto& dependent : partition.nonmatching) {
        if (!event.identity.namespace_.empty() && dependent->identity.namespace_ != event.identity.namespace_)
          report_invalid_namespace(*dependent, event.identity.uid, effects);
        effects.attempt_to_delete.push_back(dependent);
      }
      // A copy with the observed identity replaces the virtual node (queued copies keep what they were).
      existing = std::make_shared<Node>(*existing);
      existing->identity = identity_of(event.identity);
      put(existing);
    }
    existing->is_virtual = false;
  }

  const bool add_or_update = event.type != GraphEvent::Type::Delete;
  if (add_or_update && !existing) {
    auto node = std::make_shared<Node>();
    node->identity = identity_of(event.identity);
    node->owners = event.owners;
    node->deleting_dependents = event.being_deleted && event.foreground_finalizer;
    node->being_deleted = event.being_deleted;
    insert_node(node, effects);
    process_transitions(event, node, effects);
    record_observation(event, *node);
    return effects;
  }
  if (add_or_update) {
    ReferenceDiff diff = references_diff(existing->owners, event.owners);
    if (!diff.empty()) {
      // Owners waiting for this dependent's deletion may be unblocked now.
      add_unblocked_owners(diff, effects);
      existing->owners = event.owners;
      add_dependent_to_owners(existing, diff.added, effects);
      remove_dependent_from_owners(existing, diff.removed);
    }
    if (event.being_deleted) existing->being_deleted = true;
    process_transitions(event, existing, effects);
    record_observation(event, *existing);
    return effects;
  }

  if (!existing) return effects;  // a deletion of what the graph never held
  bool remove_existing = true;
  if (event.is_virtual) {
    const ObjectReference& deleted = event.identity;
    if (existing->is_virtual) {
      // Not sure of this node's coordinates: do its dependents agree on the ones verified absent?
      Partition partition = partition_dependents(dependents_of(*existing), deleted);
      if (!partition.nonmatching.empty()) {
        remove_existing = false;  // some name it otherwise: keep it
        if (!partition.matching.empty()) {
          absent_owners_->add(deleted);
          for (const auto& dependent : partition.matching) effects.attempt_to_delete.push_back(dependent);
        }
        if (existing->identity == deleted) {
          // Try the identity another dependent knows it by.
          if (auto alternate = alternate_owner_identity(partition.nonmatching, deleted)) {
            auto replacement = std::make_shared<Node>(*existing);
            replacement->identity = identity_of(*alternate);
            put(replacement);
            effects.attempt_to_delete_rate_limited.push_back(replacement);
          }
        }
      }
    } else if (existing->identity != deleted) {
      // An observed node outlives a virtual deletion of other coordinates; only dependents using those go.
      remove_existing = false;
      Partition partition = partition_dependents(dependents_of(*existing), deleted);
      if (!partition.matching.empty()) {
        absent_owners_->add(deleted);
        for (const auto& dependent : partition.matching) effects.attempt_to_delete.push_back(dependent);
      }
    }
  }
  if (!remove_existing) return effects;
  remove_node(existing);
  if (!existing->dependents.empty()) absent_owners_->add(event.identity);
  for (const auto& dependent : existing->dependents) effects.attempt_to_delete.push_back(dependent);
  for (const auto& owner : existing->owners) {
    NodePtr owner_node = read(owner.uid);
    // An owner deleting its dependents in the foreground may be done now.
    if (owner_node && owner_node->deleting_dependents) effects.attempt_to_delete.push_back(owner_node);
  }
  return effects;
}

NodeIdentity GraphBuilder::identity_of(const ObjectReference& reference) {
  const NodeKind& type = *kinds_.insert(NodeKind{reference.api_version, reference.kind}).first;
  return {&type, reference.name, reference.uid, reference.namespace_};
}

void GraphBuilder::put(const NodePtr& node) {
  if (auto found = nodes_.find(std::string_view(node->identity.uid)); found != nodes_.end()) nodes_.erase(found);
  nodes_.insert(node);
}

void GraphBuilder::insert_node(const NodePtr& node, GraphEffects& effects) {
  put(node);
  add_dependent_to_owners(node, node->owners, effects);
}

void GraphBuilder::add_dependent_to_owners(const NodePtr& node, const std::vector<OwnerReference>& owners,
                                           GraphEffects& effects) {
  bool potentially_invalid = false;
  for (const auto& owner : owners) {
    NodePtr owner_node = read(owner.uid);
    const bool known = owner_node != nullptr;
    if (!known) {
      // A virtual node until observed; attemptToDelete verifies that the owner exists.
      owner_node = std::make_shared<Node>();
      owner_node->identity = identity_of(ObjectReference::of(owner, node->identity.namespace_));
      owner_node->is_virtual = true;
      put(owner_node);
    }
    owner_node->dependents.insert(node);
    if (!known) {
      effects.attempt_to_delete.push_back(owner_node);
      continue;
    }
    if (potentially_invalid) continue;
    const bool owner_namespaced = !owner_node->identity.namespace_.empty();
    if (owner_namespaced && owner_node->identity.namespace_ != node->identity.namespace_) {
      // A namespaced owner of another namespace is definitely wrong once observed; cluster-scoped owners may own
      // objects of any namespace.
      if (!owner_node->is_virtual) report_invalid_namespace(*node, owner.uid, effects);
      potentially_invalid = true;
    } else if (!matches_coordinates(owner, owner_node->identity)) {
      potentially_invalid = true;
    } else if (!owner_namespaced && owner_node->identity.namespace_ != node->identity.namespace_ &&
               owner_node->is_virtual) {
      // A virtual cluster-scoped owner may be a missing namespaced one named by a cluster-scoped dependent.
      potentially_invalid = true;
    }
  }
  // attemptToDelete verifies the references and deletes the dependent if every owner is absent.
  if (potentially_invalid) effects.attempt_to_delete.push_back(node);
}

void GraphBuilder::remove_dependent_from_owners(const NodePtr& node, const std::vector<OwnerReference>& owners) {
  for (const auto& owner : owners)
    if (NodePtr owner_node = read(owner.uid)) owner_node->dependents.erase(node);
}

void GraphBuilder::remove_node(const NodePtr& node) {
  if (auto found = nodes_.find(std::string_view(node->identity.uid)); found != nodes_.end()) nodes_.erase(found);
  remove_dependent_from_owners(node, node->owners);
}

void GraphBuilder::add_unblocked_owners(const ReferenceDiff& diff, GraphEffects& effects) {
  for (const auto& removed : diff.removed)
    if (removed.blocks())
      if (NodePtr owner = read(removed.uid)) effects.attempt_to_delete.push_back(owner);
  for (const auto& [before, after] : diff.changed)
    if (before.blocks() && !after.blocks())
      if (NodePtr owner = read(after.uid)) effects.attempt_to_delete.push_back(owner);
}

void GraphBuilder::process_transitions(const GraphEvent& event, const NodePtr& node, GraphEffects& effects) {
  // startsWaitingForDependentsOrphaned: being deleted with the orphan finalizer, and was not before.
  if (event.being_deleted && event.orphan_finalizer && !event.was_waiting_for_orphaning) {
    effects.attempt_to_orphan.push_back(node);
    return;
  }
  if (event.being_deleted && event.foreground_finalizer && !event.was_waiting_for_dependents) {
    // A node added as virtual has no deletingDependents yet: set it here.
    node->deleting_dependents = true;
    for (const auto& dependent : node->dependents) effects.attempt_to_delete.push_back(dependent);
    effects.attempt_to_delete.push_back(node);
  }
}

void GraphBuilder::record_observation(const GraphEvent& event, Node& node) {
  node.observed_waiting_for_orphaning = event.being_deleted && event.orphan_finalizer;
  node.observed_waiting_for_dependents = event.being_deleted && event.foreground_finalizer;
}

void GraphBuilder::report_invalid_namespace(const Node& dependent, const std::string& owner_uid,
                                            GraphEffects& effects) const {
  auto reference = std::find_if(dependent.owners.begin(), dependent.owners.end(),
                                [&](const OwnerReference& owner) { return owner.uid == owner_uid; });
  if (reference == dependent.owners.end()) return;
  effects.invalid_owner_references.push_back(
      {dependent.identity.reference(), ObjectReference::of(*reference, dependent.identity.namespace_)});
}

}  // namespace kapi::controllers::garbage_collector

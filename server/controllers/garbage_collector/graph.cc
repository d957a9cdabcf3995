#include "server/controllers/garbage_collector/graph.h"

#include <boost/json.hpp>

#include <algorithm>
#include <functional>
#include <set>

namespace kapi::controllers::garbage_collector {
namespace {

namespace json = boost::json;

std::string text(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::optional<bool> flag(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value || !value->is_bool()) return std::nullopt;
  return value->as_bool();
}

}  // namespace

ObjectReference ObjectReference::of(const OwnerReference& reference, std::string namespace_) {
  return {reference.api_version, reference.kind, reference.name, reference.uid, std::move(namespace_)};
}

std::string ObjectReference::to_string() const {
  return "[" + api_version + "/" + kind + ", namespace: " + namespace_ + ", name: " + name + ", uid: " + uid + "]";
}

std::size_t ObjectReferenceHash::operator()(const ObjectReference& reference) const {
  std::size_t seed = 0;
  for (const std::string* part : {&reference.api_version, &reference.kind, &reference.name, &reference.uid,
                                  &reference.namespace_})
    seed ^= std::hash<std::string>{}(*part) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

std::vector<OwnerReference> owner_references(const json::object& object) {
  std::vector<OwnerReference> out;
  const json::value* metadata = object.if_contains("metadata");
  if (!metadata || !metadata->is_object()) return out;
  const json::value* references = metadata->as_object().if_contains("ownerReferences");
  if (!references || !references->is_array()) return out;
  for (const auto& entry : references->as_array()) {
    if (!entry.is_object()) continue;
    const auto& reference = entry.as_object();
    OwnerReference parsed{text(reference, "apiVersion"), text(reference, "kind"), text(reference, "name"),
                          text(reference, "uid"), flag(reference, "controller"),
                          flag(reference, "blockOwnerDeletion")};
    if (!parsed.uid.empty()) out.push_back(std::move(parsed));
  }
  return out;
}

json::array to_json(const std::vector<OwnerReference>& references) {
  json::array out;
  for (const auto& reference : references) {
    json::object entry{{"apiVersion", reference.api_version},
                       {"kind", reference.kind},
                       {"name", reference.name},
                       {"uid", reference.uid}};
    if (reference.controller) entry["controller"] = *reference.controller;
    if (reference.block_owner_deletion) entry["blockOwnerDeletion"] = *reference.block_owner_deletion;
    out.push_back(std::move(entry));
  }
  return out;
}

bool matches_coordinates(const OwnerReference& reference, const ObjectReference& identity) {
  return reference.uid == identity.uid && reference.name == identity.name && reference.kind == identity.kind &&
         reference.api_version == identity.api_version;
}

bool matches_coordinates(const OwnerReference& reference, const NodeIdentity& identity) {
  return reference.uid == identity.uid && reference.name == identity.name && reference.kind == identity.kind() &&
         reference.api_version == identity.api_version();
}

std::vector<NodePtr> Node::blocking_dependents() const {
  std::vector<NodePtr> out;
  for (const auto& dependent : dependents)
    for (const auto& owner : dependent->owners)
      if (owner.uid == identity.uid && owner.blocks()) {
        out.push_back(dependent);
        break;
      }
  return out;
}

Partition partition_dependents(const std::vector<NodePtr>& dependents, const ObjectReference& owner) {
  Partition out;
  const bool owner_namespaced = !owner.namespace_.empty();
  for (const auto& dependent : dependents) {
    bool match = false;
    // A namespaced owner can only own objects of its own namespace.
    bool mismatch = owner_namespaced && owner.namespace_ != dependent->identity.namespace_;
    for (const auto& reference : dependent->owners) {
      if (reference.uid != owner.uid) continue;
      if (matches_coordinates(reference, owner)) match = true;
      else mismatch = true;
    }
    if (match) out.matching.push_back(dependent);
    if (mismatch) out.nonmatching.push_back(dependent);
  }
  return out;
}

std::optional<ObjectReference> alternate_owner_identity(std::vector<NodePtr> dependents,
                                                        const ObjectReference& verified_absent) {
  const bool absent_is_cluster_scoped = verified_absent.namespace_.empty();
  std::set<std::string> seen{verified_absent.to_string()};
  // Sorted for determinism, as kube does.
  std::sort(dependents.begin(), dependents.end(), [](const NodePtr& a, const NodePtr& b) {
    return a->identity.to_string() < b->identity.to_string();
  });
  for (const auto& dependent : dependents) {
    for (const auto& reference : dependent->owners) {
      if (reference.uid != verified_absent.uid) continue;
      if (matches_coordinates(reference, verified_absent) &&
          (absent_is_cluster_scoped || verified_absent.namespace_ == dependent->identity.namespace_))
        continue;  // exactly the identity verified absent
      ObjectReference alternate = ObjectReference::of(reference, dependent->identity.namespace_);
      // This apiVersion/kind is known to be cluster-scoped: the alternate is too.
      if (absent_is_cluster_scoped && alternate.api_version == verified_absent.api_version &&
          alternate.kind == verified_absent.kind)
        alternate.namespace_.clear();
      if (!seen.insert(alternate.to_string()).second) continue;
      return alternate;
    }
  }
  return std::nullopt;
}

ReferenceDiff references_diff(const std::vector<OwnerReference>& old_references,
                              const std::vector<OwnerReference>& new_references) {
  ReferenceDiff diff;
  for (const auto& old_reference : old_references) {
    auto same_uid = [&](const OwnerReference& r) { return r.uid == old_reference.uid; };
    auto now = std::find_if(new_references.begin(), new_references.end(), same_uid);
    if (now == new_references.end()) diff.removed.push_back(old_reference);
    else if (!(*now == old_reference)) diff.changed.emplace_back(old_reference, *now);
  }
  for (const auto& new_reference : new_references) {
    auto same_uid = [&](const OwnerReference& r) { return r.uid == new_reference.uid; };
    if (std::none_of(old_references.begin(), old_references.end(), same_uid)) diff.added.push_back(new_reference);
  }
  return diff;
}

void AbsentOwnerCache::add(const ObjectReference& reference) {
  std::lock_guard lock(mutex_);
  if (auto found = entries_.find(reference); found != entries_.end()) {
    order_.splice(order_.begin(), order_, found->second);
    return;
  }
  order_.push_front(reference);
  entries_.emplace(reference, order_.begin());
  if (order_.size() > capacity_) {
    entries_.erase(order_.back());
    order_.pop_back();
  }
}

bool AbsentOwnerCache::has(const ObjectReference& reference) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(reference);
  if (found == entries_.end()) return false;
  order_.splice(order_.begin(), order_, found->second);  // a hit counts as a use (golang-lru's Get)
  return true;
}

}  // namespace kapi::controllers::garbage_collector

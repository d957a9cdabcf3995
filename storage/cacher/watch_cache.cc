#include "storage/cacher/watch_cache.h"

namespace kapi::storage::cacher {

WatchCache::WatchCache(std::vector<Indexer> indexers, EventHistory::Limits history_limits)
    : history_(history_limits) {
  for (Indexer& indexer : indexers) indexes_.push_back(Index{std::move(indexer), {}});
}

void WatchCache::replace(std::vector<KeyValue> items, Revision revision) {
  objects_.clear();
  for (Index& index : indexes_) index.by_value.clear();
  for (const KeyValue& item : items) insert(share(item));
  history_.reset(revision);
  revision_ = last_change_ = revision;
}

EventRef WatchCache::apply(WatchEvent change, std::chrono::steady_clock::time_point now) {
  if (change.revision <= last_change_) return nullptr;  // replayed after a resumed watch
  if (change.revision <= revision_) {
    throw ChangeBehindProgress("a change at revision " + std::to_string(change.revision) +
                               " arrived after progress to revision " + std::to_string(revision_));
  }
  revision_ = last_change_ = change.revision;

  auto event = std::make_shared<CachedEvent>();
  event->recorded = now;
  auto current = objects_.find(std::string_view(change.object.key));
  if (current != objects_.end()) event->prev = *current;

  if (change.type == WatchEventType::Deleted) {
    if (!event->prev) return nullptr;
    event->type = WatchEventType::Deleted;
    // The contract gives the last state; a backend that only names the key gets it from the cache.
    ObjectView gone = change.object.value.empty() ? ObjectView(*event->prev) : ObjectView(change.object);
    gone.mod_revision = change.revision;
    event->object = share(gone);
    erase(current);
  } else {
    // The cache, not the backend's label, decides Added vs Modified: it is what watchers have seen.
    event->type = event->prev ? WatchEventType::Modified : WatchEventType::Added;
    ObjectView state(change.object);
    state.mod_revision = change.revision;  // as every backend reports it; the event's revision is read from here
    event->object = share(state);
    if (current != objects_.end()) erase(current);
    insert(event->object);
  }
  history_.append(event);
  return event;
}

void WatchCache::advance(Revision revision) {
  if (revision > revision_) revision_ = revision;
}

ObjectRef WatchCache::get(std::string_view key) const {
  auto found = objects_.find(key);
  return found == objects_.end() ? nullptr : *found;
}

std::vector<ObjectRef> WatchCache::list(std::string_view prefix) const {
  std::vector<ObjectRef> items;
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && (*it)->key.starts_with(prefix); ++it) {
    items.push_back(*it);
  }
  return items;
}

std::optional<std::vector<ObjectRef>> WatchCache::list_indexed(std::string_view index, const std::string& value,
                                                               std::string_view prefix) const {
  for (const Index& candidate : indexes_) {
    if (candidate.indexer.name != index) continue;
    std::vector<ObjectRef> items;
    auto bucket = candidate.by_value.find(value);
    if (bucket == candidate.by_value.end()) return items;
    for (auto it = bucket->second.lower_bound(prefix); it != bucket->second.end() && (*it)->key.starts_with(prefix);
         ++it) {
      items.push_back(*it);
    }
    return items;
  }
  return std::nullopt;
}

void WatchCache::insert(const ObjectRef& object) {
  objects_.insert(object);
  for (Index& index : indexes_) {
    for (std::string& value : index.indexer.values(*object)) index.by_value[std::move(value)].insert(object);
  }
}

void WatchCache::erase(ObjectSet::iterator position) {
  const ObjectRef& object = *position;
  for (Index& index : indexes_) {
    for (const std::string& value : index.indexer.values(*object)) {
      auto bucket = index.by_value.find(value);
      if (bucket == index.by_value.end()) continue;
      auto entry = bucket->second.find(std::string_view(object->key));
      if (entry != bucket->second.end()) bucket->second.erase(entry);
      if (bucket->second.empty()) index.by_value.erase(bucket);
    }
  }
  objects_.erase(position);
}

}  // namespace kapi::storage::cacher

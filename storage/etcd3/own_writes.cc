#include "storage/etcd3/own_writes.h"

namespace kapi::storage::etcd3 {

void OwnWrites::record(Revision revision, std::string key) {
  std::lock_guard lock(mutex_);
  writes_.insert_or_assign(revision, std::move(key));
  while (writes_.size() > kCapacity) writes_.erase(writes_.begin());
}

bool OwnWrites::only_outside(std::string_view prefix, Revision after, Revision through) const {
  return newest_under(prefix, after, through) == after;
}

std::optional<Revision> OwnWrites::newest_under(std::string_view prefix, Revision after, Revision through) const {
  if (through <= after) return after;
  std::lock_guard lock(mutex_);
  // Every revision of the interval must be there: as many entries as revisions, each in it.
  if (static_cast<std::size_t>(through - after) > writes_.size()) return std::nullopt;
  Revision expected = after + 1;
  Revision newest = after;
  for (auto it = writes_.lower_bound(expected); it != writes_.end() && it->first <= through; ++it, ++expected) {
    if (it->first != expected) return std::nullopt;
    if (std::string_view(it->second).starts_with(prefix)) newest = it->first;
  }
  if (expected != through + 1) return std::nullopt;
  return newest;
}

}  // namespace kapi::storage::etcd3

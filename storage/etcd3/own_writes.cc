#include "storage/etcd3/own_writes.h"

namespace kapi::storage::etcd3 {

void OwnWrites::record(Revision revision, std::string key) {
  std::lock_guard lock(mutex_);
  writes_.insert_or_assign(revision, std::move(key));
  while (writes_.size() > kCapacity) writes_.erase(writes_.begin());
}

bool OwnWrites::only_outside(std::string_view prefix, Revision after, Revision through) const {
  if (through <= after) return true;
  std::lock_guard lock(mutex_);
  // Every revision of the interval must be there: as many entries as revisions, each in it, none under prefix.
  if (static_cast<std::size_t>(through - after) > writes_.size()) return false;
  Revision expected = after + 1;
  for (auto it = writes_.lower_bound(expected); it != writes_.end() && it->first <= through; ++it, ++expected) {
    if (it->first != expected || std::string_view(it->second).starts_with(prefix)) return false;
  }
  return expected == through + 1;
}

}  // namespace kapi::storage::etcd3

#pragma once
// The revisions this process's own writes made on etcd, with the key each wrote: the cheap proof behind a
// consistent LIST from the watch cache when etcd cannot be asked for progress (before 3.4.31/3.5.13).
//
// etcd numbers every write transaction with the next revision, one each. So when every revision after a cache's
// revision R, up to etcd's current one, is a write of this process to a key outside the cache's prefix, nothing
// under that prefix changed since R: the cache's state is etcd's state now, without reading the prefix (what
// Store::unchanged_since otherwise does, whose cost grows with the number of keys). A revision missing here (a
// write of another kapi server or client, etcd's own lease expiry, a write whose answer never came) makes the
// proof fail, and the caller reads etcd: the ledger can only ever say "unchanged" wrongly if it records a write
// that did not happen at that revision, and it records only the revisions etcd answered.
//
// Threads: any; one mutex. Memory: the last kCapacity writes.
#include "storage/interface.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::storage::etcd3 {

class OwnWrites {
 public:
  static constexpr std::size_t kCapacity = 4096;

  // A transaction of this process that succeeded at `revision`, writing (or deleting) `key`.
  void record(Revision revision, std::string key);

  // Whether every revision in (after, through] is a recorded write to a key outside `prefix`. True for an empty
  // interval.
  bool only_outside(std::string_view prefix, Revision after, Revision through) const;

  // When every revision in (after, through] is a recorded write: the newest of them under `prefix`, or `after`
  // when none is. std::nullopt when a revision of the interval is not recorded.
  std::optional<Revision> newest_under(std::string_view prefix, Revision after, Revision through) const;

 private:
  mutable std::mutex mutex_;
  std::map<Revision, std::string> writes_;
};

}  // namespace kapi::storage::etcd3

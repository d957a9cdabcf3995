#pragma once
// etcd's MVCC model on SQLite, synchronous: these classes run on the store's pool threads only.
//
// Tables:
//   meta(name, value)      'revision' = the last committed revision (1 on a fresh store, as in etcd),
//                          'compacted' = the compaction revision (0 = never compacted).
//   kv(key, …)             the current state, one row per live key (what a read at the latest revision sees).
//   history(revision, …)   one row per change: puts, and tombstones for deletions (a tombstone keeps the
//                          deleted value, so a replayed Deleted event carries the last state). The state at any
//                          revision R >= compacted is, per key, the newest row <= R unless that row is a tombstone.
//
// Compacting at C drops every history row below C that a newer row <= C supersedes, and every tombstone below
// C: exactly what etcd drops, so reads at R >= C and watches from C-1 on still see a complete history.
#include "storage/embedded/sqlite.h"
#include "storage/interface.h"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace kapi::storage::embedded {

// One committed change, as watches receive it (live or replayed from history).
struct Change {
  KeyValue kv;  // the new state; for a deletion the last state, with mod_revision = the deletion's revision
  std::optional<KeyValue> prev;  // the state before this change, when known (absent for creations)
  bool deleted = false;
};

struct WriteOp {
  enum class Kind { Create, PutIfModRevision, DeleteIfModRevision, Compact };
  Kind kind = Kind::Create;
  std::string key;
  std::string value;
  Revision expected_mod_revision = 0;  // PutIfModRevision: 0 means "only if absent"
  std::chrono::seconds ttl{0};
  Revision compact_revision = 0;
};

struct WriteOutcome {
  bool succeeded = false;
  KeyValue kv;  // succeeded: the state written (for a deletion: the last state at the deletion's revision)
  std::optional<KeyValue> current;  // a failed comparison: the state it failed against (nullopt = absent)
  std::exception_ptr error;         // this op failed on its own (e.g. KeyExists); the batch's others still apply
};

struct Snapshot {
  Revision revision = 0;
  Revision compacted = 0;
};

// A key range [start, end); end = nullopt means unbounded.
struct KeyRange {
  std::string start;
  std::optional<std::string> end;
  static KeyRange prefix(std::string prefix);
  static KeyRange single(std::string key);
  bool contains(std::string_view key) const;
};

class MvccWriter {
 public:
  // Opens the writer connection (WAL, synchronous=FULL) and creates the schema if needed.
  explicit MvccWriter(const std::filesystem::path& file);

  Snapshot snapshot() const { return {revision_, compacted_}; }

  // Applies `ops` in one durable transaction; each successful op takes the next revision. `changes` receives
  // the committed changes in revision order. Throws (with nothing applied) when SQLite itself fails.
  std::vector<WriteOutcome> apply(const std::vector<WriteOp>& ops, std::chrono::system_clock::time_point now,
                                  std::vector<Change>& changes);

 private:
  WriteOutcome apply_one(const WriteOp& op, std::int64_t now_ms, std::vector<Change>& changes);
  std::optional<KeyValue> current(const std::string& key);
  KeyValue put(const WriteOp& op, const std::optional<KeyValue>& existing, std::int64_t now_ms);
  KeyValue remove(const KeyValue& existing);
  void compact(Revision revision);

  sqlite::Database db_;
  Revision revision_ = 1;
  Revision compacted_ = 0;
};

class MvccReader {
 public:
  explicit MvccReader(const std::filesystem::path& file);

  enum class Status { Ok, Compacted, Future };

  struct RangeRequest {
    KeyRange range;
    Revision revision = 0;  // 0 = the latest
    std::int64_t limit = 0;
    const Predicate* predicate = nullptr;
  };
  struct RangeResult {
    Status status = Status::Ok;
    Snapshot snapshot;
    Revision revision = 0;  // the revision read at
    std::vector<KeyValue> items;
    bool more = false;     // the limit was reached with keys left in the range
    std::string last_key;  // the last key examined (matching the predicate or not)
    std::optional<std::int64_t> remaining;  // with no predicate and `more`: keys left after this page
  };
  // Walks the range in key order at one revision, applying the predicate, stopping when `limit` items matched,
  // like kube-apiserver's paging loop over etcd.
  RangeResult range(const RangeRequest& request);

  std::pair<Snapshot, std::optional<KeyValue>> get(const std::string& key);
  std::int64_t count(const KeyRange& range);
  // How many keys the range holds, and the newest modification among them, at one revision.
  struct RangeSummary {
    Revision revision = 0;
    std::int64_t count = 0;
    Revision newest_modification = 0;
  };
  RangeSummary summarize(const KeyRange& range);

  struct HistoryResult {
    Status status = Status::Ok;
    Snapshot snapshot;
    std::vector<Change> changes;  // revision in (after, snapshot.revision], in revision order
  };
  HistoryResult history(const KeyRange& range, Revision after);

  // The last committed revision: every read from now on sees at least its writes.
  Revision committed_revision() { return read_snapshot().revision; }

  std::optional<std::int64_t> next_expiry_ms();
  std::vector<std::pair<std::string, Revision>> expired(std::int64_t now_ms, std::int64_t limit);

 private:
  Snapshot read_snapshot();
  sqlite::Database db_;
};

std::int64_t unix_millis(std::chrono::system_clock::time_point t);

}  // namespace kapi::storage::embedded

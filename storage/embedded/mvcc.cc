#include "storage/embedded/mvcc.h"

namespace kapi::storage::embedded {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta(name, value) VALUES ('revision', 1), ('compacted', 0);
CREATE TABLE IF NOT EXISTS kv(
  key BLOB PRIMARY KEY, value BLOB NOT NULL, create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL,
  lease INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS kv_expiry ON kv(expires_at) WHERE expires_at > 0;
CREATE TABLE IF NOT EXISTS history(
  revision INTEGER PRIMARY KEY, key BLOB NOT NULL, value BLOB NOT NULL, create_rev INTEGER NOT NULL,
  prev_rev INTEGER NOT NULL, deleted INTEGER NOT NULL, lease INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS history_key ON history(key, revision);
)sql";

void configure(sqlite::Database& db) {
  // Another connection may hold the write lock briefly (WAL checkpoints); wait rather than fail.
  db.exec("PRAGMA busy_timeout = 10000");
}

// "AND <column> < ?<n>" when the range is bounded.
std::string range_condition(const KeyRange& range, const std::string& column, int start_param) {
  std::string sql = column + " >= ?" + std::to_string(start_param);
  if (range.end) sql += " AND " + column + " < ?" + std::to_string(start_param + 1);
  return sql;
}

void bind_range(sqlite::Statement& stmt, const KeyRange& range, int start_param) {
  stmt.bind_blob(start_param, range.start);
  if (range.end) stmt.bind_blob(start_param + 1, *range.end);
}

// Per key, the newest history row at or below ?3 that is not a tombstone.
std::string rows_at_revision(const KeyRange& range, const std::string& columns) {
  return "SELECT " + columns +
         " FROM (SELECT MAX(revision) AS r FROM history WHERE " + range_condition(range, "key", 1) +
         " AND revision <= ?3 GROUP BY key) m JOIN history h ON h.revision = m.r WHERE h.deleted = 0";
}

}  // namespace

std::int64_t unix_millis(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

KeyRange KeyRange::prefix(std::string prefix) {
  // etcd's GetPrefixRangeEnd: increment the last byte that is not 0xff, dropping what follows it.
  std::string end = prefix;
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return KeyRange{std::move(prefix), std::nullopt};
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return KeyRange{std::move(prefix), std::move(end)};
}

KeyRange KeyRange::single(std::string key) {
  std::string end = key;
  end.push_back('\0');
  return KeyRange{std::move(key), std::move(end)};
}

bool KeyRange::contains(std::string_view key) const {
  return key >= std::string_view(start) && (!end || key < std::string_view(*end));
}

// ---------------------------------------------------------------------------------------------- writer

MvccWriter::MvccWriter(const std::filesystem::path& file) : db_(file) {
  configure(db_);
  db_.exec("PRAGMA journal_mode = WAL");
  // FULL: the WAL is fsynced at every commit, so a commit that returned survives kill -9 and power loss.
  db_.exec("PRAGMA synchronous = FULL");
  db_.exec(kSchema);
  auto& stmt = db_.cached("SELECT name, value FROM meta");
  while (stmt.step()) {
    const std::string name = stmt.column_blob(0);
    if (name == "revision") revision_ = stmt.column_int(1);
    if (name == "compacted") compacted_ = stmt.column_int(1);
  }
  stmt.reset();
}

std::optional<KeyValue> MvccWriter::current(const std::string& key) {
  auto& stmt = db_.cached("SELECT value, create_rev, mod_rev, lease FROM kv WHERE key = ?1");
  stmt.bind_blob(1, key);
  std::optional<KeyValue> kv;
  if (stmt.step()) {
    kv = KeyValue{key, stmt.column_blob(0), stmt.column_int(1), stmt.column_int(2), stmt.column_int(3)};
  }
  stmt.reset();
  return kv;
}

KeyValue MvccWriter::put(const WriteOp& op, const std::optional<KeyValue>& existing, std::int64_t now_ms) {
  const Revision revision = ++revision_;
  KeyValue kv{op.key, op.value, existing ? existing->create_revision : revision, revision, 0};
  std::int64_t expires_at = 0;
  if (op.ttl.count() > 0) {
    kv.lease = revision;  // a lease per TTL'd write, named after the revision that attached it
    expires_at = now_ms + std::chrono::duration_cast<std::chrono::milliseconds>(op.ttl).count();
  }
  db_.cached(
         "INSERT OR REPLACE INTO kv(key, value, create_rev, mod_rev, lease, expires_at) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
      .bind_blob(1, kv.key)
      .bind_blob(2, kv.value)
      .bind(3, kv.create_revision)
      .bind(4, kv.mod_revision)
      .bind(5, kv.lease)
      .bind(6, expires_at)
      .run();
  db_.cached(
         "INSERT INTO history(revision, key, value, create_rev, prev_rev, deleted, lease) "
         "VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)")
      .bind(1, revision)
      .bind_blob(2, kv.key)
      .bind_blob(3, kv.value)
      .bind(4, kv.create_revision)
      .bind(5, existing ? existing->mod_revision : 0)
      .bind(6, kv.lease)
      .run();
  return kv;
}

KeyValue MvccWriter::remove(const KeyValue& existing) {
  const Revision revision = ++revision_;
  db_.cached("DELETE FROM kv WHERE key = ?1").bind_blob(1, existing.key).run();
  db_.cached(
         "INSERT INTO history(revision, key, value, create_rev, prev_rev, deleted, lease) "
         "VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)")
      .bind(1, revision)
      .bind_blob(2, existing.key)
      .bind_blob(3, existing.value)
      .bind(4, existing.create_revision)
      .bind(5, existing.mod_revision)
      .bind(6, existing.lease)
      .run();
  KeyValue deleted = existing;
  deleted.mod_revision = revision;
  return deleted;
}

void MvccWriter::compact(Revision revision) {
  if (revision <= compacted_) return;  // already compacted there: idempotent, like kube's compactor expects
  if (revision > revision_) {
    throw StorageError(ErrorCode::InvalidArgument, "", "mvcc: required revision is a future revision",
                       revision_);
  }
  db_.cached(
         "DELETE FROM history WHERE revision < ?1 AND (deleted = 1 OR EXISTS ("
         "SELECT 1 FROM history n WHERE n.key = history.key AND n.revision > history.revision "
         "AND n.revision <= ?1))")
      .bind(1, revision)
      .run();
  db_.cached("UPDATE meta SET value = ?1 WHERE name = 'compacted'").bind(1, revision).run();
  compacted_ = revision;
}

WriteOutcome MvccWriter::apply_one(const WriteOp& op, std::int64_t now_ms, std::vector<Change>& changes) {
  WriteOutcome outcome;
  if (op.kind == WriteOp::Kind::Compact) {
    compact(op.compact_revision);
    outcome.succeeded = true;
    return outcome;
  }
  std::optional<KeyValue> existing = current(op.key);
  switch (op.kind) {
    case WriteOp::Kind::Create:
      if (existing) throw StorageError(ErrorCode::KeyExists, op.key, "key exists", existing->mod_revision);
      break;
    case WriteOp::Kind::PutIfModRevision:
    case WriteOp::Kind::DeleteIfModRevision: {
      const Revision actual = existing ? existing->mod_revision : 0;
      const bool absent_delete = op.kind == WriteOp::Kind::DeleteIfModRevision && !existing;
      if (actual != op.expected_mod_revision || absent_delete) {
        outcome.current = std::move(existing);
        return outcome;
      }
      break;
    }
    case WriteOp::Kind::Compact:
      break;
  }
  outcome.succeeded = true;
  if (op.kind == WriteOp::Kind::DeleteIfModRevision) {
    outcome.kv = remove(*existing);
    changes.push_back(Change{outcome.kv, existing, true});
  } else {
    outcome.kv = put(op, existing, now_ms);
    changes.push_back(Change{outcome.kv, existing, false});
  }
  return outcome;
}

std::vector<WriteOutcome> MvccWriter::apply(const std::vector<WriteOp>& ops,
                                            std::chrono::system_clock::time_point now,
                                            std::vector<Change>& changes) {
  const Snapshot before = snapshot();
  const std::size_t changes_before = changes.size();
  std::vector<WriteOutcome> outcomes;
  outcomes.reserve(ops.size());
  try {
    sqlite::Transaction transaction(db_);
    for (const WriteOp& op : ops) {
      try {
        outcomes.push_back(apply_one(op, unix_millis(now), changes));
      } catch (const StorageError&) {
        // Checked before anything was written for this op, so the transaction holds only the others' writes.
        WriteOutcome failed;
        failed.error = std::current_exception();
        outcomes.push_back(std::move(failed));
      }
    }
    if (revision_ != before.revision) {
      db_.cached("UPDATE meta SET value = ?1 WHERE name = 'revision'").bind(1, revision_).run();
    }
    transaction.commit();
  } catch (...) {
    revision_ = before.revision;
    compacted_ = before.compacted;
    changes.resize(changes_before);
    throw;
  }
  return outcomes;
}

// ---------------------------------------------------------------------------------------------- reader

MvccReader::MvccReader(const std::filesystem::path& file) : db_(file) {
  configure(db_);
  db_.exec("PRAGMA query_only = 1");
}

Snapshot MvccReader::read_snapshot() {
  Snapshot snapshot;
  auto& stmt = db_.cached("SELECT name, value FROM meta");
  while (stmt.step()) {
    const std::string name = stmt.column_blob(0);
    if (name == "revision") snapshot.revision = stmt.column_int(1);
    if (name == "compacted") snapshot.compacted = stmt.column_int(1);
  }
  stmt.reset();
  return snapshot;
}

MvccReader::RangeResult MvccReader::range(const RangeRequest& request) {
  sqlite::Transaction transaction(db_, "BEGIN");
  RangeResult result;
  result.snapshot = read_snapshot();
  result.revision = request.revision == 0 ? result.snapshot.revision : request.revision;
  if (result.revision > result.snapshot.revision) {
    result.status = Status::Future;
    return result;
  }
  if (result.revision < result.snapshot.compacted) {
    result.status = Status::Compacted;
    return result;
  }
  const bool latest = result.revision == result.snapshot.revision;
  const std::string columns = "h.key, h.value, h.create_rev, h.revision, h.lease";
  const std::string sql =
      latest ? "SELECT key, value, create_rev, mod_rev, lease FROM kv WHERE " + range_condition(request.range, "key", 1) +
                   " ORDER BY key"
             : rows_at_revision(request.range, columns) + " ORDER BY h.key";
  auto& stmt = db_.cached(sql);
  bind_range(stmt, request.range, 1);
  if (!latest) stmt.bind(3, result.revision);
  const bool paging = request.limit > 0;
  while (stmt.step()) {
    if (paging && std::int64_t(result.items.size()) >= request.limit) {
      result.more = true;
      break;
    }
    KeyValue kv{stmt.column_blob(0), stmt.column_blob(1), stmt.column_int(2), stmt.column_int(3), stmt.column_int(4)};
    result.last_key = kv.key;
    if (request.predicate == nullptr || !*request.predicate || (*request.predicate)(kv)) {
      result.items.push_back(std::move(kv));
    }
  }
  stmt.reset();
  const bool filtered = request.predicate != nullptr && *request.predicate;
  if (result.more && !filtered) {
    const std::string count_sql =
        latest ? "SELECT COUNT(*) FROM kv WHERE " + range_condition(request.range, "key", 1)
               : "SELECT COUNT(*) FROM (" + rows_at_revision(request.range, "1") + ")";
    auto& count = db_.cached(count_sql);
    bind_range(count, request.range, 1);
    if (!latest) count.bind(3, result.revision);
    count.step();
    result.remaining = count.column_int(0) - request.limit;
    count.reset();
  }
  return result;
}

std::pair<Snapshot, std::optional<KeyValue>> MvccReader::get(const std::string& key) {
  sqlite::Transaction transaction(db_, "BEGIN");
  const Snapshot snapshot = read_snapshot();
  auto& stmt = db_.cached("SELECT value, create_rev, mod_rev, lease FROM kv WHERE key = ?1");
  stmt.bind_blob(1, key);
  std::optional<KeyValue> kv;
  if (stmt.step()) kv = KeyValue{key, stmt.column_blob(0), stmt.column_int(1), stmt.column_int(2), stmt.column_int(3)};
  stmt.reset();
  return {snapshot, std::move(kv)};
}

std::int64_t MvccReader::count(const KeyRange& range) {
  auto& stmt = db_.cached("SELECT COUNT(*) FROM kv WHERE " + range_condition(range, "key", 1));
  bind_range(stmt, range, 1);
  stmt.step();
  const std::int64_t n = stmt.column_int(0);
  stmt.reset();
  return n;
}

MvccReader::RangeSummary MvccReader::summarize(const KeyRange& range) {
  sqlite::Transaction transaction(db_, "BEGIN");
  RangeSummary summary;
  summary.revision = read_snapshot().revision;
  auto& stmt =
      db_.cached("SELECT COUNT(*), COALESCE(MAX(mod_rev), 0) FROM kv WHERE " + range_condition(range, "key", 1));
  bind_range(stmt, range, 1);
  stmt.step();
  summary.count = stmt.column_int(0);
  summary.newest_modification = stmt.column_int(1);
  stmt.reset();
  return summary;
}

MvccReader::HistoryResult MvccReader::history(const KeyRange& range, Revision after) {
  sqlite::Transaction transaction(db_, "BEGIN");
  HistoryResult result;
  result.snapshot = read_snapshot();
  // etcd serves a watch starting at revision after+1 unless that is below the compaction revision.
  if (after + 1 < result.snapshot.compacted) {
    result.status = Status::Compacted;
    return result;
  }
  // A future `after` is fine: nothing to replay, and the watch waits for revisions past it, as etcd's does.
  auto& stmt = db_.cached(
      "SELECT h.revision, h.key, h.value, h.create_rev, h.prev_rev, h.deleted, h.lease, "
      "p.value, p.create_rev, p.lease, p.revision "
      "FROM history h LEFT JOIN history p ON p.revision = h.prev_rev AND h.deleted = 0 "
      "WHERE h.revision > ?3 AND " + range_condition(range, "h.key", 1) + " ORDER BY h.revision");
  bind_range(stmt, range, 1);
  stmt.bind(3, after);
  while (stmt.step()) {
    Change change;
    const Revision revision = stmt.column_int(0);
    const Revision prev_revision = stmt.column_int(4);
    change.deleted = stmt.column_int(5) != 0;
    change.kv = KeyValue{stmt.column_blob(1), stmt.column_blob(2), stmt.column_int(3), revision, stmt.column_int(6)};
    if (change.deleted) {
      change.prev = change.kv;
      change.prev->mod_revision = prev_revision;
    } else if (prev_revision != 0 && stmt.column_int(10) == prev_revision) {
      change.prev = KeyValue{change.kv.key, stmt.column_blob(7), stmt.column_int(8), prev_revision, stmt.column_int(9)};
    }
    result.changes.push_back(std::move(change));
  }
  stmt.reset();
  return result;
}

std::optional<std::int64_t> MvccReader::next_expiry_ms() {
  auto& stmt = db_.cached("SELECT MIN(expires_at) FROM kv WHERE expires_at > 0");
  std::optional<std::int64_t> next;
  if (stmt.step() && stmt.column_int(0) > 0) next = stmt.column_int(0);
  stmt.reset();
  return next;
}

std::vector<std::pair<std::string, Revision>> MvccReader::expired(std::int64_t now_ms, std::int64_t limit) {
  auto& stmt = db_.cached(
      "SELECT key, mod_rev FROM kv WHERE expires_at > 0 AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2");
  stmt.bind(1, now_ms).bind(2, limit);
  std::vector<std::pair<std::string, Revision>> keys;
  while (stmt.step()) keys.emplace_back(stmt.column_blob(0), stmt.column_int(1));
  stmt.reset();
  return keys;
}

}  // namespace kapi::storage::embedded

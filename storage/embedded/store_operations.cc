// storage::Interface on the embedded store, following k8s.io/apiserver/pkg/storage/etcd3/store.go: the same
// resourceVersion rules, the same optimistic read-compare-write loops, the same paging and continue tokens.
#include "storage/continue_token.h"
#include "storage/embedded/store.h"
#include "storage/keys.h"

#include <limits>

namespace kapi::storage::embedded {
namespace {

std::string directory(std::string key) {
  if (!key.ends_with('/')) key += '/';
  return key;
}

StorageError too_large(Revision requested, Revision current) {
  return StorageError(ErrorCode::TooLargeResourceVersion, "",
                      "Too large resource version: " + std::to_string(requested) +
                          ", current: " + std::to_string(current),
                      current);
}

constexpr const char* kListTooOld = "The resourceVersion for the provided list is too old.";
constexpr const char* kWatchTooOld = "The resourceVersion for the provided watch is too old.";
constexpr const char* kInconsistentContinue =
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

KeyValue absent(const std::string& key) {
  KeyValue kv;
  kv.key = key;
  return kv;
}

}  // namespace

asio::awaitable<std::optional<KeyValue>> Store::read_current(const std::string& key) {
  auto read = with_reader([key](MvccReader& reader) { return reader.get(key); });
  auto [snapshot, kv] = co_await std::move(read);
  co_return kv;
}

asio::awaitable<KeyValue> Store::create(std::string key, std::string value, WriteOptions options) {
  validate_key(key);
  WriteOp op;
  op.kind = WriteOp::Kind::Create;
  op.key = std::move(key);
  op.value = std::move(value);
  op.ttl = options.ttl;
  auto written = write_one(std::move(op));
  WriteOutcome outcome = co_await std::move(written);
  if (options.ttl.count() > 0) note_expiry(options.ttl);
  co_return std::move(outcome.kv);
}

asio::awaitable<KeyValue> Store::remove(std::string key, PreconditionCheck preconditions) {
  validate_key(key);
  std::optional<KeyValue> current = co_await read_current(key);
  for (;;) {
    if (!current) throw StorageError(ErrorCode::KeyNotFound, key, "key not found");
    if (preconditions) preconditions(*current);
    WriteOp op;
    op.kind = WriteOp::Kind::DeleteIfModRevision;
    op.key = key;
    op.expected_mod_revision = current->mod_revision;
    auto written = write_one(std::move(op));
    WriteOutcome outcome = co_await std::move(written);
    if (outcome.succeeded) co_return std::move(outcome.kv);
    current = std::move(outcome.current);  // a concurrent write won: re-check against what it wrote
  }
}

asio::awaitable<std::optional<KeyValue>> Store::get(std::string key, GetOptions options) {
  validate_key(key);
  const Revision minimum = parse_resource_version(options.resource_version);
  auto read = with_reader([key](MvccReader& reader) { return reader.get(key); });
  auto [snapshot, kv] = co_await std::move(read);
  if (minimum > snapshot.revision) throw too_large(minimum, snapshot.revision);
  if (!kv && !options.ignore_not_found) throw StorageError(ErrorCode::KeyNotFound, key, "key not found");
  co_return kv;
}

asio::awaitable<ListResult> Store::list(std::string key, ListOptions options) {
  validate_key(key);
  const std::string key_prefix = options.recursive ? directory(key) : key;
  const Revision minimum = parse_resource_version(options.resource_version);

  MvccReader::RangeRequest request;
  request.range = options.recursive ? KeyRange::prefix(key_prefix) : KeyRange::single(key_prefix);
  request.limit = options.limit;
  request.predicate = &options.predicate;
  const bool continuing = options.recursive && !options.continue_token.empty();
  if (continuing) {
    ContinuePosition position;
    try {
      position = decode_continue(options.continue_token, key_prefix);
    } catch (const InvalidContinueToken& e) {
      throw StorageError(ErrorCode::InvalidArgument, key, std::string("invalid continue token: ") + e.what());
    }
    if (!options.resource_version.empty() && options.resource_version != "0") {
      throw StorageError(ErrorCode::InvalidArgument, key,
                         "specifying resource version is not allowed when using continue");
    }
    request.range.start = position.start_key;
    if (position.revision > 0) request.revision = position.revision;  // < 0: continue at the latest revision
  } else if (minimum > 0) {
    switch (options.resource_version_match) {
      case ResourceVersionMatch::NotOlderThan:
        break;  // checked against the revision read below
      case ResourceVersionMatch::Exact:
        request.revision = minimum;
        break;
      case ResourceVersionMatch::Unset:
        // Legacy: a paginated list with a resourceVersion reads exactly there, so its pages are consistent.
        if (options.recursive && options.limit > 0) request.revision = minimum;
        break;
    }
  }

  auto read = with_reader([&request](MvccReader& reader) { return reader.range(request); });
  MvccReader::RangeResult result = co_await std::move(read);
  if (result.status == MvccReader::Status::Future) throw too_large(request.revision, result.snapshot.revision);
  if (result.status == MvccReader::Status::Compacted) {
    if (continuing) {
      throw StorageError(ErrorCode::Expired, key, kInconsistentContinue, result.snapshot.compacted,
                         encode_continue(request.range.start, key_prefix, -1));
    }
    throw StorageError(ErrorCode::Expired, key, kListTooOld, result.snapshot.compacted);
  }
  if (minimum > result.snapshot.revision) throw too_large(minimum, result.snapshot.revision);

  ListResult list;
  list.items = std::move(result.items);
  list.revision = result.revision;
  if (result.more) {
    // Resume right after the last key examined, at the same revision.
    list.continue_token = encode_continue(result.last_key + '\0', key_prefix, result.revision);
    list.remaining_item_count = result.remaining;
  }
  co_return list;
}

asio::awaitable<KeyValue> Store::guaranteed_update(std::string key, bool ignore_not_found,
                                                   PreconditionCheck preconditions, TryUpdate try_update,
                                                   WriteOptions options) {
  validate_key(key);
  std::optional<KeyValue> current = co_await read_current(key);
  for (;;) {
    if (!current && !ignore_not_found) throw StorageError(ErrorCode::KeyNotFound, key, "key not found");
    // Like kube, preconditions also see the "zero" object when the key is absent.
    if (preconditions) preconditions(current ? *current : absent(key));
    std::optional<std::string> updated = co_await try_update(current ? &*current : nullptr);
    if (!updated || (current && *updated == current->value)) {
      // Nothing to write: the state just read is current, so it is the answer.
      if (!current) throw StorageError(ErrorCode::KeyNotFound, key, "key not found");
      co_return std::move(*current);
    }
    WriteOp op;
    op.kind = WriteOp::Kind::PutIfModRevision;
    op.key = key;
    op.value = std::move(*updated);
    op.expected_mod_revision = current ? current->mod_revision : 0;
    op.ttl = options.ttl;
    auto written = write_one(std::move(op));
    WriteOutcome outcome = co_await std::move(written);
    if (outcome.succeeded) {
      if (options.ttl.count() > 0) note_expiry(options.ttl);
      co_return std::move(outcome.kv);
    }
    current = std::move(outcome.current);  // lost the race: try again on the winner's state
  }
}

asio::awaitable<std::unique_ptr<WatchStream>> Store::watch(std::string key, WatchOptions options) {
  validate_key(key);
  const Revision from = parse_resource_version(options.resource_version);
  if (options.send_initial_events && from != 0) {
    throw StorageError(ErrorCode::InvalidArgument, key,
                       "sendInitialEvents with a resourceVersion is unsupported by the storage backend");
  }
  const std::string watched = options.recursive ? directory(key) : key;
  KeyRange range = options.recursive ? KeyRange::prefix(watched) : KeyRange::single(watched);
  auto watcher = std::make_shared<Watcher>(range, options_.watch_queue_capacity, options.progress_notify);
  // Registered first: every change after the hub's revision reaches the inbox, and the read below sees at
  // least that revision, so together they miss nothing; the overlap is skipped by revision.
  hub_->add(watcher);

  HubWatchStream::Start start;
  if (from == 0) {
    // Like kube's etcd3 watcher for RV "" and "0": the current state as Added events, then changes.
    MvccReader::RangeRequest request;
    request.range = range;
    request.predicate = &options.predicate;
    auto read = with_reader([&request](MvccReader& reader) { return reader.range(request); });
    auto current = co_await std::move(read);
    for (KeyValue& kv : current.items) {
      WatchEvent event;
      event.type = WatchEventType::Added;
      event.revision = kv.mod_revision;
      event.object = std::move(kv);
      start.initial.push_back(std::move(event));
    }
    if (options.send_initial_events && options.progress_notify) {
      // WatchList: a bookmark at the snapshot's revision tells the consumer the initial state is complete (kube
      // sends it only to a watch that asked for bookmarks).
      WatchEvent end;
      end.type = WatchEventType::Bookmark;
      end.revision = current.revision;
      end.object.mod_revision = current.revision;
      end.initial_events_end = true;
      start.initial.push_back(std::move(end));
    }
    start.snapshot = start.skip_through = current.revision;
  } else {
    auto read = with_reader([&range, from](MvccReader& reader) { return reader.history(range, from); });
    auto history = co_await std::move(read);
    if (history.status == MvccReader::Status::Compacted) {
      WatchEvent error;
      error.type = WatchEventType::Error;
      error.revision = history.snapshot.compacted;
      error.error = StorageError(ErrorCode::Expired, key, kWatchTooOld, history.snapshot.compacted);
      start.initial.push_back(std::move(error));
      start.end_after_initial = true;
    }
    start.replay.assign(std::make_move_iterator(history.changes.begin()),
                        std::make_move_iterator(history.changes.end()));
    start.snapshot = history.snapshot.revision;
    start.skip_through = std::max(history.snapshot.revision, from);
  }
  co_return std::make_unique<HubWatchStream>(hub_, std::move(watcher), std::move(options.predicate),
                                             std::move(start));
}

asio::awaitable<std::int64_t> Store::count(std::string key) {
  validate_key(key);
  KeyRange range = KeyRange::prefix(directory(key));
  auto read = with_reader([range](MvccReader& reader) { return reader.count(range); });
  co_return co_await std::move(read);
}

asio::awaitable<Revision> Store::current_revision() {
  // What readers see committed, not what watchers were last told: a batch is visible to reads from its commit, a
  // moment before it is published, and a consistent LIST that begins after a GET returned one of its writes waits
  // for the watch cache to reach this revision. The published one could still be older than that write.
  auto read = with_reader([](MvccReader& reader) { return reader.committed_revision(); });
  co_return co_await std::move(read);
}

asio::awaitable<std::optional<Revision>> Store::unchanged_since(std::string key_prefix, Revision revision,
                                                                std::int64_t count) {
  validate_key(key_prefix);
  KeyRange range = KeyRange::prefix(directory(key_prefix));
  auto read = with_reader([range](MvccReader& reader) { return reader.summarize(range); });
  const MvccReader::RangeSummary summary = co_await std::move(read);
  if (summary.count != count || summary.newest_modification > revision) co_return std::nullopt;
  co_return summary.revision;
}

asio::awaitable<void> Store::request_watch_progress() {
  hub_->progress();
  co_return;
}

asio::awaitable<void> Store::compact(Revision revision) {
  WriteOp op;
  op.kind = WriteOp::Kind::Compact;
  op.compact_revision = revision;
  auto written = write_one(std::move(op));
  co_await std::move(written);
}

}  // namespace kapi::storage::embedded

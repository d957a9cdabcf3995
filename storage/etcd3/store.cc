#include "storage/etcd3/store.h"

#include "storage/continue_token.h"
#include "storage/etcd3/conversions.h"
#include "storage/keys.h"

#include <algorithm>

namespace kapi::storage::etcd3 {
namespace {

// kube-apiserver's messages for a list whose revision etcd has compacted (storage/etcd3/store.go).
const char* const kListExpired = "The resourceVersion for the provided list is too old.";
const char* const kInconsistentContinue =
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list.";
const char* const kContinueExpired =
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter.";

// The largest page a filtered list asks etcd for while filling its limit.
constexpr std::int64_t kMaxPageSize = 10000;

void compare_mod_revision(etcdserverpb::TxnRequest& txn, const std::string& key, Revision revision) {
  auto* compare = txn.add_compare();
  compare->set_key(key);
  compare->set_target(etcdserverpb::Compare::MOD);
  compare->set_result(etcdserverpb::Compare::EQUAL);
  compare->set_mod_revision(revision);  // 0: the key does not exist
}

void get_on_failure(etcdserverpb::TxnRequest& txn, const std::string& key) {
  txn.add_failure()->mutable_request_range()->set_key(key);
}

std::optional<KeyValue> first_kv(const etcdserverpb::RangeResponse& range) {
  if (range.kvs().empty()) return std::nullopt;
  return to_key_value(range.kvs(0));
}

StorageError not_found(const std::string& key) { return StorageError(ErrorCode::KeyNotFound, key, "key not found"); }

void require_at_least(Revision minimum, Revision current, const std::string& key) {
  if (minimum > current) {
    throw StorageError(ErrorCode::TooLargeResourceVersion, key,
                       "Too large resource version: " + std::to_string(minimum) +
                           ", current: " + std::to_string(current),
                       current);
  }
}

}  // namespace

Store::Store(asio::any_io_executor executor, StoreOptions options)
    : client_(std::make_shared<Client>(std::move(options.client))),
      leases_(client_, options.lease_reuse),
      watches_(std::make_shared<WatchRegistry>()),
      features_(std::make_unique<FeatureSupport>(executor, client_, options.logger)) {
  if (options.compaction_interval > std::chrono::nanoseconds::zero()) {
    compactor_ = std::make_unique<Compactor>(std::move(executor), client_, options.compaction_interval,
                                             options.logger);
  }
}

Store::~Store() = default;

asio::awaitable<etcdserverpb::TxnResponse> Store::commit(etcdserverpb::TxnRequest txn, const std::string& key) {
  try {
    auto response = co_await client_->txn(std::move(txn));
    if (response.succeeded()) own_writes_.record(response.header().revision(), key);
    co_return response;
  } catch (const RpcError& error) {
    throw to_storage_error(error, key);
  }
}

asio::awaitable<etcdserverpb::RangeResponse> Store::read(etcdserverpb::RangeRequest range, const std::string& key) {
  try {
    auto response = co_await client_->range(std::move(range));
    co_return response;
  } catch (const RpcError& error) {
    if (error.future_revision()) {
      throw StorageError(ErrorCode::TooLargeResourceVersion, key, "Too large resource version");
    }
    throw to_storage_error(error, key, kListExpired);
  }
}

asio::awaitable<std::int64_t> Store::lease_for(std::chrono::seconds ttl, const std::string& key) {
  try {
    const std::int64_t lease = co_await leases_.lease_for(ttl);
    co_return lease;
  } catch (const RpcError& error) {
    throw to_storage_error(error, key);
  }
}

asio::awaitable<std::optional<KeyValue>> Store::read_current(const std::string& key) {
  etcdserverpb::RangeRequest range;
  range.set_key(key);
  auto response = co_await read(std::move(range), key);
  co_return first_kv(response);
}

asio::awaitable<KeyValue> Store::create(std::string key, std::string value, WriteOptions options) {
  validate_key(key);
  const std::int64_t lease = options.ttl.count() > 0 ? co_await lease_for(options.ttl, key) : 0;
  etcdserverpb::TxnRequest txn;
  compare_mod_revision(txn, key, 0);
  auto* put = txn.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
  auto response = co_await commit(std::move(txn), key);
  if (!response.succeeded()) throw StorageError(ErrorCode::KeyExists, key, "key exists");
  const Revision revision = response.header().revision();
  co_return KeyValue{std::move(key), std::move(value), revision, revision, lease};
}

asio::awaitable<KeyValue> Store::remove(std::string key, PreconditionCheck preconditions) {
  validate_key(key);
  std::optional<KeyValue> current = co_await read_current(key);
  for (;;) {
    if (!current) throw not_found(key);
    if (preconditions) preconditions(*current);
    etcdserverpb::TxnRequest txn;
    compare_mod_revision(txn, key, current->mod_revision);
    txn.add_success()->mutable_request_delete_range()->set_key(key);
    get_on_failure(txn, key);
    auto response = co_await commit(std::move(txn), key);
    if (!response.succeeded()) {
      // A concurrent write won: check the preconditions again against what it left.
      current = first_kv(response.responses(0).response_range());
      continue;
    }
    KeyValue deleted = std::move(*current);
    deleted.mod_revision = response.header().revision();
    co_return deleted;
  }
}

asio::awaitable<KeyValue> Store::guaranteed_update(std::string key, bool ignore_not_found,
                                                   PreconditionCheck preconditions, TryUpdate try_update,
                                                   WriteOptions options) {
  validate_key(key);
  std::optional<KeyValue> current = co_await read_current(key);
  for (;;) {
    if (!current && !ignore_not_found) throw not_found(key);
    if (preconditions) preconditions(current ? *current : KeyValue{key, {}, 0, 0, 0});
    std::optional<std::string> updated = co_await try_update(current ? &*current : nullptr);
    if (!updated) {
      if (!current) throw not_found(key);
      co_return *current;
    }
    // Writing identical bytes would only bump the revision and wake every watcher (kube skips it too).
    if (current && *updated == current->value) co_return *current;

    const std::int64_t lease = options.ttl.count() > 0 ? co_await lease_for(options.ttl, key) : 0;
    const Revision expected = current ? current->mod_revision : 0;
    etcdserverpb::TxnRequest txn;
    compare_mod_revision(txn, key, expected);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(*updated);
    put->set_lease(lease);
    get_on_failure(txn, key);
    auto response = co_await commit(std::move(txn), key);
    if (!response.succeeded()) {
      current = first_kv(response.responses(0).response_range());
      continue;
    }
    const Revision revision = response.header().revision();
    const Revision created = current ? current->create_revision : revision;
    co_return KeyValue{std::move(key), std::move(*updated), created, revision, lease};
  }
}

asio::awaitable<std::optional<KeyValue>> Store::get(std::string key, GetOptions options) {
  validate_key(key);
  const Revision minimum = parse_resource_version(options.resource_version, key);
  etcdserverpb::RangeRequest range;
  range.set_key(key);
  auto response = co_await read(std::move(range), key);
  require_at_least(minimum, response.header().revision(), key);
  auto kv = first_kv(response);
  if (!kv && !options.ignore_not_found) throw not_found(key);
  co_return kv;
}

asio::awaitable<ListResult> Store::list(std::string key, ListOptions options) {
  validate_key(key, options.recursive);
  const bool recursive = options.recursive;
  // "/a" must not list "/ab/…": a recursive list covers the children of a directory.
  if (recursive && !key.ends_with('/')) key += '/';
  const std::string key_prefix = key;
  const Revision from = parse_resource_version(options.resource_version, key);
  const bool has_resource_version = !options.resource_version.empty();
  const Predicate& predicate = options.predicate;
  const bool paging = options.limit > 0;
  std::int64_t page_size = options.limit;

  etcdserverpb::RangeRequest range;
  range.set_key(key);
  Revision returned = 0;      // the revision the list answers at
  Revision read_at = 0;       // the revision pinned for etcd reads (0: latest)
  std::string continue_from;  // the resumed key, for a fresh token if its revision is gone
  if (recursive && !options.continue_token.empty()) {
    ContinuePosition position;
    try {
      position = decode_continue(options.continue_token, key_prefix);
    } catch (const std::invalid_argument& error) {
      throw StorageError(ErrorCode::InvalidArgument, key, std::string("invalid continue token: ") + error.what());
    }
    if (has_resource_version && options.resource_version != "0") {
      throw StorageError(ErrorCode::InvalidArgument, key,
                         "specifying resource version is not allowed when using continue");
    }
    range.set_key(position.start_key);
    range.set_range_end(prefix_range_end(key_prefix));
    continue_from = position.start_key;
    // A negative revision continues at the latest one (the token of an "inconsistent continue").
    if (position.revision > 0) read_at = returned = position.revision;
  } else {
    const bool exact = options.resource_version_match == ResourceVersionMatch::Exact;
    // With a limit and no match, a resourceVersion also pins the pages to it: the legacy paging behaviour.
    const bool legacy_paged = options.resource_version_match == ResourceVersionMatch::Unset && recursive && paging;
    if (has_resource_version && (exact || legacy_paged) && from > 0) read_at = returned = from;
    if (recursive) range.set_range_end(prefix_range_end(key_prefix));
  }

  ListResult result;
  bool more = false;
  std::string last_key;
  etcdserverpb::RangeResponse response;
  for (;;) {
    range.set_revision(read_at);
    range.set_limit(paging ? page_size : 0);
    try {
      response = co_await client_->range(range);
    } catch (const RpcError& error) {
      if (error.compacted() && !continue_from.empty()) {
        throw StorageError(ErrorCode::Expired, key, kInconsistentContinue, 0,
                           encode_continue(continue_from, key_prefix, -1));
      }
      if (error.future_revision()) {
        throw StorageError(ErrorCode::TooLargeResourceVersion, key, "Too large resource version: " +
                                                                        std::to_string(read_at));
      }
      throw to_storage_error(error, key, options.continue_token.empty() ? kListExpired : kContinueExpired);
    }
    if (has_resource_version) require_at_least(from, response.header().revision(), key);
    more = response.more();
    if (response.kvs().empty() && more) {
      throw StorageError(ErrorCode::Internal, key,
                         "no results were found, but etcd indicated there were more values remaining");
    }
    for (const auto& kv : response.kvs()) {
      if (paging && static_cast<std::int64_t>(result.items.size()) >= options.limit) {
        more = true;
        break;
      }
      last_key = kv.key();
      KeyValue item = to_key_value(kv);
      if (!predicate || predicate(item)) result.items.push_back(std::move(item));
    }
    if (returned == 0) returned = response.header().revision();
    if (!more || !paging || static_cast<std::int64_t>(result.items.size()) >= options.limit) break;
    // The predicate dropped items: ask for bigger pages, at the revision of the first, until the limit fills.
    page_size = std::min(page_size * 2, std::max(kMaxPageSize, options.limit));
    range.set_key(last_key + '\0');
    if (read_at == 0) read_at = returned;
  }

  result.revision = returned;
  if (more) {
    result.continue_token = encode_continue(last_key + '\0', key_prefix, returned);
    // Only exact without a predicate: etcd counts every key of the range.
    if (!predicate) result.remaining_item_count = response.count() - options.limit;
  }
  co_return result;
}

asio::awaitable<std::unique_ptr<WatchStream>> Store::watch(std::string key, WatchOptions options) {
  validate_key(key, options.recursive);
  auto stream = co_await start_watch(client_, watches_, std::move(key), std::move(options));
  co_return stream;
}

asio::awaitable<std::int64_t> Store::count(std::string key) {
  validate_key(key, true);
  if (!key.ends_with('/')) key += '/';
  etcdserverpb::RangeRequest range;
  range.set_key(key);
  range.set_range_end(prefix_range_end(key));
  range.set_count_only(true);
  auto response = co_await read(std::move(range), key);
  co_return response.count();
}

asio::awaitable<Revision> Store::current_revision() {
  // Any linearizable read reports the store's revision in its header; a key nothing uses keeps it cheap.
  etcdserverpb::RangeRequest range;
  range.set_key(std::string(1, '\0'));
  auto response = co_await read(std::move(range), "");
  co_return response.header().revision();
}

asio::awaitable<void> Store::request_watch_progress() {
  // Answers that may run ahead of the events are worse than none: nothing is asked of such an etcd.
  if (features_->request_watch_progress()) watches_->request_progress();
  co_return;
}

bool Store::can_request_watch_progress() const { return features_->request_watch_progress(); }

asio::awaitable<std::optional<Revision>> Store::unchanged_since(std::string key_prefix, Revision revision,
                                                                std::int64_t count) {
  validate_key(key_prefix, true);
  // First the proof that reads no value: a count of the prefix's keys (etcd's in-memory index only) gives the
  // current revision too, and every write since `revision` one of this process's to keys elsewhere (own_writes.h)
  // proves the counted keys unchanged. A single kapi server proves a quiet prefix this way whatever else it
  // writes (leases, events); another writer's revision sends the check to the Range below.
  etcdserverpb::RangeRequest counting;
  counting.set_key(key_prefix);
  counting.set_range_end(prefix_range_end(key_prefix));
  counting.set_count_only(true);
  auto counted = co_await read(std::move(counting), key_prefix);
  if (counted.count() != count) co_return std::nullopt;
  const Revision current = counted.header().revision();
  if (own_writes_.only_outside(key_prefix, revision, current)) co_return current;
  // One linearizable Range: etcd filters out the keys not modified after `revision` (min_mod_revision) and still
  // counts every key in the range, so a single small answer says both whether anything changed and how many
  // objects there are. etcd reads the range to filter it, but sends and kapi decodes nothing.
  etcdserverpb::RangeRequest range;
  range.set_key(key_prefix);
  range.set_range_end(prefix_range_end(key_prefix));
  range.set_min_mod_revision(revision + 1);
  range.set_keys_only(true);
  range.set_limit(1);
  auto response = co_await read(std::move(range), key_prefix);
  if (response.kvs_size() > 0 || response.count() != count) co_return std::nullopt;
  co_return response.header().revision();
}

asio::awaitable<std::optional<Interface::KnownChanges>> Store::known_changes_since(std::string key_prefix,
                                                                                   Revision revision) {
  validate_key(key_prefix, true);
  // Asking the revision costs etcd a read of one absent key, whatever the prefix holds.
  const Revision current = co_await current_revision();
  const std::optional<Revision> newest = own_writes_.newest_under(key_prefix, revision, current);
  if (!newest) co_return std::nullopt;
  co_return KnownChanges{.current = current, .newest_under_prefix = *newest};
}

asio::awaitable<void> Store::compact(Revision revision) {
  etcdserverpb::CompactionRequest request;
  request.set_revision(revision);
  try {
    co_await client_->compact(std::move(request));
  } catch (const RpcError& error) {
    if (error.compacted()) co_return;  // already compacted at or past it
    if (error.future_revision()) {
      throw StorageError(ErrorCode::InvalidArgument, "", "mvcc: required revision is a future revision");
    }
    throw to_storage_error(error, "");
  }
}

asio::awaitable<void> Store::check_health(std::chrono::milliseconds timeout) {
  etcdserverpb::RangeRequest range;
  range.set_key("health");
  try {
    co_await client_->range(std::move(range), timeout);
  } catch (const RpcError& error) {
    throw to_storage_error(error, "health");
  }
}

}  // namespace kapi::storage::etcd3

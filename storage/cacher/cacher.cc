// The Cacher's requests: what is served from the cache, what goes to the backend (kube's CacheDelegator), and
// how a read waits for the cache to be fresh enough. The reflector and the periodic duties are in reflector.cc.
//
// g++ 12 destroys temporaries of a co_await full-expression twice: arguments and awaited operands are named first.
#include "storage/cacher/cacher.h"

#include "storage/continue_token.h"
#include "storage/keys.h"

#include <asio/experimental/awaitable_operators.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <utility>

namespace kapi::storage::cacher {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// How often a waiting reader asks the backend for progress (kube's progressRequestPeriod).
constexpr auto kProgressRequestPeriod = 100ms;

std::string directory(std::string key) {
  if (!key.ends_with('/')) key += '/';
  return key;
}

KeyScope scope_of(const std::string& key, bool recursive) { return {recursive ? directory(key) : key, recursive}; }

StorageError too_large(Revision requested, Revision current) {
  return StorageError(ErrorCode::TooLargeResourceVersion, "",
                      "Too large resource version: " + std::to_string(requested) + ", current: " +
                          std::to_string(current),
                      current);
}

// kube's shouldDelegateList: what the cache cannot answer.
bool goes_to_backend(const ListOptions& options) {
  switch (options.resource_version_match) {
    case ResourceVersionMatch::Exact:
      return true;
    case ResourceVersionMatch::NotOlderThan:
      break;
    case ResourceVersionMatch::Unset:
      // The legacy exact read: a paginated list at a given revision reads exactly there.
      if (options.limit > 0 && !options.resource_version.empty() && options.resource_version != "0") return true;
      break;
  }
  return !options.continue_token.empty();
}

ListResult copy_out(SharedListResult shared) {
  ListResult result;
  result.items.reserve(shared.items.size());
  for (const ObjectRef& item : shared.items) result.items.push_back(item->to_key_value());
  result.revision = shared.revision;
  result.continue_token = std::move(shared.continue_token);
  result.remaining_item_count = shared.remaining_item_count;
  return result;
}

}  // namespace

bool Cacher::covers(const KeyScope& scope) const { return scope.key.starts_with(prefix_); }

asio::awaitable<KeyValue> Cacher::create(std::string key, std::string value, WriteOptions options) {
  co_return co_await backend_.create(std::move(key), std::move(value), options);
}

asio::awaitable<KeyValue> Cacher::remove(std::string key, PreconditionCheck preconditions) {
  co_return co_await backend_.remove(std::move(key), std::move(preconditions));
}

asio::awaitable<KeyValue> Cacher::guaranteed_update(std::string key, bool ignore_not_found,
                                                    PreconditionCheck preconditions, TryUpdate try_update,
                                                    WriteOptions options) {
  co_return co_await backend_.guaranteed_update(std::move(key), ignore_not_found, std::move(preconditions),
                                                std::move(try_update), options);
}

asio::awaitable<std::int64_t> Cacher::count(std::string key_prefix) {
  co_return co_await backend_.count(std::move(key_prefix));
}

asio::awaitable<Revision> Cacher::current_revision() { co_return co_await backend_.current_revision(); }

asio::awaitable<void> Cacher::request_watch_progress() {
  // The bookmark must cover every write acknowledged before this call: note the backend's revision first.
  const Revision revision = co_await backend_.current_revision();
  state_->request_bookmarks(revision);
  co_await backend_.request_watch_progress();
}

asio::awaitable<void> Cacher::compact(Revision revision) {
  co_await backend_.compact(revision);
  state_->compact(revision);
}

asio::awaitable<std::optional<KeyValue>> Cacher::get(std::string key, GetOptions options) {
  std::optional<ObjectRef> shared = co_await get_shared(std::move(key), std::move(options));
  if (!shared) co_return std::nullopt;
  co_return (*shared)->to_key_value();
}

asio::awaitable<std::optional<ObjectRef>> Cacher::get_shared(std::string key, GetOptions options) {
  // resourceVersion "" reads the backend; anything else the cache, once it is ready and fresh enough.
  std::optional<CacheState::Snapshot> snapshot;
  if (!options.resource_version.empty()) {
    const Revision minimum = parse_resource_version(options.resource_version);
    const KeyScope scope = scope_of(key, false);
    if (covers(scope) && state_->ready()) {
      validate_key(key);
      if (!behind_without_progress(minimum)) {
        if (minimum > 0 && !co_await wait_until_fresh(minimum, options_.fresh_wait_timeout, true)) {
          throw too_large(minimum, state_->revision());
        }
        snapshot = state_->read(scope, std::nullopt);
      }
    }
  }
  if (!snapshot) co_return co_await backend_.get_shared(std::move(key), std::move(options));
  if (snapshot->items.empty()) {
    if (options.ignore_not_found) co_return std::nullopt;
    throw StorageError(ErrorCode::KeyNotFound, key, "key not found", snapshot->revision);
  }
  co_return snapshot->items.front();
}

asio::awaitable<ListResult> Cacher::list(std::string key_prefix, ListOptions options) {
  SharedListResult shared = co_await list_shared(std::move(key_prefix), std::move(options));
  co_return copy_out(std::move(shared));
}

asio::awaitable<ListResult> Cacher::list_by_index(std::string key_prefix, IndexQuery index, ListOptions options) {
  std::optional<IndexQuery> by_index(std::move(index));
  SharedListResult shared = co_await list_cached(std::move(key_prefix), std::move(options), std::move(by_index));
  co_return copy_out(std::move(shared));
}

asio::awaitable<SharedListResult> Cacher::list_shared(std::string key_prefix, ListOptions options) {
  co_return co_await list_cached(std::move(key_prefix), std::move(options), std::nullopt);
}

asio::awaitable<SharedListResult> Cacher::list_cached(std::string key_prefix, ListOptions options,
                                                      std::optional<IndexQuery> index) {
  const KeyScope scope = scope_of(key_prefix, options.recursive);
  const bool consistent = options.resource_version.empty();
  if (goes_to_backend(options) || !covers(scope) || !state_->ready()) {
    co_return co_await backend_.list_shared(std::move(key_prefix), std::move(options));
  }
  if (consistent && !backend_.can_request_watch_progress()) {
    // kube reads these from etcd. The cache may serve one still, when the backend shows that nothing under the
    // prefix changed since the cache's revision: the state then is the cache's, at the backend's revision.
    // First the proof that reads nothing; then the one that counts every object under the prefix (an index's
    // narrower candidates cannot be compared with its count), which concurrent LISTs share.
    auto reading = read_known_current(scope, index);
    if (std::optional<CacheState::Snapshot> known = co_await std::move(reading)) {
      co_return page(std::move(*known), scope, options);
    }
    if (scope.recursive && !index) {
      auto proving = unchanged_checks_.join(scope.key, [this, &scope] { return prove_unchanged(scope); });
      if (SharedUnchangedChecks::Proven snapshot = co_await std::move(proving)) {
        co_return page(*snapshot, scope, options);
      }
    }
    co_return co_await backend_.list_shared(std::move(key_prefix), std::move(options));
  }
  const Revision requested = parse_resource_version(options.resource_version);
  validate_key(key_prefix, true);

  if (!consistent && behind_without_progress(requested)) {
    co_return co_await backend_.list_shared(std::move(key_prefix), std::move(options));
  }
  if (!consistent && requested > 0) {
    if (!co_await wait_until_fresh(requested, options_.fresh_wait_timeout, true)) {
      throw too_large(requested, state_->revision());
    }
  } else if (consistent) {
    const Revision minimum = co_await backend_.current_revision();
    const auto timeout = options_.consistent_read_timeout;
    if (!co_await wait_until_fresh(minimum, timeout, true)) {
      if (options_.consistent_read_fallback) {
        co_return co_await backend_.list_shared(std::move(key_prefix), std::move(options));
      }
      throw StorageError(ErrorCode::Timeout, key_prefix,
                         "Timeout: the watch cache did not reach resource version " + std::to_string(minimum) +
                             " within " + std::to_string(timeout.count()) + "ms (current: " +
                             std::to_string(state_->revision()) + ")",
                         state_->revision());
    }
  }
  std::optional<CacheState::Snapshot> snapshot = state_->read(scope, index);
  if (!snapshot) co_return co_await backend_.list_shared(std::move(key_prefix), std::move(options));
  co_return page(std::move(*snapshot), scope, options);
}

asio::awaitable<std::optional<CacheState::Snapshot>> Cacher::read_known_current(
    const KeyScope& scope, const std::optional<IndexQuery>& index) {
  const Revision cached = state_->revision();
  auto asking = backend_.known_changes_since(scope.key, cached);
  const std::optional<KnownChanges> known = co_await std::move(asking);
  if (!known) co_return std::nullopt;
  if (known->newest_under_prefix > cached) {
    // The changes under the prefix are on their way to the cache (this process made them); after them, the rest
    // up to `current` lies elsewhere.
    auto waiting = wait_until_fresh(known->newest_under_prefix, options_.consistent_read_timeout, false);
    if (!co_await std::move(waiting)) co_return std::nullopt;
  }
  std::optional<CacheState::Snapshot> snapshot = state_->read(scope, index);
  if (snapshot) snapshot->revision = std::max(snapshot->revision, known->current);
  co_return snapshot;
}

asio::awaitable<SharedUnchangedChecks::Proven> Cacher::prove_unchanged(const KeyScope& scope) {
  std::optional<CacheState::Snapshot> snapshot = state_->read(scope, std::nullopt);
  if (!snapshot) co_return nullptr;
  auto proof = backend_.unchanged_since(scope.key, snapshot->revision,
                                        static_cast<std::int64_t>(snapshot->items.size()));
  const std::optional<Revision> current = co_await std::move(proof);
  if (!current) co_return nullptr;
  snapshot->revision = *current;
  co_return std::make_shared<const CacheState::Snapshot>(std::move(*snapshot));
}

SharedListResult Cacher::page(CacheState::Snapshot snapshot, const KeyScope& scope, const ListOptions& options) const {
  // Filter and paginate outside the lock: the predicate may parse every object.
  SharedListResult result;
  result.revision = snapshot.revision;
  const bool limited = options.recursive && options.limit > 0;
  if (!options.predicate && (!limited || std::cmp_less_equal(snapshot.items.size(), options.limit))) {
    result.items = std::move(snapshot.items);  // all of it: no copy of (and no count on) every item's pointer
    return result;
  }
  const std::vector<ObjectRef>& candidates = snapshot.items;
  bool more = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (options.predicate && !options.predicate(*candidates[i])) continue;
    result.items.push_back(candidates[i]);
    if (limited && static_cast<std::int64_t>(result.items.size()) >= options.limit) {
      more = i + 1 < candidates.size();
      break;
    }
  }
  if (more) {
    // kube's PrepareContinueToken: resume after the last returned key, at the revision this page was read at.
    result.continue_token = encode_continue(std::string(result.items.back()->key) + '\0', scope.key, result.revision);
    if (!options.predicate) {
      result.remaining_item_count = static_cast<std::int64_t>(candidates.size()) - options.limit;
    }
  }
  return result;
}

asio::awaitable<std::unique_ptr<WatchStream>> Cacher::watch(std::string key, WatchOptions options) {
  const Revision requested = parse_resource_version(options.resource_version);
  const KeyScope scope = scope_of(key, options.recursive);
  if (!covers(scope)) co_return co_await backend_.watch(std::move(key), std::move(options));
  validate_key(key, options.recursive);
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  if (!co_await wait_until_fresh(0, options_.ready_timeout, false)) {
    throw StorageError(ErrorCode::Unreachable, key, "storage is (re)initializing");
  }

  CacheWatcher::Settings settings;
  settings.scope = scope;
  settings.predicate = std::move(options.predicate);
  settings.bookmarks = options.progress_notify;
  settings.buffer_capacity = options_.watcher_buffer;
  settings.bookmark_interval = options_.bookmark_interval;

  CacheState::Start start = CacheState::Start::WithState;
  if (options.send_initial_events) {
    // WatchList: the initial state at least as new as the requested revision, or as the backend's current one.
    const bool consistent = options.resource_version.empty();
    const Revision minimum = consistent ? co_await backend_.current_revision() : requested;
    const auto timeout = consistent ? options_.consistent_read_timeout : options_.fresh_wait_timeout;
    if (minimum > 0 && !co_await wait_until_fresh(minimum, timeout, true)) {
      auto failed = std::make_shared<CacheWatcher>(executor, std::move(settings));
      failed->start_with_error(too_large(minimum, state_->revision()));
      co_return std::make_unique<CacheWatchStream>(state_, std::move(failed));
    }
    // kube closes the initial events with a Bookmark only for a watch that asked for bookmarks.
    start = settings.bookmarks ? CacheState::Start::WithStateThenBookmark : CacheState::Start::WithState;
  } else if (requested > 0) {
    start = CacheState::Start::After;
  }
  auto watcher = state_->add_watcher(executor, std::move(settings), start, requested);
  co_return std::make_unique<CacheWatchStream>(state_, std::move(watcher));
}

bool Cacher::behind_without_progress(Revision revision) const {
  // Without progress requests only an event of this resource could bring the cache there, and a revision from
  // another resource's write may never come: the backend answers at once instead (kube waits, then 504s).
  return revision > 0 && !state_->fresh(revision) && !backend_.can_request_watch_progress();
}

asio::awaitable<bool> Cacher::wait_until_fresh(Revision revision, std::chrono::milliseconds timeout,
                                               bool ask_progress) {
  using namespace asio::experimental::awaitable_operators;
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto bell = std::make_shared<Doorbell>(executor, 1);
  if (!state_->await_revision(revision, bell)) co_return state_->fresh(revision);

  const Clock::time_point deadline = Clock::now() + timeout;
  asio::steady_timer timer(executor);
  bool rung = false;
  for (Clock::time_point now = Clock::now(); !rung && now < deadline; now = Clock::now()) {
    if (ask_progress) co_await ask_progress_throttled();
    timer.expires_after(std::min<Clock::duration>(kProgressRequestPeriod, deadline - now));
    auto rung_now = bell->async_receive(asio::use_awaitable);
    auto expired = timer.async_wait(asio::use_awaitable);
    auto first = co_await (std::move(rung_now) || std::move(expired));
    rung = first.index() == 0;
  }
  state_->forget_waiter(bell);
  co_return state_->fresh(revision);
}

asio::awaitable<void> Cacher::ask_progress_throttled() {
  const std::int64_t now = Clock::now().time_since_epoch().count();
  std::int64_t last = last_progress_request_ns_.load();
  const std::int64_t period = std::chrono::duration_cast<Clock::duration>(kProgressRequestPeriod).count();
  if (now - last < period || !last_progress_request_ns_.compare_exchange_strong(last, now)) co_return;
  try {
    co_await backend_.request_watch_progress();
  } catch (const std::exception&) {
    // Best effort: the wait ends at its deadline either way.
  }
}

}  // namespace kapi::storage::cacher

#pragma once
// The storage contract every backend (etcd3, embedded) and the Cacher fulfil: the shape of
// k8s.io/apiserver/pkg/storage.Interface, with objects carried as their serialized bytes.
//
// Revisions: one global, strictly increasing revision per backend, bumped by every write. An object's
// resourceVersion is its mod_revision. Keys are full keys, including the backend's prefix handling done by
// the backend itself (callers pass keys like "/registry/configmaps/default/x" or a prefix ending in '/').
#include <asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kapi::storage {

using Revision = std::int64_t;

struct KeyValue {
  std::string key;
  std::string value;  // the serialized object, exactly as written
  Revision create_revision = 0;
  Revision mod_revision = 0;  // the object's resourceVersion
  std::int64_t lease = 0;     // non-zero when written with a TTL
};

// An object version as predicates, indexes and encoders read it, whoever holds its bytes: a backend's KeyValue, or
// the watch cache's shared object (storage/shared_object.h). Valid while that holder is.
struct ObjectView {
  std::string_view key;
  std::string_view value;
  Revision create_revision = 0;
  Revision mod_revision = 0;
  std::int64_t lease = 0;

  ObjectView() = default;
  ObjectView(const KeyValue& object)  // NOLINT(google-explicit-constructor): a KeyValue is read as a view
      : key(object.key),
        value(object.value),
        create_revision(object.create_revision),
        mod_revision(object.mod_revision),
        lease(object.lease) {}

  KeyValue to_key_value() const { return {std::string(key), std::string(value), create_revision, mod_revision, lease}; }
};

// The error kinds of k8s.io/apiserver/pkg/storage/errors.go, plus Expired for "too old resource version".
enum class ErrorCode {
  KeyNotFound,
  KeyExists,
  ResourceVersionConflicts,  // a precondition (uid, resourceVersion) failed, or a concurrent writer won
  InvalidObj,
  InvalidArgument,  // bad resourceVersion / continue token / option combination (→ 400)
  Expired,          // compacted revision: watch → 410 Gone, list continue → 410 Expired
  TooLargeResourceVersion,  // a requested revision the backend has not reached within the wait bound
  Timeout,
  Unreachable,
  Internal,
};

class StorageError : public std::runtime_error {
 public:
  StorageError(ErrorCode code, std::string key, std::string message, Revision revision = 0,
               std::string continue_token = {})
      : std::runtime_error(std::move(message)),
        code_(code),
        key_(std::move(key)),
        revision_(revision),
        continue_token_(std::move(continue_token)) {}
  ErrorCode code() const noexcept { return code_; }
  const std::string& key() const noexcept { return key_; }
  // For Expired: the oldest revision still available; for TooLargeResourceVersion: the current one.
  Revision revision() const noexcept { return revision_; }
  // For Expired on a paginated list whose continue revision is compacted: a token continuing the list at the
  // latest revision, which kube-apiserver returns in the 410 Status's metadata.continue ("inconsistent continue").
  const std::string& continue_token() const noexcept { return continue_token_; }

 private:
  ErrorCode code_;
  std::string key_;
  Revision revision_;
  std::string continue_token_;
};

// Selects objects; empty means "everything". Applied by the backend (or cacher) to each candidate.
using Predicate = std::function<bool(const ObjectView&)>;

// Checked against the current object before a delete or update is applied; throws StorageError
// (ResourceVersionConflicts) to refuse. Registries use it for uid / resourceVersion preconditions.
using PreconditionCheck = std::function<void(const KeyValue& current)>;

// How a read treats resourceVersion (k8s.io/apimachinery metav1.ResourceVersionMatch).
enum class ResourceVersionMatch { Unset, NotOlderThan, Exact };

struct GetOptions {
  // "" = most recent (consistent read); "0" = any; "N" = not older than N.
  std::string resource_version;
  bool ignore_not_found = false;
};

struct ListOptions {
  std::string resource_version;  // as in GetOptions; with match=Exact, the revision to read at
  ResourceVersionMatch resource_version_match = ResourceVersionMatch::Unset;
  Predicate predicate;
  std::int64_t limit = 0;      // 0 = no limit
  std::string continue_token;  // opaque, from a previous ListResult
  bool recursive = true;       // false: the key names one object
};

struct ListResult {
  std::vector<KeyValue> items;
  Revision revision = 0;        // the revision the list was read at (the list's resourceVersion)
  std::string continue_token;   // non-empty when more items remain
  std::optional<std::int64_t> remaining_item_count;
};

struct WriteOptions {
  std::chrono::seconds ttl{0};  // 0 = no expiry
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  KeyValue object;       // for Deleted: the last state, with mod_revision = the deletion revision
  KeyValue prev_object;  // the state before this event (Modified/Deleted), when known
  Revision revision = 0;  // the revision of this event (Bookmark: the revision progress reached)
  std::optional<StorageError> error;  // set for Error events (e.g. Expired when history is gone)
  // A Bookmark closing the initial events of a send_initial_events watch (kube's k8s.io/initial-events-end).
  bool initial_events_end = false;
};

struct WatchOptions {
  // "" or "0": start from now, first sending the current state as Added events (like kube's cacher);
  // "N": every change after revision N, or an Error(Expired) event if N is compacted.
  std::string resource_version;
  bool recursive = true;
  Predicate predicate;
  bool progress_notify = false;  // deliver Bookmark events when the backend reports progress
  bool send_initial_events = false;
};

// A running watch. next() yields events in revision order; std::nullopt once the watch has ended
// (stopped, or the backend closed it). Destroying the stream stops the watch.
// Shared forms of objects and events (storage/shared_object.h), for the reads that hand them out uncopied.
struct CachedObject;
using ObjectRef = std::shared_ptr<const CachedObject>;
struct SharedListResult;
struct SharedWatchEvent;

class WatchStream {
 public:
  virtual ~WatchStream() = default;
  virtual asio::awaitable<std::optional<WatchEvent>> next() = 0;
  // next() as a shared event: a watch cache's own, whose encodings every watcher of the change shares; by default
  // next()'s event, wrapped.
  virtual asio::awaitable<std::optional<SharedWatchEvent>> next_shared();
  // Ends the stream: a next() waiting then, or called later, returns std::nullopt. Safe from any thread.
  virtual void stop() = 0;
};

// Given the current object (nullptr when absent and the caller allowed that), returns the new bytes to
// write, or std::nullopt to leave the object unchanged. May throw to abort the update. Called again with
// the fresh object when a concurrent write wins the race.
//
// Either a plain function or a coroutine: an update that must wait on something (admission webhooks, which run
// inside kube's GuaranteedUpdate too) awaits it; `current` stays valid until the coroutine completes.
class TryUpdate {
 public:
  using Result = std::optional<std::string>;
  using Sync = std::function<Result(const KeyValue* current)>;
  using Async = std::function<asio::awaitable<Result>(const KeyValue* current)>;

  TryUpdate() = default;
  template <typename F>
    requires std::is_invocable_v<F&, const KeyValue*>
  TryUpdate(F update) {  // NOLINT(google-explicit-constructor): any update function is a TryUpdate
    if constexpr (std::is_same_v<std::invoke_result_t<F&, const KeyValue*>, asio::awaitable<Result>>)
      async_ = std::move(update);
    else
      sync_ = std::move(update);
  }

  explicit operator bool() const { return sync_ || async_; }
  asio::awaitable<Result> operator()(const KeyValue* current) const {
    if (sync_) co_return sync_(current);
    co_return co_await async_(current);
  }

 private:
  Sync sync_;
  Async async_;
};

class Interface {
 public:
  virtual ~Interface() = default;

  // Fails with KeyExists when the key is present.
  virtual asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) = 0;

  // Returns the deleted object with mod_revision set to the deletion's revision. KeyNotFound when absent.
  virtual asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) = 0;

  // std::nullopt only when ignore_not_found; KeyNotFound otherwise.
  virtual asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) = 0;

  virtual asio::awaitable<ListResult> list(std::string key_prefix, ListOptions options) = 0;

  // get() and list() handing out shared objects: a watch cache's own, with the encodings other readers made of
  // them; by default get()'s and list()'s results, wrapped.
  virtual asio::awaitable<std::optional<ObjectRef>> get_shared(std::string key, GetOptions options);
  virtual asio::awaitable<SharedListResult> list_shared(std::string key_prefix, ListOptions options);

  // Read-modify-write with optimistic retry, like storage.Interface.GuaranteedUpdate. KeyNotFound when absent
  // and !ignore_not_found.
  virtual asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found,
                                                      PreconditionCheck preconditions, TryUpdate try_update,
                                                      WriteOptions options) = 0;

  virtual asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) = 0;

  virtual asio::awaitable<std::int64_t> count(std::string key_prefix) = 0;

  virtual asio::awaitable<Revision> current_revision() = 0;

  // Asks the backend to send a progress notification (Bookmark) on every progress_notify watch, at a revision at
  // least as new as every write acknowledged before the call, and only after every event up to it. A backend
  // that cannot promise the order sends nothing (see can_request_watch_progress).
  virtual asio::awaitable<void> request_watch_progress() = 0;
  // Whether request_watch_progress() works (kube's storage.RequestWatchProgress feature): a cache can then be
  // brought up to the backend's current revision on demand, which consistent reads from the cache need (kube's
  // ConsistentListFromCache). Every Bookmark a watch delivers proves its revision either way.
  virtual bool can_request_watch_progress() const { return true; }
  // What a cache can prove instead when progress requests are unavailable, for a consistent LIST: whether the
  // objects under `key_prefix` now are exactly the `count` objects it held at `revision`, none created, changed or
  // deleted since. (A creation or a change leaves a modification revision after `revision`; a deletion that no
  // creation made up for leaves fewer objects; so equal counts and no newer modification mean the same set, each
  // unchanged.) The backend's current revision when so; std::nullopt when not, or when the backend cannot tell.
  virtual asio::awaitable<std::optional<Revision>> unchanged_since(std::string key_prefix, Revision revision,
                                                                   std::int64_t count) {
    (void)key_prefix, (void)revision, (void)count;
    co_return std::nullopt;
  }
  // The proof a cache tries first, alone, because it reads nothing under the prefix: when the backend knows every
  // change since `revision` without reading (etcd3: each was a write of this process, own_writes.h), its current
  // revision and the newest of those changes under `key_prefix` (`revision` when none is there). A cache that has
  // reached `newest_under_prefix` holds the prefix's state at `current`. std::nullopt when it cannot tell so.
  struct KnownChanges {
    Revision current = 0;
    Revision newest_under_prefix = 0;
  };
  virtual asio::awaitable<std::optional<KnownChanges>> known_changes_since(std::string key_prefix,
                                                                           Revision revision) {
    (void)key_prefix, (void)revision;
    co_return std::nullopt;
  }

  // Drops history older than `revision`; watches and exact reads below it then fail with Expired.
  virtual asio::awaitable<void> compact(Revision revision) = 0;
};

}  // namespace kapi::storage

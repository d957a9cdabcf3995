#pragma once
// The Cacher's configuration. Defaults are kube-apiserver's; tests shorten the timings.
#include "storage/cacher/event_history.h"
#include "storage/cacher/watch_cache.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::storage::cacher {

struct CacherOptions {
  // The resource's key prefix, e.g. "/registry/configmaps/" ('/' is appended when missing). Reads and watches
  // of keys outside it go straight to the backend.
  std::string resource_prefix;
  std::vector<Indexer> indexers;  // see Cacher::list_by_index
  EventHistory::Limits history;

  // Per watcher: buffered events before it falls behind (kube sizes its channels 10..1000, 100 without index),
  // and how long it may stay behind without taking anything before it is closed.
  std::size_t watcher_buffer = 100;
  std::chrono::milliseconds blocked_watcher_budget{std::chrono::seconds(5)};
  // Bookmarks to watches with progress_notify (kube: ~every minute).
  std::chrono::milliseconds bookmark_interval{std::chrono::minutes(1)};

  // A read or watch at resourceVersion N waits this long for the cache to reach N, then fails with "Too large
  // resource version" (kube's blockTimeout).
  std::chrono::milliseconds fresh_wait_timeout{std::chrono::seconds(3)};
  // A consistent read (resourceVersion unset) waits this long for the cache to reach the backend's current
  // revision. Then, like kube 1.32, it falls back to reading the backend; without the fallback it fails with a
  // Timeout error.
  std::chrono::milliseconds consistent_read_timeout{std::chrono::seconds(3)};
  bool consistent_read_fallback = true;
  // A watch arriving while the cache is (re)initialising waits this long for it, then fails with Unreachable
  // ("storage is (re)initializing"; kube answers 429/503 and the client retries).
  std::chrono::milliseconds ready_timeout{std::chrono::seconds(3)};

  // The reflector's list page size (kube's storageWatchListPageSize).
  std::int64_t list_page_size = 10000;
  // Pause between reflector retries after a failure, doubling up to the maximum.
  std::chrono::milliseconds retry_initial{100};
  std::chrono::milliseconds retry_max{std::chrono::seconds(5)};

  base::Logger* logger = nullptr;  // optional; must outlive the Cacher
};

}  // namespace kapi::storage::cacher

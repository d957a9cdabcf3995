#pragma once
// Concurrent consistent LISTs of one scope share the backend's unchanged_since check, as kube's
// conditionalProgressRequester shares progress requests among the reads waiting for them.
//
// A check reads the whole scope from the backend (etcd filters by mod revision only after reading every value),
// so c concurrent consistent LISTs asking one each would cost the backend as much as c LISTs. Instead a LIST joins
// the next check of its scope, one that starts after the LIST arrived (one already running may have read the
// backend before a write the LIST must see), and at most one check per scope runs at a time: under any load the
// backend sees about one check per check's duration.
//
// Threads: join() may be called from any thread and executor; the check runs on the executor of the LIST that
// leads it (the first of its round to wake), and each LIST resumes on its own executor.
// Cancellation: a LIST cancelled while it waits leaves its round; one cancelled while it leads ends the round
// unproven (its others read the backend), so no round ever waits for someone who left.
#include "storage/cacher/cache_state.h"
#include "storage/cacher/cache_watcher.h"

#include <asio/awaitable.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::storage::cacher {

class SharedUnchangedChecks {
 public:
  // The cache's state under the scope as the backend confirmed it, at the backend's current revision; null when
  // the check found a change, could not be made or failed: the LIST then reads the backend.
  using Proven = std::shared_ptr<const CacheState::Snapshot>;
  using Check = std::function<asio::awaitable<Proven>()>;

  // The result of a `check` of `scope_key` that started after this call: run here, or by another LIST of the
  // same round. Every LIST of a scope passes an equivalent check.
  asio::awaitable<Proven> join(std::string scope_key, Check check);

 private:
  struct Round {
    std::vector<std::shared_ptr<Doorbell>> members;  // rung when the round starts and when it ends
    bool running = false;
    bool led = false;
    bool done = false;
    Proven result;
  };
  struct Scope {
    std::shared_ptr<Round> running;
    std::shared_ptr<Round> next;  // gathering the LISTs that arrive while `running` runs
  };
  class Membership;

  // All under mutex_.
  void start_next(Scope& scope);
  void finish(const std::string& scope_key, Round& round, Proven result);
  void leave(const std::string& scope_key, const std::shared_ptr<Round>& round, const std::shared_ptr<Doorbell>& bell);

  std::mutex mutex_;
  std::map<std::string, Scope, std::less<>> scopes_;
};

}  // namespace kapi::storage::cacher

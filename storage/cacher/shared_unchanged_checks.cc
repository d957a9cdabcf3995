#include "storage/cacher/shared_unchanged_checks.h"

#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <utility>

namespace kapi::storage::cacher {
namespace {

// A bell already rung and not yet heard needs no second ring: its member looks at the round when it wakes.
void ring(const std::shared_ptr<Doorbell>& bell) { bell->try_send(std::error_code{}, true); }

}  // namespace

// Leaves the round however the LIST ends (answered, cancelled, failed), so that a round never waits for a member
// that is gone.
class SharedUnchangedChecks::Membership {
 public:
  Membership(SharedUnchangedChecks& checks, const std::string& scope_key, std::shared_ptr<Round> round,
             std::shared_ptr<Doorbell> bell)
      : checks_(checks), scope_key_(scope_key), round_(std::move(round)), bell_(std::move(bell)) {}
  ~Membership() {
    std::lock_guard lock(checks_.mutex_);
    checks_.leave(scope_key_, round_, bell_);
  }
  Membership(const Membership&) = delete;
  Membership& operator=(const Membership&) = delete;

 private:
  SharedUnchangedChecks& checks_;
  const std::string& scope_key_;
  std::shared_ptr<Round> round_;
  std::shared_ptr<Doorbell> bell_;
};

asio::awaitable<SharedUnchangedChecks::Proven> SharedUnchangedChecks::join(std::string scope_key, Check check) {
  auto bell = std::make_shared<Doorbell>(co_await asio::this_coro::executor, 1);
  std::shared_ptr<Round> round;
  {
    std::lock_guard lock(mutex_);
    Scope& scope = scopes_[scope_key];
    if (!scope.next) scope.next = std::make_shared<Round>();
    round = scope.next;
    round->members.push_back(bell);
    if (!scope.running) start_next(scope);
  }
  Membership membership(*this, scope_key, round, bell);
  for (;;) {
    auto rung = bell->async_receive(asio::use_awaitable);
    co_await std::move(rung);
    bool leads = false;
    {
      std::lock_guard lock(mutex_);
      if (round->done) break;
      if (round->running && !round->led) leads = round->led = true;
    }
    if (!leads) continue;
    Proven result;
    try {
      auto checking = check();
      result = co_await std::move(checking);
    } catch (...) {
      std::lock_guard lock(mutex_);
      finish(scope_key, *round, nullptr);
      throw;
    }
    std::lock_guard lock(mutex_);
    finish(scope_key, *round, result);
    break;
  }
  co_return round->result;  // written before `done`, which this member saw under the lock
}

void SharedUnchangedChecks::start_next(Scope& scope) {
  scope.running = std::exchange(scope.next, nullptr);
  if (!scope.running) return;
  scope.running->running = true;
  for (const auto& bell : scope.running->members) ring(bell);
}

void SharedUnchangedChecks::finish(const std::string& scope_key, Round& round, Proven result) {
  round.done = true;
  round.result = std::move(result);
  for (const auto& bell : round.members) ring(bell);
  auto found = scopes_.find(scope_key);
  found->second.running = nullptr;
  start_next(found->second);
  if (!found->second.running) scopes_.erase(found);
}

void SharedUnchangedChecks::leave(const std::string& scope_key, const std::shared_ptr<Round>& round,
                                  const std::shared_ptr<Doorbell>& bell) {
  std::erase(round->members, bell);
  // A led round ends through its leader, who is still a member until then.
  if (round->done || round->led || !round->members.empty()) return;
  auto found = scopes_.find(scope_key);
  if (found == scopes_.end()) return;
  Scope& scope = found->second;
  if (scope.next == round) {
    scope.next = nullptr;
  } else if (scope.running == round) {
    start_next(scope);
  }
  if (!scope.running && !scope.next) scopes_.erase(found);
}

}  // namespace kapi::storage::cacher

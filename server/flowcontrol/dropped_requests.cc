#include "server/flowcontrol/dropped_requests.h"

#include <algorithm>

namespace kapi::flowcontrol {
namespace {

constexpr std::int64_t kMaxRetryAfter = 32;

}  // namespace

void DroppedRequestsTracker::record(std::string_view priority_level, std::int64_t unix_seconds) {
  std::lock_guard lock(mutex_);
  auto it = levels_.find(priority_level);
  if (it == levels_.end()) it = levels_.emplace(std::string(priority_level), Level{}).first;
  Level& level = it->second;
  if (level.current_second == unix_seconds) {
    ++level.current_count;
    return;
  }
  // A new second: the finished one joins the history, and Retry-After is reconsidered from it.
  level.history.push_back({level.current_second, level.current_count});
  while (!level.history.empty() && unix_seconds - level.history.front().unix_seconds > kMaxRetryAfter)
    level.history.pop_front();
  level.current_second = unix_seconds;
  level.current_count = 1;
  update_retry_after(level, unix_seconds);
}

void DroppedRequestsTracker::update_retry_after(Level& level, std::int64_t now) {
  // Refusals over [now - retry_after, now).
  std::int64_t dropped = 0;
  for (auto it = level.history.rbegin(); it != level.history.rend() && now - it->unix_seconds <= level.retry_after; ++it)
    if (it->unix_seconds < now) dropped += it->requests;

  if (now - level.retry_after_updated >= level.retry_after && dropped >= 3 * level.retry_after) {
    level.retry_after = std::min(level.retry_after * 2, kMaxRetryAfter);
    level.retry_after_updated = now;
  } else if (dropped < level.retry_after && level.retry_after > 1) {
    --level.retry_after;
  }
}

std::int64_t DroppedRequestsTracker::retry_after(std::string_view priority_level) const {
  std::lock_guard lock(mutex_);
  auto it = levels_.find(priority_level);
  return it == levels_.end() ? 1 : it->second.retry_after;
}

}  // namespace kapi::flowcontrol

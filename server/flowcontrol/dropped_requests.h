#pragma once
// What Retry-After a refused request is told (kube's util/flowcontrol DroppedRequestsTracker): 1 s at first,
// doubled (up to 32 s) when a priority level refused at least 3x that many requests over the last Retry-After
// seconds, at most once per Retry-After, and decreased a second at a time once refusals become rare, as TCP backs
// off. Safe to use from any reactor thread.
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace kapi::flowcontrol {

class DroppedRequestsTracker {
 public:
  // `unix_seconds`: the time of the refusal, in whole seconds.
  void record(std::string_view priority_level, std::int64_t unix_seconds);
  std::int64_t retry_after(std::string_view priority_level) const;

 private:
  struct Level {
    struct Second {
      std::int64_t unix_seconds = 0;
      std::int64_t requests = 0;
    };
    std::deque<Second> history;  // the seconds before the current one, the last 32 of them
    std::int64_t current_second = 0;
    std::int64_t current_count = 0;
    std::int64_t retry_after = 1;
    std::int64_t retry_after_updated = 0;
  };
  static void update_retry_after(Level& level, std::int64_t now);

  mutable std::mutex mutex_;
  std::map<std::string, Level, std::less<>> levels_;
};

}  // namespace kapi::flowcontrol

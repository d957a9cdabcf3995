#include "storage/cacher/event_history.h"

#include <algorithm>

namespace kapi::storage::cacher {

EventHistory::EventHistory(Limits limits)
    : limits_{std::max<std::size_t>(limits.lower_bound, 1), std::max(limits.upper_bound, limits.lower_bound),
              limits.fresh_window},
      capacity_(limits_.lower_bound) {}

void EventHistory::reset(Revision floor) {
  events_.clear();
  floor_ = floor;
}

void EventHistory::append(EventRef event) {
  resize(event->recorded);
  if (events_.size() >= capacity_) evict_front();
  events_.push_back(std::move(event));
}

void EventHistory::resize(std::chrono::steady_clock::time_point now) {
  if (events_.size() < capacity_) return;
  if (now - events_.front()->recorded < limits_.fresh_window) {
    capacity_ = std::min(capacity_ * 2, limits_.upper_bound);
    return;
  }
  const std::size_t newest_quarter = events_.size() - std::max<std::size_t>(capacity_ / 4, 1);
  if (now - events_[newest_quarter]->recorded > limits_.fresh_window) {
    capacity_ = std::max(capacity_ / 2, limits_.lower_bound);
    while (events_.size() > capacity_) evict_front();
  }
}

void EventHistory::evict_front() {
  floor_ = std::max(floor_, events_.front()->revision());
  events_.pop_front();
}

void EventHistory::compact(Revision revision) {
  while (!events_.empty() && events_.front()->revision() <= revision) events_.pop_front();
  floor_ = std::max(floor_, revision);
}

std::size_t EventHistory::first_after(Revision revision) const {
  auto it = std::upper_bound(events_.begin(), events_.end(), revision,
                             [](Revision r, const EventRef& event) { return r < event->revision(); });
  return static_cast<std::size_t>(it - events_.begin());
}

}  // namespace kapi::storage::cacher

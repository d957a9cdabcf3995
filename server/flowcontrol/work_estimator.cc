#include "server/flowcontrol/work_estimator.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace kapi::flowcontrol {
namespace {

// kube's defaults (request/config.go).
constexpr int kMinimumSeats = 1;
constexpr int kMaximumSeats = 10;
constexpr double kObjectsPerSeat = 100;
constexpr double kWatchesPerSeat = 10;
constexpr auto kEventAdditionalDuration = std::chrono::milliseconds(5);

std::int64_t int_param(const http::QueryParams& query, std::string_view key) {
  std::optional<std::string_view> value = query.get(key);
  std::int64_t number = 0;
  if (value) std::from_chars(value->data(), value->data() + value->size(), number);
  return number;
}

bool is_mutating(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" || verb == "deletecollection";
}

}  // namespace

WorkEstimate WorkEstimator::estimate(const request::RequestInfo& info, const http::QueryParams& query,
                                     int max_seats) const {
  if (!info.is_resource_request) return {};
  if (info.verb == "list" || info.verb == "watch") return estimate_list(info, query, max_seats);
  if (is_mutating(info.verb)) return estimate_mutating(info);
  return {};
}

WorkEstimate WorkEstimator::estimate_list(const request::RequestInfo& info, const http::QueryParams& query,
                                          int max_seats) const {
  max_seats = max_seats <= 0 ? kMaximumSeats : std::min(max_seats, kMaximumSeats);
  // A watch costs more than a seat only when it asks for its initial events.
  if (info.verb == "watch" && query.get("sendInitialEvents") != std::optional<std::string_view>("true")) return {};
  std::optional<ResourceCounts> counts = counts_ ? counts_(info.api_group, info.resource) : std::nullopt;
  // A resource nobody here stores (an aggregated one) costs this server little.
  if (!counts) return {};

  const std::int64_t stored = counts->objects;
  std::int64_t limit = int_param(query, "limit");
  const std::int64_t limited = limit > 0 && limit < stored ? limit : stored;
  const std::string_view resource_version = query.get("resourceVersion").value_or("");
  const bool from_storage = query.get("resourceVersionMatch") == std::optional<std::string_view>("Exact") ||
                            !query.get("continue").value_or("").empty() ||
                            (limit > 0 && !resource_version.empty() && resource_version != "0");
  std::int64_t processed;
  if (!info.name.empty())
    processed = 1;
  else if (info.verb == "watch" || !from_storage)
    processed = stored;
  else if (!info.field_selector.empty() || !info.label_selector.empty())
    processed = stored + limited;
  else
    processed = 2 * limited;
  int seats = static_cast<int>(std::ceil(static_cast<double>(processed) / kObjectsPerSeat));
  return {std::clamp(seats, kMinimumSeats, std::max(kMinimumSeats, max_seats)), 0, {}};
}

WorkEstimate WorkEstimator::estimate_mutating(const request::RequestInfo& info) const {
  std::optional<ResourceCounts> counts = counts_ ? counts_(info.api_group, info.resource) : std::nullopt;
  const std::int64_t watchers = counts ? counts->watchers : 0;
  if (watchers < kWatchesPerSeat) return {};
  int final_seats = static_cast<int>(std::ceil(static_cast<double>(watchers) / kWatchesPerSeat));
  return {kMinimumSeats, std::min(final_seats, kMaximumSeats), kEventAdditionalDuration};
}

}  // namespace kapi::flowcontrol

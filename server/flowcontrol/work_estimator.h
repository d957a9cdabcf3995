#pragma once
// How many seats a request occupies (kube's util/flowcontrol/request WorkEstimator): a LIST one seat per 100
// objects it goes through (at most 10), a WATCH with initial events likewise, a write one seat plus, when many
// watch its resource, a seat per 10 watchers for a few milliseconds after it (the events it causes), anything else
// one seat.
#include "request/request_info_resolver.h"
#include "server/flowcontrol/queue_set.h"
#include "server/http/query.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace kapi::flowcontrol {

struct ResourceCounts {
  std::int64_t objects = 0;
  std::int64_t watchers = 0;
};
// What the watch cache knows of a resource; std::nullopt for one it does not hold.
using ResourceCountsFn = std::function<std::optional<ResourceCounts>(std::string_view group, std::string_view resource)>;

class WorkEstimator {
 public:
  explicit WorkEstimator(ResourceCountsFn counts) : counts_(std::move(counts)) {}

  // `max_seats`: what the request's priority level can give at most (a request never waits for more).
  WorkEstimate estimate(const request::RequestInfo& info, const http::QueryParams& query, int max_seats) const;

 private:
  WorkEstimate estimate_list(const request::RequestInfo& info, const http::QueryParams& query, int max_seats) const;
  WorkEstimate estimate_mutating(const request::RequestInfo& info) const;

  ResourceCountsFn counts_;
};

}  // namespace kapi::flowcontrol

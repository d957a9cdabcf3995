#pragma once
// The Event strategy both event APIs share (pkg/registry/core/event): events.k8s.io/v1 serves the core/v1 events
// through a conversion, and validates them more strictly.
#include "server/registry/strategy.h"

#include <memory>

namespace kapi::apis::core {

// Which API a write came through: kube's ValidateEventCreate/Update keep legacy rules for core/v1 writers.
enum class EventsApi { kCoreV1, kEventsV1 };

std::shared_ptr<const registry::Strategy> event_strategy(EventsApi api);

}  // namespace kapi::apis::core

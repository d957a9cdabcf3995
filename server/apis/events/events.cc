// events.k8s.io/v1 Event (pkg/registry/events/rest/storage_events.go, pkg/apis/events/v1/conversion.go): kube
// serves the core/v1 events under the newer names, from the same etcd keys, with the core strategy validating
// writes by the events API's stricter rules.
#include "server/apis/events/events.h"

#include "server/apis/core/events.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

// A member of `from` under another name in `to`, when present.
void move_member(json::object& from, std::string_view from_key, json::object& to, std::string_view to_key) {
  if (auto it = from.find(from_key); it != from.end()) to[to_key] = std::move(it->value());
}

json::value member_or(json::object& from, std::string_view key, json::value fallback) {
  auto it = from.find(key);
  return it == from.end() ? std::move(fallback) : std::move(it->value());
}

bool is_empty_string(const json::value& value) { return value.is_string() && value.as_string().empty(); }

// Each direction writes the members in the order of the target's Go type and as its JSON tags say: structs
// always ({} or null for a zero time), omitempty members only when set.
class EventsConversion final : public registry::VersionConversion {
 public:
  json::object to_storage(json::object served) const override {
    json::object core;
    core["kind"] = "Event";
    core["apiVersion"] = "v1";
    move_member(served, "metadata", core, "metadata");
    core["involvedObject"] = member_or(served, "regarding", json::object());
    move_member(served, "reason", core, "reason");
    move_member(served, "note", core, "message");
    core["source"] = member_or(served, "deprecatedSource", json::object());
    core["firstTimestamp"] = member_or(served, "deprecatedFirstTimestamp", nullptr);
    core["lastTimestamp"] = member_or(served, "deprecatedLastTimestamp", nullptr);
    if (auto count = member_or(served, "deprecatedCount", 0); !(count.is_int64() && count.as_int64() == 0))
      core["count"] = std::move(count);
    move_member(served, "type", core, "type");
    core["eventTime"] = member_or(served, "eventTime", nullptr);
    if (auto it = served.find("series"); it != served.end() && it->value().is_object()) {
      json::object series = std::move(it->value().as_object());
      if (auto count = series.find("count"); count != series.end() && count->value().is_int64() &&
                                             count->value().as_int64() == 0)
        series.erase(count);
      core["series"] = std::move(series);
    }
    move_member(served, "action", core, "action");
    move_member(served, "related", core, "related");
    core["reportingComponent"] = member_or(served, "reportingController", "");
    core["reportingInstance"] = member_or(served, "reportingInstance", "");
    return core;
  }

  json::object from_storage(json::object core) const override {
    json::object served;
    served["kind"] = "Event";
    served["apiVersion"] = "events.k8s.io/v1";
    move_member(core, "metadata", served, "metadata");
    served["eventTime"] = member_or(core, "eventTime", nullptr);
    if (auto it = core.find("series"); it != core.end() && it->value().is_object()) {
      json::object series = std::move(it->value().as_object());
      if (!series.contains("count")) series["count"] = 0;
      if (!series.contains("lastObservedTime")) series["lastObservedTime"] = nullptr;
      served["series"] = std::move(series);
    }
    if (auto controller = member_or(core, "reportingComponent", ""); !is_empty_string(controller))
      served["reportingController"] = std::move(controller);
    if (auto instance = member_or(core, "reportingInstance", ""); !is_empty_string(instance))
      served["reportingInstance"] = std::move(instance);
    move_member(core, "action", served, "action");
    move_member(core, "reason", served, "reason");
    served["regarding"] = member_or(core, "involvedObject", json::object());
    move_member(core, "related", served, "related");
    move_member(core, "message", served, "note");
    move_member(core, "type", served, "type");
    served["deprecatedSource"] = member_or(core, "source", json::object());
    served["deprecatedFirstTimestamp"] = member_or(core, "firstTimestamp", nullptr);
    served["deprecatedLastTimestamp"] = member_or(core, "lastTimestamp", nullptr);
    move_member(core, "count", served, "deprecatedCount");
    return served;
  }
};

}  // namespace

ResourceStorage events_api_events() {
  registry::ResourceDefinition definition{.group = "events.k8s.io",
                                          .version = "v1",
                                          .resource = "events",
                                          .kind = "Event",
                                          .singular = "event",
                                          .namespaced = true,
                                          .short_names = {"ev"},
                                          .storage_resource = "events"};
  return {std::move(definition), core::event_strategy(core::EventsApi::kEventsV1),
          std::make_shared<EventsConversion>()};
}

}  // namespace kapi::apis

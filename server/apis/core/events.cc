// core/v1 Event (pkg/registry/core/event): created or replaced by PUT, validated as ValidateEventCreate and
// ValidateEventUpdate do (pkg/apis/core/validation/events.go: legacyValidateEvent for v1 clients, stricter for the
// events.k8s.io API), selectable by the involved object's fields (kubectl describe asks for them), printed as
// printEvent prints it.
#include "server/apis/core/events.h"

#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <algorithm>
#include <cctype>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kReportingInstanceLimit = 128;
constexpr std::size_t kActionLimit = 128;
constexpr std::size_t kReasonLimit = 128;
constexpr std::size_t kNoteLimit = 1024;

// legacyValidateEvent, which every event passes whichever API wrote it.
ErrorList validate_event(const json::object& event) {
  ErrorList errors;
  const std::string_view namespace_ = registry::meta_string(event, "namespace");
  const json::object* involved = object_at(event, "involvedObject");
  const std::string_view involved_namespace = string_at(involved, "namespace");
  const Path involved_path = Path("involvedObject").child("namespace");
  auto too_long = [&](std::string_view field, std::size_t limit) {
    errors.push_back(validation::invalid(Path(std::string(field)), "",
                                         "can have at most " + std::to_string(limit) + " characters"));
  };
  if (string_at(event, "eventTime").empty()) {
    // An old-style event: its namespace is the involved object's ("default" standing in for none).
    const bool agrees = involved_namespace.empty() ? (namespace_.empty() || namespace_ == "default")
                                                   : namespace_ == involved_namespace;
    if (!agrees) errors.push_back(validation::invalid(involved_path, involved_namespace, "does not match event.namespace"));
  } else {
    if (involved_namespace.empty() && namespace_ != "default" && namespace_ != "kube-system")
      errors.push_back(validation::invalid(involved_path, involved_namespace, "does not match event.namespace"));
    // kube names the field by its internal name, as the events.k8s.io API does.
    const std::string_view controller = string_at(event, "reportingComponent");
    if (controller.empty()) errors.push_back(validation::required(Path("reportingController")));
    for (auto& message : validation::is_qualified_name(controller))
      errors.push_back(validation::invalid(Path("reportingController"), controller, message));
    const std::string_view instance = string_at(event, "reportingInstance");
    if (instance.empty()) errors.push_back(validation::required(Path("reportingInstance")));
    if (instance.size() > kReportingInstanceLimit) too_long("reportingInstance", kReportingInstanceLimit);
    const std::string_view action = string_at(event, "action");
    if (action.empty()) errors.push_back(validation::required(Path("action")));
    if (action.size() > kActionLimit) too_long("action", kActionLimit);
    const std::string_view reason = string_at(event, "reason");
    if (reason.empty()) errors.push_back(validation::required(Path("reason")));
    if (reason.size() > kReasonLimit) too_long("reason", kReasonLimit);
    if (string_at(event, "message").size() > kNoteLimit) too_long("message", kNoteLimit);
  }
  for (auto& message : validation::is_dns1123_subdomain(namespace_))
    errors.push_back(validation::invalid(Path("namespace"), namespace_, message));
  return errors;
}

// validateV1EventSeries.
void validate_series(const json::object& event, ErrorList& errors) {
  const json::object* series = object_at(event, "series");
  if (!series) return;
  if (int_or_zero(series, "count") < 2) errors.push_back(validation::invalid(Path("series.count"), "", "should be at least 2"));
  if (string_at(*series, "lastObservedTime").empty()) errors.push_back(validation::required(Path("series.lastObservedTime")));
}

// What ValidateEventCreate adds for the events.k8s.io API: a new-style event, none of the deprecated fields set.
ErrorList validate_events_api_create(const json::object& event) {
  ErrorList errors = validate_event(event);
  validate_series(event, errors);
  if (string_at(event, "eventTime").empty()) errors.push_back(validation::required(Path("eventTime")));
  if (const std::string_view type = string_at(event, "type"); type != "Normal" && type != "Warning")
    errors.push_back(validation::invalid(Path("type"), "", "has invalid value: " + std::string(type)));
  auto must_be_unset = [&](std::string_view field) {
    errors.push_back(validation::invalid(Path(std::string(field)), "", "needs to be unset"));
  };
  if (!string_at(event, "firstTimestamp").empty()) must_be_unset("firstTimestamp");
  if (!string_at(event, "lastTimestamp").empty()) must_be_unset("lastTimestamp");
  if (int_or_zero(&event, "count") != 0) must_be_unset("count");
  const json::object* source = object_at(event, "source");
  if (!string_at(source, "component").empty() || !string_at(source, "host").empty()) must_be_unset("source");
  return errors;
}

// What ValidateEventUpdate adds for the events.k8s.io API: everything but the series is immutable.
ErrorList validate_events_api_update(const json::object& event, const json::object& old) {
  ErrorList errors = validate_event(event);
  auto field = [](const json::object& object, std::string_view key) -> json::value {
    auto it = object.find(key);
    return it == object.end() ? json::value() : it->value();
  };
  if (field(event, "series") != field(old, "series")) validate_series(event, errors);
  for (std::string_view key : {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
                               "count", "type", "eventTime", "action", "related", "reportingComponent",
                               "reportingInstance"}) {
    if (field(event, key) == field(old, key)) continue;
    const Path path(key == "reportingComponent" ? "reportingController" : std::string(key));
    const json::value value = field(event, key);
    errors.push_back(value.is_string() ? validation::invalid(path, value.as_string(), "field is immutable")
                                       : validation::invalid_value(path, json::serialize(value), "field is immutable"));
  }
  return errors;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string first_non_empty(std::string_view a, std::string_view b) { return std::string(a.empty() ? b : a); }

class EventStrategy final : public registry::Strategy {
 public:
  explicit EventStrategy(core::EventsApi api) : api_(api) {}

  bool allow_create_on_update() const override { return true; }
  ErrorList validate(const json::object& event) const override {
    return api_ == core::EventsApi::kEventsV1 ? validate_events_api_create(event) : validate_event(event);
  }
  ErrorList validate_update(const json::object& event, const json::object& old) const override {
    return api_ == core::EventsApi::kEventsV1 ? validate_events_api_update(event, old) : validate_event(event);
  }

  std::vector<std::string> selectable_field_names() const override {
    return {"involvedObject.kind",      "involvedObject.namespace",       "involvedObject.name",
            "involvedObject.uid",       "involvedObject.apiVersion",      "involvedObject.resourceVersion",
            "involvedObject.fieldPath", "reason",                         "reportingComponent",
            "source",                   "type"};
  }
  void selectable_fields(const json::object& event, registry::SelectableFields& fields) const override {
    const json::object* involved = object_at(event, "involvedObject");
    for (std::string_view key : {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"})
      fields["involvedObject." + std::string(key)] = string_at(involved, key);
    fields["reason"] = string_at(event, "reason");
    fields["reportingComponent"] = string_at(event, "reportingComponent");
    fields["source"] = first_non_empty(string_at(object_at(event, "source"), "component"), string_at(event, "reportingComponent"));
    fields["type"] = string_at(event, "type");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    registry::TableColumn name = registry::name_column();
    name.priority = 1;
    return {{"Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0},
            {"Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0},
            {"Reason", "string", "",
             "This should be a short, machine understandable string that gives the reason for the transition into "
             "the object's current status.",
             0},
            {"Object", "string", "", "The object that this event is about.", 0},
            {"Subobject", "string", "",
             "If referring to a piece of an object instead of an entire object, this string should contain a valid "
             "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the "
             "object reference is to a container within a pod, this would take on a value like: "
             "\"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the "
             "event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this "
             "pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.",
             1},
            {"Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1},
            {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
            {"First Seen", "string", "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1},
            {"Count", "string", "", "The number of times this event has occurred.", 1},
            name};
  }
  json::array table_cells(const json::object& event) const override {
    std::string first_seen = core::since(string_at(event, "firstTimestamp"));
    if (string_at(event, "firstTimestamp").empty()) first_seen = core::since(string_at(event, "eventTime"));
    std::string last_seen = core::since(string_at(event, "lastTimestamp"));
    if (string_at(event, "lastTimestamp").empty()) last_seen = first_seen;
    std::int64_t count = int_or_zero(&event, "count");
    if (const json::object* series = object_at(event, "series")) {
      last_seen = core::since(string_at(*series, "lastObservedTime"));
      count = int_or_zero(series, "count");
    } else if (count == 0) {
      count = 1;  // singleton events of the events.k8s.io API carry no count
    }
    const json::object* involved = object_at(event, "involvedObject");
    std::string target = lower(string_at(involved, "kind"));
    if (auto name = string_at(involved, "name"); !name.empty()) target += "/" + std::string(name);
    const json::object* source = object_at(event, "source");
    const std::string component = first_non_empty(string_at(source, "component"), string_at(event, "reportingComponent"));
    const std::string instance = first_non_empty(string_at(source, "host"), string_at(event, "reportingInstance"));
    std::string message(string_at(event, "message"));
    const auto begin = message.find_first_not_of(" \t\n\r\v\f");
    message = begin == std::string::npos ? "" : message.substr(begin, message.find_last_not_of(" \t\n\r\v\f") - begin + 1);
    return {json::string(last_seen),
            json::string(string_at(event, "type")),
            json::string(string_at(event, "reason")),
            json::string(target),
            json::string(string_at(involved, "fieldPath")),
            json::string(instance.empty() ? component : component + ", " + instance),
            json::string(message),
            json::string(first_seen),
            count,
            json::string(registry::meta_string(event, "name"))};
  }

 private:
  core::EventsApi api_;
};

}  // namespace

std::shared_ptr<const registry::Strategy> core::event_strategy(EventsApi api) {
  return std::make_shared<EventStrategy>(api);
}

ResourceStorage events() {
  registry::ResourceDefinition definition{.group = "",
                                          .version = "v1",
                                          .resource = "events",
                                          .kind = "Event",
                                          .singular = "event",
                                          .namespaced = true,
                                          .short_names = {"ev"},
                                          .storage_resource = "events"};
  return {std::move(definition), core::event_strategy(core::EventsApi::kCoreV1)};
}

}  // namespace kapi::apis

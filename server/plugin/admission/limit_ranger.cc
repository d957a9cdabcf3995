// LimitRanger (plugin/pkg/admission/limitranger/admission.go): a pod's containers and init containers get the
// default requests and limits of their namespace's LimitRanges (type Container: default, defaultRequest), and
// pods and claims are refused when they fall outside a range's min, max or maxLimitRequestRatio (types
// Container, Pod and PersistentVolumeClaim). As in 1.32, pod updates are not looked at: containers' resources
// cannot change after creation.
#include "base/quantity.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kapi::admission {
namespace {

namespace json = boost::json;

constexpr std::string_view kAnnotation = "kubernetes.io/limit-ranger";

using ResourceList = std::map<std::string, Quantity>;

const json::object* object_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_object() ? &value->as_object() : nullptr;
}

const json::array* array_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_array() ? &value->as_array() : nullptr;
}

std::string_view string_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}

// The quantities of a resource list in the order the object lists them (kube ranges over a Go map: any order).
std::vector<std::pair<std::string, Quantity>> ordered_quantities(const json::object* list) {
  std::vector<std::pair<std::string, Quantity>> quantities;
  if (!list) return quantities;
  for (const auto& [name, value] : *list)
    if (std::optional<Quantity> quantity = quantity_of(value)) quantities.emplace_back(std::string(name), *quantity);
  return quantities;
}

ResourceList resource_list(const json::object* list) {
  ResourceList result;
  for (auto& [name, quantity] : ordered_quantities(list)) result.emplace(std::move(name), quantity);
  return result;
}

// requestLimitEnforcedValues: compared in thousandths when none would overflow, else in whole units.
struct Compared {
  std::int64_t request, limit, enforced;
};
Compared compared(const Quantity& request, const Quantity& limit, const Quantity& enforced) {
  if (request.value() <= kMaxMilliValue && limit.value() <= kMaxMilliValue && enforced.value() <= kMaxMilliValue)
    return {request.milli_value(), limit.milli_value(), enforced.milli_value()};
  return {request.value(), limit.value(), enforced.value()};
}

std::optional<Quantity> find(const ResourceList& list, const std::string& name) {
  auto it = list.find(name);
  if (it == list.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> min_constraint(std::string_view type, const std::string& name, const Quantity& enforced,
                                          const ResourceList& requests, const ResourceList& limits) {
  const std::optional<Quantity> request = find(requests, name);
  const std::optional<Quantity> limit = find(limits, name);
  const Compared values = compared(request.value_or(Quantity{}), limit.value_or(Quantity{}), enforced);
  const std::string prefix = "minimum " + name + " usage per " + std::string(type) + " is " + enforced.to_string();
  if (!request) return prefix + ".  No request is specified";
  if (values.request < values.enforced) return prefix + ", but request is " + request->to_string();
  if (limit && values.limit < values.enforced) return prefix + ", but limit is " + limit->to_string();
  return std::nullopt;
}

// For claims, whose limits are not the user's: only the request is held to the max.
std::optional<std::string> max_request_constraint(std::string_view type, const std::string& name,
                                                  const Quantity& enforced, const ResourceList& requests) {
  const std::optional<Quantity> request = find(requests, name);
  const Compared values = compared(request.value_or(Quantity{}), Quantity{}, enforced);
  const std::string prefix = "maximum " + name + " usage per " + std::string(type) + " is " + enforced.to_string();
  if (!request) return prefix + ".  No request is specified";
  if (values.request > values.enforced) return prefix + ", but request is " + request->to_string();
  return std::nullopt;
}

std::optional<std::string> max_constraint(std::string_view type, const std::string& name, const Quantity& enforced,
                                          const ResourceList& requests, const ResourceList& limits) {
  const std::optional<Quantity> request = find(requests, name);
  const std::optional<Quantity> limit = find(limits, name);
  const Compared values = compared(request.value_or(Quantity{}), limit.value_or(Quantity{}), enforced);
  const std::string prefix = "maximum " + name + " usage per " + std::string(type) + " is " + enforced.to_string();
  if (!limit) return prefix + ".  No limit is specified";
  if (values.limit > values.enforced) return prefix + ", but limit is " + limit->to_string();
  if (request && values.request > values.enforced) return prefix + ", but request is " + request->to_string();
  return std::nullopt;
}

std::optional<std::string> ratio_constraint(std::string_view type, const std::string& name, const Quantity& enforced,
                                            const ResourceList& requests, const ResourceList& limits) {
  const std::optional<Quantity> request = find(requests, name);
  const std::optional<Quantity> limit = find(limits, name);
  const Compared values = compared(request.value_or(Quantity{}), limit.value_or(Quantity{}), enforced);
  const std::string prefix =
      name + " max limit to request ratio per " + std::string(type) + " is " + enforced.to_string();
  if (!request || values.request == 0) return prefix + ", but no request is specified or request is 0";
  if (!limit || values.limit == 0) return prefix + ", but no limit is specified or limit is 0";
  const double observed = static_cast<double>(values.limit) / static_cast<double>(values.request);
  double scaled_observed = observed;
  double maximum = static_cast<double>(enforced.value());
  if (enforced.value() <= kMaxMilliValue) {
    scaled_observed = observed * 1000;
    maximum = static_cast<double>(enforced.milli_value());
  }
  if (scaled_observed <= maximum) return std::nullopt;
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%f", observed);  // Go's %f: six decimals
  return prefix + ", but provided ratio is " + ratio;
}

// utilerrors.NewAggregate(...).Error(): one message alone, else the distinct ones in brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::vector<std::string> distinct;
  for (const std::string& error : errors)
    if (std::ranges::find(distinct, error) == distinct.end()) distinct.push_back(error);
  std::string joined;
  for (const std::string& error : distinct) joined += (joined.empty() ? "" : ", ") + error;
  return distinct.size() == 1 ? joined : "[" + joined + "]";
}

// Checks one set of requests and limits (a container's, or a pod's sums) against a range item.
void check_item(const json::object& item, std::string_view type, const ResourceList& requests,
                const ResourceList& limits, std::vector<std::string>& errors) {
  for (const auto& [name, enforced] : ordered_quantities(object_member(item, "min")))
    if (auto error = min_constraint(type, name, enforced, requests, limits)) errors.push_back(std::move(*error));
  for (const auto& [name, enforced] : ordered_quantities(object_member(item, "max")))
    if (auto error = max_constraint(type, name, enforced, requests, limits)) errors.push_back(std::move(*error));
  for (const auto& [name, enforced] : ordered_quantities(object_member(item, "maxLimitRequestRatio")))
    if (auto error = ratio_constraint(type, name, enforced, requests, limits)) errors.push_back(std::move(*error));
}

struct ContainerResources {
  ResourceList requests, limits;
  bool restartable = false;  // a sidecar: an init container with restartPolicy Always
};

std::vector<ContainerResources> container_resources(const json::object& spec, std::string_view key) {
  std::vector<ContainerResources> result;
  const json::array* containers = array_member(spec, key);
  if (!containers) return result;
  for (const json::value& entry : *containers) {
    if (!entry.is_object()) continue;
    const json::object* resources = object_member(entry.as_object(), "resources");
    ContainerResources container;
    if (resources) {
      container.requests = resource_list(object_member(*resources, "requests"));
      container.limits = resource_list(object_member(*resources, "limits"));
    }
    container.restartable = string_member(entry.as_object(), "restartPolicy") == "Always";
    result.push_back(std::move(container));
  }
  return result;
}

void add_list(ResourceList& list, const ResourceList& added) {
  for (const auto& [name, quantity] : added) {
    auto [it, inserted] = list.emplace(name, quantity);
    if (!inserted) it->second.add(quantity);
  }
}

void max_list(ResourceList& list, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto it = list.find(name);
    if (it == list.end()) list.emplace(name, quantity);
    else if (quantity.nanos > it->second.nanos) it->second = quantity;
  }
}

// podRequests / podLimits (the limitranger's copy of pkg/api/v1/resource): the containers' sum, raised to what
// any init container needs while it runs next to the sidecars started before it. In-place resize (off in 1.32)
// is not taken into account.
ResourceList pod_total(const std::vector<ContainerResources>& containers,
                       const std::vector<ContainerResources>& init_containers, bool limits) {
  ResourceList total;
  for (const ContainerResources& container : containers) add_list(total, limits ? container.limits : container.requests);
  ResourceList sidecars, init_peak;
  for (const ContainerResources& container : init_containers) {
    const ResourceList& own = limits ? container.limits : container.requests;
    ResourceList running;
    if (container.restartable) {
      add_list(total, own);
      add_list(sidecars, own);
      running = sidecars;
    } else {
      add_list(running, own);
      add_list(running, sidecars);
    }
    max_list(init_peak, running);
  }
  max_list(total, init_peak);
  return total;
}

std::vector<std::string> validate_pod(const json::object& range, const json::object& pod) {
  std::vector<std::string> errors;
  const json::object* spec = object_member(pod, "spec");
  const json::object* range_spec = object_member(range, "spec");
  if (!spec || !range_spec) return errors;
  const json::array* items = array_member(*range_spec, "limits");
  if (!items) return errors;
  const std::vector<ContainerResources> containers = container_resources(*spec, "containers");
  const std::vector<ContainerResources> init_containers = container_resources(*spec, "initContainers");
  for (const json::value& entry : *items) {
    if (!entry.is_object()) continue;
    const json::object& item = entry.as_object();
    const std::string_view type = string_member(item, "type");
    if (type == "Container") {
      for (const ContainerResources& container : containers)
        check_item(item, type, container.requests, container.limits, errors);
      for (const ContainerResources& container : init_containers)
        check_item(item, type, container.requests, container.limits, errors);
    } else if (type == "Pod") {
      check_item(item, type, pod_total(containers, init_containers, false), pod_total(containers, init_containers, true),
                 errors);
    }
  }
  return errors;
}

std::vector<std::string> validate_claim(const json::object& range, const json::object& claim) {
  std::vector<std::string> errors;
  const json::object* range_spec = object_member(range, "spec");
  const json::array* items = range_spec ? array_member(*range_spec, "limits") : nullptr;
  if (!items) return errors;
  ResourceList requests;
  if (const json::object* spec = object_member(claim, "spec"))
    if (const json::object* resources = object_member(*spec, "resources"))
      requests = resource_list(object_member(*resources, "requests"));
  for (const json::value& entry : *items) {
    if (!entry.is_object()) continue;
    const json::object& item = entry.as_object();
    const std::string_view type = string_member(item, "type");
    if (type != "PersistentVolumeClaim") continue;
    for (const auto& [name, enforced] : ordered_quantities(object_member(item, "min")))
      if (auto error = min_constraint(type, name, enforced, requests, {})) errors.push_back(std::move(*error));
    for (const auto& [name, enforced] : ordered_quantities(object_member(item, "max")))
      if (auto error = max_request_constraint(type, name, enforced, requests)) errors.push_back(std::move(*error));
  }
  return errors;
}

// defaultContainerResourceRequirements: the Container items' defaultRequest and default (a later item's value for
// a resource replaces an earlier one's).
struct Defaults {
  std::vector<std::pair<std::string, Quantity>> requests, limits;
};

void set_default(std::vector<std::pair<std::string, Quantity>>& list, const std::string& name, const Quantity& value) {
  auto it = std::ranges::find_if(list, [&](const auto& entry) { return entry.first == name; });
  if (it != list.end()) it->second = value;
  else list.emplace_back(name, value);
}

Defaults container_defaults(const json::object& range) {
  Defaults defaults;
  const json::object* range_spec = object_member(range, "spec");
  const json::array* items = range_spec ? array_member(*range_spec, "limits") : nullptr;
  if (!items) return defaults;
  for (const json::value& entry : *items) {
    if (!entry.is_object() || string_member(entry.as_object(), "type") != "Container") continue;
    for (const auto& [name, value] : ordered_quantities(object_member(entry.as_object(), "defaultRequest")))
      set_default(defaults.requests, name, value);
    for (const auto& [name, value] : ordered_quantities(object_member(entry.as_object(), "default")))
      set_default(defaults.limits, name, value);
  }
  return defaults;
}

// kube writes a resource list as a Go map: its keys in order.
void sort_by_key(json::object& list) {
  std::vector<std::pair<std::string, json::value>> entries;
  for (auto& [key, value] : list) entries.emplace_back(std::string(key), std::move(value));
  std::ranges::sort(entries, {}, &std::pair<std::string, json::value>::first);
  list.clear();
  for (auto& [key, value] : entries) list[key] = std::move(value);
}

// Fills what a container lacks; returns the annotation's phrases for it ("cpu, memory request for container c").
void merge_container(json::object& container, const Defaults& defaults, std::string_view what,
                     std::vector<std::string>& phrases) {
  const auto fill = [&](std::string_view key, const std::vector<std::pair<std::string, Quantity>>& values) {
    std::vector<std::string> set;
    if (values.empty()) return set;
    json::value& resources = container["resources"];
    if (!resources.is_object()) resources = json::object();
    json::value& list = resources.as_object()[key];
    if (!list.is_object()) list = json::object();
    for (const auto& [name, value] : values) {
      if (list.as_object().contains(name)) continue;
      list.as_object()[name] = value.to_string();
      set.push_back(name);
    }
    if (list.as_object().empty()) resources.as_object().erase(key);
    else if (!set.empty()) sort_by_key(list.as_object());
    std::ranges::sort(set);
    return set;
  };
  const std::vector<std::string> limits = fill("limits", defaults.limits);
  const std::vector<std::string> requests = fill("requests", defaults.requests);
  const std::string name(string_member(container, "name"));
  const auto join = [](const std::vector<std::string>& names) {
    std::string joined;
    for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
    return joined;
  };
  if (!requests.empty()) phrases.push_back(join(requests) + " request for " + std::string(what) + " " + name);
  if (!limits.empty()) phrases.push_back(join(limits) + " limit for " + std::string(what) + " " + name);
}

void default_pod(const json::object& range, json::object& pod) {
  const Defaults defaults = container_defaults(range);
  json::value* spec = pod.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  std::vector<std::string> phrases;
  for (const auto& [key, what] : {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}}) {
    json::value* containers = spec->as_object().if_contains(key);
    if (!containers || !containers->is_array()) continue;
    for (json::value& container : containers->as_array())
      if (container.is_object()) merge_container(container.as_object(), defaults, what, phrases);
  }
  if (phrases.empty()) return;
  std::string annotation = "LimitRanger plugin set: ";
  for (std::size_t i = 0; i < phrases.size(); ++i) annotation += (i ? "; " : "") + phrases[i];
  json::object& metadata = registry::metadata_of(pod);
  json::value& annotations = metadata["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  annotations.as_object()[kAnnotation] = annotation;
}

bool is_pod(const Attributes& attributes) {
  return attributes.kind.group.empty() && attributes.kind.kind == "Pod";
}
bool is_claim(const Attributes& attributes) {
  return attributes.kind.group.empty() && attributes.kind.kind == "PersistentVolumeClaim";
}

class LimitRanger final : public Plugin {
 public:
  explicit LimitRanger(registry::Store* limit_ranges) : limit_ranges_(limit_ranges) {}

  bool handles(const Attributes& attributes) const override {
    if (!limit_ranges_ || !attributes.is_main_resource() || !attributes.object) return false;
    if (attributes.operation == Operation::Create) return is_pod(attributes) || is_claim(attributes);
    return attributes.operation == Operation::Update && is_claim(attributes);
  }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    if (attributes.resource.resource != "pods") co_return;  // only pods are defaulted
    const std::vector<json::object> ranges = co_await limit_ranges(attributes);
    for (const json::object& range : ranges) default_pod(range, *attributes.object);
  }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    if (marked_for_deletion(attributes)) co_return;
    const std::vector<json::object> ranges = co_await limit_ranges(attributes);
    for (const json::object& range : ranges) {
      std::vector<std::string> errors;
      if (attributes.resource.resource == "pods") errors = validate_pod(range, attributes.new_object());
      else if (attributes.resource.resource == "persistentvolumeclaims")
        errors = validate_claim(range, attributes.new_object());
      if (!errors.empty()) throw forbidden(attributes, aggregate(errors));
    }
  }

 private:
  static bool marked_for_deletion(const Attributes& attributes) {
    return attributes.old_object && !registry::meta_string(*attributes.old_object, "deletionTimestamp").empty();
  }

  // The namespace's LimitRanges from the watch cache; when it has none, from storage (kube's live lookup), so a
  // range created a moment ago is not missed. As kube's liveLookupCache, a live answer stands for 30 s: a
  // namespace without ranges costs each pod no storage read after the first.
  asio::awaitable<std::vector<json::object>> limit_ranges(const Attributes& attributes) {
    registry::ListRequest cached_request{.resource_version = "0"};
    registry::ObjectList list = co_await limit_ranges_->list(attributes.namespace_, std::move(cached_request));
    if (!list.items.empty()) co_return parsed(list);
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(live_mutex_);
      if (auto entry = live_lookups_.find(attributes.namespace_); entry != live_lookups_.end() && entry->second.expiry > now)
        co_return entry->second.ranges;
    }
    registry::ListRequest live_request;
    list = co_await limit_ranges_->list(attributes.namespace_, std::move(live_request));
    std::vector<json::object> ranges = parsed(list);
    std::lock_guard lock(live_mutex_);
    if (live_lookups_.size() >= kLiveLookupEntries) live_lookups_.clear();  // kube's LRU holds 10000
    live_lookups_[attributes.namespace_] = {now + kLiveLookupTtl, ranges};
    co_return ranges;
  }

  static std::vector<json::object> parsed(const registry::ObjectList& list) {
    std::vector<json::object> ranges;
    for (const registry::ReadObject& item : list.items)
      if (std::optional<json::object> range = registry::parse_json_object(item.json)) ranges.push_back(std::move(*range));
    return ranges;
  }

  static constexpr std::chrono::seconds kLiveLookupTtl{30};
  static constexpr std::size_t kLiveLookupEntries = 10000;
  struct LiveLookup {
    std::chrono::steady_clock::time_point expiry;
    std::vector<json::object> ranges;
  };

  registry::Store* limit_ranges_;
  std::mutex live_mutex_;
  std::map<std::string, LiveLookup, std::less<>> live_lookups_;
};

}  // namespace

std::unique_ptr<Plugin> make_limit_ranger(const PluginContext& context) {
  return std::make_unique<LimitRanger>(context.stores("", "limitranges"));
}

}  // namespace kapi::admission

#include "server/apis/core/pod_defaults.h"

#include "base/quantity.h"
#include "server/registry/json_fields.h"

#include <map>
#include <set>

namespace kapi::apis::core {
namespace {

using namespace registry::fields;

// parsers.ParseImageName's tag: the part after ':' in the last path component, before any '@digest'.
// "latest" when there is neither tag nor digest; "" when the name does not parse (then IfNotPresent).
std::string image_tag(std::string_view image) {
  if (image.empty()) return "";
  std::string_view name = image;
  bool has_digest = false;
  if (auto at = name.find('@'); at != std::string_view::npos) {
    has_digest = true;
    name = name.substr(0, at);
  }
  const auto slash = name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? name : name.substr(slash + 1);
  std::string_view path = name;
  std::string tag;
  if (auto colon = last.find(':'); colon != std::string_view::npos) {
    tag = std::string(last.substr(colon + 1));
    path = name.substr(0, name.size() - last.size() + colon);
  }
  // The repository path (after a domain, which may have upper case) must be lower case.
  std::string_view repository = path;
  if (auto first_slash = path.find('/'); first_slash != std::string_view::npos) {
    std::string_view domain = path.substr(0, first_slash);
    if (domain.find_first_of(".:") != std::string_view::npos || domain == "localhost")
      repository = path.substr(first_slash + 1);
  }
  for (char c : repository)
    if (c >= 'A' && c <= 'Z') return "";
  if (repository.empty()) return "";
  if (tag.empty() && !has_digest) return "latest";
  return tag;
}

void apply_container_defaults(json::object& container) {
  if (string_at(container, "imagePullPolicy").empty())
    container["imagePullPolicy"] = default_image_pull_policy(string_at(container, "image"));
  default_string(container, "terminationMessagePath", "/dev/termination-log");
  default_string(container, "terminationMessagePolicy", "File");
  for_each_object(&container, "ports", [](json::object& port, std::size_t) { default_string(port, "protocol", "TCP"); });
}

// SetDefaults_Pod: requests default to limits, per resource, when a container has limits.
void default_requests_from_limits(json::object& container) {
  json::object* resources = object_at(container, "resources");
  if (!resources) return;
  if (const json::object* limits = object_at(*resources, "limits"); !limits || limits->empty()) return;
  // requests first: inserting it may move resources' members, limits included.
  json::object& requests = ensure_object(*resources, "requests");
  const json::object* limits = object_at(*resources, "limits");
  for (const auto& [name, quantity] : *limits)
    if (!requests.contains(name)) requests[name] = quantity;
}

// defaultHostNetworkPorts: with hostNetwork, a container port's hostPort is its containerPort.
void default_host_network_ports(json::object& container) {
  for_each_object(&container, "ports", [](json::object& port, std::size_t) {
    if (int_or_zero(&port, "hostPort") == 0 && port.contains("containerPort")) port["hostPort"] = port["containerPort"];
  });
}

void for_each_container(json::object& spec, const auto& fn) {
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"})
    for_each_object(&spec, list, [&](json::object& container, std::size_t) { fn(container, list); });
}

bool is_qos_resource(std::string_view name) { return name == "cpu" || name == "memory"; }

}  // namespace

std::string default_image_pull_policy(std::string_view image) {
  return image_tag(image) == "latest" ? "Always" : "IfNotPresent";
}

void apply_pod_spec_defaults(json::object& spec) {
  default_string(spec, "restartPolicy", "Always");
  default_string(spec, "dnsPolicy", "ClusterFirst");
  default_string(spec, "schedulerName", "default-scheduler");
  for_each_container(spec, [](json::object& container, std::string_view) { apply_container_defaults(container); });
  // SetDefaults_Volume: a volume that names no source is an emptyDir.
  for_each_object(&spec, "volumes", [](json::object& volume, std::size_t) {
    for (const auto& [key, value] : volume)
      if (key != "name" && !value.is_null()) return;
    volume["emptyDir"] = json::object();
  });
}

void apply_pod_defaults(json::object& pod) {
  json::object& spec = ensure_object(pod, "spec");
  apply_pod_spec_defaults(spec);
  for_each_container(spec, [](json::object& container, std::string_view list) {
    if (list != "ephemeralContainers") default_requests_from_limits(container);
  });
  if (!has(spec, "enableServiceLinks")) spec["enableServiceLinks"] = true;
  if (bool_at(&spec, "hostNetwork"))
    for_each_container(spec, [](json::object& container, std::string_view list) {
      if (list != "ephemeralContainers") default_host_network_ports(container);
    });
}

std::string pod_qos_class(const json::object& pod) {
  std::map<std::string, QuantityNanos, std::less<>> requests;
  std::map<std::string, QuantityNanos, std::less<>> limits;
  bool guaranteed = true;
  const json::object* spec = object_at(pod, "spec");
  for (std::string_view list : {"containers", "initContainers"}) {
    for_each_object(spec, list, [&](const json::object& container, std::size_t) {
      const json::object* resources = object_at(container, "resources");
      auto add = [&](std::string_view kind, auto& sums) {
        std::set<std::string, std::less<>> found;
        if (const json::object* quantities = resources ? object_at(*resources, kind) : nullptr) {
          for (const auto& [name, value] : *quantities) {
            if (!is_qos_resource(name) || !value.is_string()) continue;
            auto amount = parse_quantity(value.as_string());
            if (!amount || *amount <= 0) continue;
            found.emplace(name);
            sums[std::string(name)] += *amount;
          }
        }
        return found;
      };
      add("requests", requests);
      auto limits_found = add("limits", limits);
      if (!limits_found.contains("cpu") || !limits_found.contains("memory")) guaranteed = false;
    });
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, request] : requests) {
      auto limit = limits.find(name);
      if (limit == limits.end() || limit->second != request) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

json::object initial_pod_status(const json::object& pod) {
  json::object status{{"phase", "Pending"}, {"qosClass", pod_qos_class(pod)}};
  const json::object* spec = object_at(pod, "spec");
  const json::array* gates = spec ? array_at(*spec, "schedulingGates") : nullptr;
  if (gates && !gates->empty())
    status["conditions"] = json::array{json::object{{"type", "PodScheduled"},
                                                    {"status", "False"},
                                                    {"lastProbeTime", nullptr},
                                                    {"lastTransitionTime", nullptr},
                                                    {"reason", "SchedulingGated"},
                                                    {"message", "Scheduling is blocked due to non-empty scheduling gates"}}};
  return status;
}

}  // namespace kapi::apis::core

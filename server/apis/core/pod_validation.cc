#include "server/apis/core/pod_validation.h"

#include "base/name_validation.h"
#include "base/quantity.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/object_meta.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <set>

namespace kapi::apis::core {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

void dns_label(ErrorList& errors, const Path& path, std::string_view value) {
  for (auto& message : validation::is_dns1123_label(value)) errors.push_back(validation::invalid(path, value, message));
}

void dns_subdomain(ErrorList& errors, const Path& path, std::string_view value) {
  for (auto& message : validation::is_dns1123_subdomain(value))
    errors.push_back(validation::invalid(path, value, message));
}

void one_of(ErrorList& errors, const Path& path, std::string_view value, const std::vector<std::string>& valid) {
  if (value.empty()) errors.push_back(validation::required(path));
  else if (std::find(valid.begin(), valid.end(), value) == valid.end())
    errors.push_back(validation::not_supported(path, value, valid));
}

// validateVolumes: the names of the volumes that passed, for the containers' volumeMounts.
std::set<std::string, std::less<>> validate_volumes(const json::object& spec, const Path& path, ErrorList& errors) {
  std::set<std::string, std::less<>> names;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t i) {
    ErrorList own;
    const Path at = path.index(i);
    std::vector<std::string> sources;
    for (const auto& [key, value] : volume)
      if (key != "name" && !value.is_null()) sources.emplace_back(key);
    if (sources.empty()) own.push_back(validation::required(at, "must specify a volume type"));
    for (std::size_t s = 1; s < sources.size(); ++s)
      own.push_back(validation::forbidden(at.child(sources[s]), "may not specify more than 1 volume type"));
    const std::string_view name = string_at(volume, "name");
    if (name.empty()) own.push_back(validation::required(at.child("name")));
    else dns_label(own, at.child("name"), name);
    if (names.contains(name)) own.push_back(validation::duplicate(at.child("name"), name));
    if (own.empty()) names.emplace(name);
    append(errors, std::move(own));
  });
  return names;
}

void validate_ports(const json::object& container, const Path& path, ErrorList& errors) {
  std::set<std::string, std::less<>> names;
  for_each_object(&container, "ports", [&](const json::object& port, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view name = string_at(port, "name");
    if (!name.empty()) {
      auto messages = port_name_errors(name);
      for (auto& message : messages) errors.push_back(validation::invalid(at.child("name"), name, message));
      if (messages.empty() && !names.emplace(name).second) errors.push_back(validation::duplicate(at.child("name"), name));
    }
    const std::int64_t container_port = int_or_zero(&port, "containerPort");
    if (container_port == 0) errors.push_back(validation::required(at.child("containerPort")));
    for (auto& message : port_number_errors(container_port == 0 ? 1 : container_port))
      errors.push_back(validation::invalid_value(at.child("containerPort"), std::to_string(container_port), message));
    if (const std::int64_t host_port = int_or_zero(&port, "hostPort"); host_port != 0)
      for (auto& message : port_number_errors(host_port))
        errors.push_back(validation::invalid_value(at.child("hostPort"), std::to_string(host_port), message));
    append(errors, protocol_errors(at.child("protocol"), string_at(port, "protocol")));
  });
}

void validate_volume_mounts(const json::object& container, const std::set<std::string, std::less<>>& volumes,
                            const Path& path, ErrorList& errors) {
  std::set<std::string, std::less<>> mount_points;
  for_each_object(&container, "volumeMounts", [&](const json::object& mount, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view name = string_at(mount, "name");
    if (name.empty()) errors.push_back(validation::required(at.child("name")));
    if (!volumes.contains(name))
      errors.push_back({validation::ErrorType::NotFound, at.child("name").str(), validation::quoted(name), ""});
    const std::string_view mount_path = string_at(mount, "mountPath");
    if (mount_path.empty()) errors.push_back(validation::required(at.child("mountPath")));
    if (!mount_points.emplace(mount_path).second)
      errors.push_back(validation::invalid(at.child("mountPath"), mount_path, "must be unique"));
  });
}

// ValidateResourceRequirements: no negative quantity, and no request above its limit.
void validate_resources(const json::object& container, const Path& path, ErrorList& errors) {
  const json::object* resources = object_at(container, "resources");
  if (!resources) return;
  const json::object* limits = object_at(*resources, "limits");
  const json::object* requests = object_at(*resources, "requests");
  auto check_sign = [&](const json::object* quantities, const Path& at) {
    if (!quantities) return;
    for (const auto& [name, value] : *quantities) {
      if (!value.is_string()) continue;
      auto amount = parse_quantity(value.as_string());
      if (amount && *amount < 0)
        errors.push_back(validation::invalid(at.key(name), value.as_string(), "must be greater than or equal to 0"));
    }
  };
  check_sign(limits, path.child("limits"));
  check_sign(requests, path.child("requests"));
  if (!limits || !requests) return;
  for (const auto& [name, value] : *requests) {
    auto limit = limits->find(name);
    if (limit == limits->end() || !limit->value().is_string() || !value.is_string()) continue;
    auto requested = parse_quantity(value.as_string());
    auto limited = parse_quantity(limit->value().as_string());
    if (requested && limited && *requested > *limited)
      errors.push_back(validation::invalid(path.child("requests").key(name), value.as_string(),
                                           "must be less than or equal to " + std::string(name) + " limit of " +
                                               std::string(limit->value().as_string())));
  }
}

void validate_containers(const json::object& spec, std::string_view list, const Path& path,
                         const std::set<std::string, std::less<>>& volumes, std::set<std::string, std::less<>>& names,
                         ErrorList& errors) {
  for_each_object(&spec, list, [&](const json::object& container, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view name = string_at(container, "name");
    if (name.empty()) errors.push_back(validation::required(at.child("name")));
    else dns_label(errors, at.child("name"), name);
    const std::string_view image = string_at(container, "image");
    if (!image.empty() && (std::isspace(static_cast<unsigned char>(image.front())) ||
                           std::isspace(static_cast<unsigned char>(image.back()))))
      errors.push_back(validation::invalid(at.child("image"), image, "must not have leading or trailing whitespace"));
    validate_ports(container, at.child("ports"), errors);
    for_each_object(&container, "env", [&](const json::object& env, std::size_t e) {
      if (string_at(env, "name").empty()) errors.push_back(validation::required(at.child("env").index(e).child("name")));
    });
    validate_volume_mounts(container, volumes, at.child("volumeMounts"), errors);
    one_of(errors, at.child("imagePullPolicy"), string_at(container, "imagePullPolicy"),
           {"Always", "IfNotPresent", "Never"});
    validate_resources(container, at.child("resources"), errors);
    if (!names.emplace(name).second) errors.push_back(validation::duplicate(at.child("name"), name));
  });
}

// validateEphemeralContainers: the checks of other containers, a name unique among all of them, a target that is
// one of the pod's containers, and none of the fields that would make it part of the workload.
void validate_ephemeral_containers(const json::object& spec, const Path& path,
                                   const std::set<std::string, std::less<>>& volumes,
                                   const std::set<std::string, std::less<>>& other_names, ErrorList& errors) {
  std::set<std::string, std::less<>> names = other_names;
  for_each_object(&spec, "ephemeralContainers", [&](const json::object& container, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view name = string_at(container, "name");
    if (name.empty()) errors.push_back(validation::required(at.child("name")));
    else dns_label(errors, at.child("name"), name);
    if (string_at(container, "image").empty()) errors.push_back(validation::required(at.child("image")));
    for_each_object(&container, "env", [&](const json::object& env, std::size_t e) {
      if (string_at(env, "name").empty()) errors.push_back(validation::required(at.child("env").index(e).child("name")));
    });
    validate_volume_mounts(container, volumes, at.child("volumeMounts"), errors);
    one_of(errors, at.child("imagePullPolicy"), string_at(container, "imagePullPolicy"),
           {"Always", "IfNotPresent", "Never"});
    if (!names.emplace(name).second) errors.push_back(validation::duplicate(at.child("name"), name));
    if (auto target = string_at(container, "targetContainerName"); !target.empty() && !other_names.contains(target))
      errors.push_back({validation::ErrorType::NotFound, at.child("targetContainerName").str(),
                        validation::quoted(target), ""});
    // validateFieldAllowList, in the struct's field order.
    for (std::string_view field : {"ports", "resources", "resizePolicy", "restartPolicy", "livenessProbe",
                                   "readinessProbe", "startupProbe", "lifecycle"}) {
      const json::value* value = container.if_contains(field);
      const bool empty = !value || value->is_null() || (value->is_array() && value->as_array().empty()) ||
                         (value->is_object() && value->as_object().empty()) ||
                         (value->is_string() && value->as_string().empty());
      if (!empty) errors.push_back(validation::forbidden(at.child(field), "cannot be set for an Ephemeral Container"));
    }
    for_each_object(&container, "volumeMounts", [&](const json::object& mount, std::size_t m) {
      for (std::string_view field : {"subPath", "subPathExpr"})
        if (!string_at(mount, field).empty())
          errors.push_back(validation::forbidden(at.child("volumeMounts").index(m).child(field),
                                                 "cannot be set for an Ephemeral Container"));
    });
  });
}

void validate_tolerations(const json::object& spec, const Path& path, ErrorList& errors) {
  for_each_object(&spec, "tolerations", [&](const json::object& toleration, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view key = string_at(toleration, "key");
    const std::string_view op = string_at(toleration, "operator");
    const std::string_view effect = string_at(toleration, "effect");
    const std::string_view value = string_at(toleration, "value");
    if (!key.empty())
      for (auto& message : validation::is_qualified_name(key)) errors.push_back(validation::invalid(at.child("key"), key, message));
    if (key.empty() && op != "Exists")
      errors.push_back(validation::invalid(at.child("operator"), op,
                                           "operator must be Exists when `key` is empty, which means \"match all "
                                           "values and all keys\""));
    if (has(toleration, "tolerationSeconds") && effect != "NoExecute")
      errors.push_back(validation::invalid(at.child("effect"), effect,
                                           "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (op.empty() || op == "Equal") {
      auto messages = validation::is_valid_label_value(value);
      std::string joined;
      for (const auto& message : messages) joined += (joined.empty() ? "" : ";") + message;
      if (!messages.empty()) errors.push_back(validation::invalid(at.child("operator"), value, joined));
    } else if (op == "Exists") {
      if (!value.empty())
        errors.push_back(validation::invalid_value(at.child("operator"), json::serialize(toleration),
                                                   "value must be empty when `operator` is 'Exists'"));
    } else {
      errors.push_back(validation::not_supported(at.child("operator"), op, {"Equal", "Exists"}));
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      errors.push_back(validation::not_supported(at.child("effect"), effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
  });
}

// apiequality.Semantic.DeepEqual on the JSON form: an empty list, map or string reads as the missing member.
json::value semantic(const json::value& value) {
  if (value.is_array()) {
    json::array out;
    for (const auto& item : value.as_array()) out.push_back(semantic(item));
    return out;
  }
  if (!value.is_object()) return value;
  json::object out;
  for (const auto& [key, member] : value.as_object()) {
    json::value normal = semantic(member);
    const bool empty = normal.is_null() || (normal.is_string() && normal.as_string().empty()) ||
                       (normal.is_array() && normal.as_array().empty()) ||
                       (normal.is_object() && normal.as_object().empty());
    if (!empty) out[key] = std::move(normal);
  }
  return out;
}

// kube prints cmp.Diff of the two specs; a member-by-member account says the same for people.
std::string spec_diff(const json::object& old_spec, const json::object& new_spec) {
  std::set<std::string> keys;
  for (const auto& [key, value] : old_spec) keys.emplace(key);
  for (const auto& [key, value] : new_spec) keys.emplace(key);
  std::string out = "  core.PodSpec{\n";
  for (const auto& key : keys) {
    const json::value* before = old_spec.if_contains(key);
    const json::value* after = new_spec.if_contains(key);
    if (before && after && *before == *after) continue;
    if (before) out += "- \t" + key + ": " + json::serialize(*before) + ",\n";
    if (after) out += "+ \t" + key + ": " + json::serialize(*after) + ",\n";
  }
  return out + "  }\n";
}

const char kUpdatableFields[] =
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
    "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
    "was previously negative)";

}  // namespace

ErrorList tolerations_errors(const json::object& owner, const Path& path) {
  ErrorList errors;
  validate_tolerations(owner, path, errors);
  return errors;
}

ErrorList resource_requirements_errors(const json::object& owner, const Path& path) {
  ErrorList errors;
  validate_resources(owner, path, errors);
  return errors;
}

ErrorList validate_pod_spec(const json::object& spec, const Path& path) {
  ErrorList errors;
  const auto volumes = validate_volumes(spec, path.child("volumes"), errors);
  std::set<std::string, std::less<>> names;
  const json::array* containers = array_at(spec, "containers");
  if (!containers || containers->empty()) errors.push_back(validation::required(path.child("containers")));
  // Regular containers first: a name an init container repeats is reported on the init container, as kube does.
  validate_containers(spec, "containers", path.child("containers"), volumes, names, errors);
  validate_containers(spec, "initContainers", path.child("initContainers"), volumes, names, errors);
  validate_ephemeral_containers(spec, path.child("ephemeralContainers"), volumes, names, errors);
  if (bool_at(&spec, "hostNetwork")) {
    for_each_object(&spec, "containers", [&](const json::object& container, std::size_t c) {
      for_each_object(&container, "ports", [&](const json::object& port, std::size_t p) {
        const std::int64_t host_port = int_or_zero(&port, "hostPort");
        if (host_port != int_or_zero(&port, "containerPort"))
          errors.push_back(validation::invalid_value(path.child("containers").index(c).child("ports").index(p).child("hostPort"),
                                                     std::to_string(host_port),
                                                     "must match `containerPort` when `hostNetwork` is true"));
      });
    });
  }
  one_of(errors, path.child("restartPolicy"), string_at(spec, "restartPolicy"), {"Always", "OnFailure", "Never"});
  one_of(errors, path.child("dnsPolicy"), string_at(spec, "dnsPolicy"),
         {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  if (const json::object* selector = object_at(spec, "nodeSelector"))
    for (const auto& [key, value] : *selector) {
      for (auto& message : validation::is_qualified_name(key))
        errors.push_back(validation::invalid(path.child("nodeSelector"), key, message));
      if (value.is_string())
        for (auto& message : validation::is_valid_label_value(value.as_string()))
          errors.push_back(validation::invalid(path.child("nodeSelector"), value.as_string(), message));
    }
  if (auto account = string_at(spec, "serviceAccountName"); !account.empty())
    dns_subdomain(errors, path.child("serviceAccountName"), account);
  if (auto node = string_at(spec, "nodeName"); !node.empty()) dns_subdomain(errors, path.child("nodeName"), node);
  if (auto deadline = int_at(spec, "activeDeadlineSeconds"); deadline && (*deadline < 1 || *deadline > INT32_MAX))
    errors.push_back(validation::invalid_value(path.child("activeDeadlineSeconds"), std::to_string(*deadline),
                                               inclusive_range_error(1, INT32_MAX)));
  if (auto hostname = string_at(spec, "hostname"); !hostname.empty()) dns_label(errors, path.child("hostname"), hostname);
  if (auto subdomain = string_at(spec, "subdomain"); !subdomain.empty())
    dns_label(errors, path.child("subdomain"), subdomain);
  validate_tolerations(spec, path.child("tolerations"), errors);
  return errors;
}

ErrorList validate_pod(const json::object& pod) {
  static const json::object kEmpty;
  const json::object* spec = object_at(pod, "spec");
  const Path spec_path("spec");
  ErrorList errors = validate_pod_spec(spec ? *spec : kEmpty, spec_path);
  // validateContainersOnlyForPod: a pod template may leave the image to be filled in, a pod may not.
  for (std::string_view list : {"containers", "initContainers"})
    for_each_object(spec, list, [&](const json::object& container, std::size_t i) {
      if (string_at(container, "image").empty())
        errors.push_back(validation::required(spec_path.child(list).index(i).child("image")));
    });
  return errors;
}

ErrorList validate_pod_template_spec(const json::object& template_, const Path& path) {
  ErrorList errors;
  const json::object* meta = object_at(template_, "metadata");
  if (const json::object* labels = object_at(meta, "labels"))
    append(errors, validation::validate_labels(*labels, path.child("metadata").child("labels")));
  if (const json::object* annotations = object_at(meta, "annotations"))
    append(errors, validation::validate_annotations(*annotations, path.child("metadata").child("annotations")));
  static const json::object kEmpty;
  const json::object* spec = object_at(template_, "spec");
  append(errors, validate_pod_spec(spec ? *spec : kEmpty, path.child("spec")));
  if (const json::array* ephemeral = array_at(spec, "ephemeralContainers"); ephemeral && !ephemeral->empty())
    errors.push_back(validation::forbidden(path.child("spec").child("ephemeralContainers"),
                                           "ephemeral containers not allowed in pod template"));
  return errors;
}

ErrorList validate_ephemeral_containers_update(const json::object& pod, const json::object& old) {
  const json::object* annotations = object_at(object_at(old, "metadata"), "annotations");
  if (annotations && annotations->contains("kubernetes.io/config.mirror"))
    return {validation::forbidden(Path(""), "static pods do not support ephemeral containers")};
  ErrorList errors;
  std::map<std::string, const json::object*, std::less<>> by_name;
  for_each_object(object_at(pod, "spec"), "ephemeralContainers",
                  [&](const json::object& container, std::size_t) { by_name[std::string(string_at(container, "name"))] = &container; });
  const Path path = Path("spec").child("ephemeralContainers");
  for_each_object(object_at(old, "spec"), "ephemeralContainers", [&](const json::object& before, std::size_t) {
    const std::string name(string_at(before, "name"));
    auto now = by_name.find(name);
    if (now == by_name.end())
      errors.push_back(validation::forbidden(path, "existing ephemeral containers " + validation::quoted(name) +
                                                       " may not be removed\n"));
    else if (semantic(*now->second) != semantic(before))
      errors.push_back(validation::forbidden(path, "existing ephemeral containers " + validation::quoted(name) +
                                                       " may not be changed\n" + spec_diff(before, *now->second)));
  });
  return errors;
}

ErrorList validate_pod_update(const json::object& pod, const json::object& old) {
  ErrorList errors;
  static const json::object kEmpty;
  const json::object* spec_ptr = object_at(pod, "spec");
  const json::object* old_spec_ptr = object_at(old, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  const json::object& old_spec = old_spec_ptr ? *old_spec_ptr : kEmpty;
  const Path spec_path("spec");

  for (std::string_view list : {"containers", "initContainers"}) {
    const json::array* now = array_at(spec, list);
    const json::array* before = array_at(old_spec, list);
    if ((now ? now->size() : 0) != (before ? before->size() : 0)) {
      errors.push_back(validation::forbidden(spec_path.child(list), "pod updates may not add or remove containers"));
      return errors;
    }
  }

  // activeDeadlineSeconds may be set, or lowered, never raised or removed.
  const auto deadline = int_at(spec, "activeDeadlineSeconds");
  const auto old_deadline = int_at(old_spec, "activeDeadlineSeconds");
  if (deadline) {
    if (*deadline < 0 || *deadline > INT32_MAX) {
      errors.push_back(validation::invalid_value(spec_path.child("activeDeadlineSeconds"), std::to_string(*deadline),
                                                 inclusive_range_error(0, INT32_MAX)));
      return errors;
    }
    if (old_deadline && *old_deadline < *deadline) {
      errors.push_back(validation::invalid_value(spec_path.child("activeDeadlineSeconds"), std::to_string(*deadline),
                                                 "must be less than or equal to previous value"));
      return errors;
    }
  } else if (old_deadline) {
    errors.push_back(validation::invalid_value(spec_path.child("activeDeadlineSeconds"), "(*int64)(nil)",
                                               "must not update from a positive integer to nil value"));
  }

  // Tolerations may be added; an existing one may change only its tolerationSeconds.
  {
    const json::array* now = array_at(spec, "tolerations");
    for_each_object(&old_spec, "tolerations", [&](const json::object& before, std::size_t) {
      json::object wanted = before;
      wanted.erase("tolerationSeconds");
      bool found = false;
      if (now)
        for (const auto& item : *now) {
          if (!item.is_object()) continue;
          json::object candidate = item.as_object();
          candidate.erase("tolerationSeconds");
          found = found || semantic(candidate) == semantic(wanted);
        }
      if (!found && (errors.empty() || errors.back().field != "spec.tolerations"))
        errors.push_back(validation::forbidden(spec_path.child("tolerations"),
                                               "existing toleration can not be modified except its tolerationSeconds"));
    });
  }

  // Scheduling gates may only be removed.
  {
    std::set<std::string, std::less<>> old_gates;
    for_each_object(&old_spec, "schedulingGates",
                    [&](const json::object& gate, std::size_t) { old_gates.emplace(string_at(gate, "name")); });
    for_each_object(&spec, "schedulingGates", [&](const json::object& gate, std::size_t i) {
      const std::string_view name = string_at(gate, "name");
      if (!old_gates.contains(name))
        errors.push_back(validation::forbidden(spec_path.child("schedulingGates").index(i).child("name"),
                                               "only deletion is allowed, but found new scheduling gate '" +
                                                   std::string(name) + "'"));
    });
  }

  // Everything else is compared after the updatable fields take their old values.
  json::object munged = spec;
  for (std::string_view list : {"containers", "initContainers"}) {
    json::array* containers = array_at(munged, list);
    const json::array* old_containers = array_at(old_spec, list);
    if (!containers || !old_containers) continue;
    for (std::size_t i = 0; i < containers->size() && i < old_containers->size(); ++i) {
      if (!(*containers)[i].is_object() || !(*old_containers)[i].is_object()) continue;
      json::object& container = (*containers)[i].as_object();
      const json::object& old_container = (*old_containers)[i].as_object();
      if (auto it = old_container.find("image"); it != old_container.end()) container["image"] = it->value();
      else container.erase("image");
    }
  }
  for (std::string_view key : {"activeDeadlineSeconds", "schedulingGates", "tolerations"}) {
    if (auto it = old_spec.find(key); it != old_spec.end()) munged[key] = it->value();
    else munged.erase(key);
  }
  const auto old_grace = int_at(old_spec, "terminationGracePeriodSeconds");
  if (old_grace && *old_grace < 0 && int_at(munged, "terminationGracePeriodSeconds") == 1)
    munged["terminationGracePeriodSeconds"] = *old_grace;
  const json::value normal_old = semantic(old_spec);
  const json::value normal_new = semantic(munged);
  if (normal_old != normal_new)
    errors.push_back(validation::forbidden(
        spec_path, std::string("pod updates may not change fields other than ") + kUpdatableFields + "\n" +
                       spec_diff(normal_old.as_object(), normal_new.as_object())));
  return errors;
}

}  // namespace kapi::apis::core

// The restricted checks of k8s.io/pod-security-admission/policy (check_allowPrivilegeEscalation.go,
// check_capabilities_restricted.go, check_restrictedVolumes.go, check_runAsNonRoot.go, check_runAsUser.go,
// check_seccompProfile_restricted.go), release-1.32, with kube's reasons and details word for word.
#include "server/plugin/admission/podsecurity/checks.h"

#include <array>
#include <utility>

namespace kapi::admission::podsecurity {
namespace {

using namespace json_view;
using boost::json::object;


CheckResult allow_privilege_escalation_1_8(const PodView& pod) {
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (bool_at(security_context(container), "allowPrivilegeEscalation").value_or(true))
      bad_containers.push_back(container_name(container));
  });
  if (bad_containers.empty()) return {};
  return forbidden("allowPrivilegeEscalation != false",
                   containers_phrase(bad_containers) + " must set securityContext.allowPrivilegeEscalation=false");
}

// From 1.25 on, Windows pods (spec.os.name) are not held to the Linux-only fields.
CheckResult allow_privilege_escalation_1_25(const PodView& pod) {
  if (is_windows_pod(pod)) return {};
  return allow_privilege_escalation_1_8(pod);
}

CheckResult capabilities_restricted_1_22(const PodView& pod) {
  std::vector<std::string> missing_drop_all;
  std::vector<std::string> adding_forbidden;
  std::set<std::string> forbidden_capabilities;
  visit_containers(pod.spec, [&](const object& container) {
    const object* capabilities = object_at(security_context(container), "capabilities");
    if (!capabilities) {
      missing_drop_all.push_back(container_name(container));
      return;
    }
    bool dropped_all = false;
    if (const boost::json::array* dropped = array_at(capabilities, "drop"))
      for (const auto& capability : *dropped)
        if (capability.is_string() && capability.as_string() == "ALL") dropped_all = true;
    if (!dropped_all) missing_drop_all.push_back(container_name(container));
    bool added_forbidden = false;
    if (const boost::json::array* added = array_at(capabilities, "add")) {
      for (const auto& capability : *added) {
        const std::string_view name = capability.is_string() ? std::string_view(capability.as_string()) : "";
        if (name != "NET_BIND_SERVICE") {
          added_forbidden = true;
          forbidden_capabilities.emplace(name);
        }
      }
    }
    if (added_forbidden) adding_forbidden.push_back(container_name(container));
  });
  std::vector<std::string> details;
  if (!missing_drop_all.empty())
    details.push_back(containers_phrase(missing_drop_all) + " must set securityContext.capabilities.drop=[\"ALL\"]");
  if (!adding_forbidden.empty())
    details.push_back(containers_phrase(adding_forbidden) + " must not include " + join_quote(forbidden_capabilities) +
                      " in securityContext.capabilities.add");
  if (details.empty()) return {};
  return forbidden("unrestricted capabilities", join(details, "; "));
}

CheckResult capabilities_restricted_1_25(const PodView& pod) {
  if (is_windows_pod(pod)) return {};
  return capabilities_restricted_1_22(pod);
}

// The volume sources restricted allows, then kube's names of the others in the order it tests them.
constexpr std::array<std::string_view, 8> kAllowedVolumeSources{
    "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"};
constexpr std::array<std::string_view, 21> kRestrictedVolumeSources{
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs",
    "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"};

CheckResult restricted_volumes_1_0(const PodView& pod) {
  std::vector<std::string> bad_volumes;
  std::set<std::string> bad_types;
  if (const boost::json::array* volumes = array_at(pod.spec, "volumes")) {
    for (const auto& entry : *volumes) {
      const object* volume = entry.if_object();
      bool allowed = false;
      for (std::string_view source : kAllowedVolumeSources) allowed = allowed || has(volume, source);
      if (allowed) continue;
      bad_volumes.emplace_back(string_at(volume, "name"));
      std::string type = "unknown";
      for (std::string_view source : kRestrictedVolumeSources) {
        if (has(volume, source)) {
          type = source;
          break;
        }
      }
      bad_types.insert(std::move(type));
    }
  }
  if (bad_volumes.empty()) return {};
  return forbidden("restricted volume types",
                   std::string(pluralize("volume", "volumes", bad_volumes.size())) + " " + join_quote(bad_volumes) + " " +
                       std::string(pluralize("uses", "use", bad_volumes.size())) + " " +
                       std::string(pluralize("restricted volume type", "restricted volume types", bad_types.size())) +
                       " " + join_quote(bad_types));
}

CheckResult run_as_non_root_1_0(const PodView& pod) {
  // relaxPolicyForUserNamespacePod is off: kube 1.32 keeps UserNamespacesPodSecurityStandards (alpha) off.
  std::vector<std::string> bad_setters;
  bool pod_run_as_non_root = false;
  if (std::optional<bool> pod_value = bool_at(pod_security_context(pod), "runAsNonRoot")) {
    if (!*pod_value) bad_setters.emplace_back("pod");
    else pod_run_as_non_root = true;
  }
  std::vector<std::string> explicitly_bad;
  std::vector<std::string> implicitly_bad;
  visit_containers(pod.spec, [&](const object& container) {
    if (std::optional<bool> value = bool_at(security_context(container), "runAsNonRoot")) {
      if (!*value) explicitly_bad.push_back(container_name(container));
    } else if (!pod_run_as_non_root) {
      implicitly_bad.push_back(container_name(container));
    }
  });
  if (!explicitly_bad.empty()) bad_setters.push_back(containers_phrase(explicitly_bad));
  if (!bad_setters.empty())
    return forbidden("runAsNonRoot != true", join(bad_setters, " and ") + " must not set securityContext.runAsNonRoot=false");
  if (!implicitly_bad.empty())
    return forbidden("runAsNonRoot != true",
                     "pod or " + containers_phrase(implicitly_bad) + " must set securityContext.runAsNonRoot=true");
  return {};
}

CheckResult run_as_user_1_23(const PodView& pod) {
  std::vector<std::string> bad_setters;
  if (int_at(pod_security_context(pod), "runAsUser") == std::optional<std::int64_t>(0)) bad_setters.emplace_back("pod");
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (int_at(security_context(container), "runAsUser") == std::optional<std::int64_t>(0))
      bad_containers.push_back(container_name(container));
  });
  if (!bad_containers.empty()) bad_setters.push_back(containers_phrase(bad_containers));
  if (bad_setters.empty()) return {};
  return forbidden("runAsUser=0", join(bad_setters, " and ") + " must not set runAsUser=0");
}

bool valid_seccomp_type(std::string_view type) { return type == "Localhost" || type == "RuntimeDefault"; }

CheckResult seccomp_profile_restricted_1_19(const PodView& pod) {
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_values;
  bool pod_seccomp_set = false;
  if (const object* profile = object_at(pod_security_context(pod), "seccompProfile")) {
    if (!valid_seccomp_type(string_at(profile, "type"))) {
      bad_setters.emplace_back("pod");
      bad_values.emplace(string_at(profile, "type"));
    } else {
      pod_seccomp_set = true;
    }
  }
  std::vector<std::string> explicitly_bad;
  std::vector<std::string> implicitly_bad;
  visit_containers(pod.spec, [&](const object& container) {
    if (const object* profile = object_at(security_context(container), "seccompProfile")) {
      if (!valid_seccomp_type(string_at(profile, "type"))) {
        explicitly_bad.push_back(container_name(container));
        bad_values.emplace(string_at(profile, "type"));
      }
    } else if (!pod_seccomp_set) {
      implicitly_bad.push_back(container_name(container));
    }
  });
  if (!explicitly_bad.empty()) bad_setters.push_back(containers_phrase(explicitly_bad));
  if (!bad_setters.empty())
    return forbidden("seccompProfile", join(bad_setters, " and ") +
                                           " must not set securityContext.seccompProfile.type to " + join_quote(bad_values));
  if (!implicitly_bad.empty())
    return forbidden("seccompProfile", "pod or " + containers_phrase(implicitly_bad) +
                                           " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
  return {};
}

CheckResult seccomp_profile_restricted_1_25(const PodView& pod) {
  if (is_windows_pod(pod)) return {};
  return seccomp_profile_restricted_1_19(pod);
}

}  // namespace

std::vector<Check> restricted_checks() {
  const Version v1_0 = Version::numbered(1, 0);
  const Version v1_25 = Version::numbered(1, 25);
  return {
      {"allowPrivilegeEscalation", Level::Restricted,
       {{Version::numbered(1, 8), allow_privilege_escalation_1_8, {}}, {v1_25, allow_privilege_escalation_1_25, {}}}},
      {"capabilities_restricted", Level::Restricted,
       {{Version::numbered(1, 22), capabilities_restricted_1_22, {"capabilities_baseline"}},
        {v1_25, capabilities_restricted_1_25, {"capabilities_baseline"}}}},
      {"restrictedVolumes", Level::Restricted, {{v1_0, restricted_volumes_1_0, {"hostPathVolumes"}}}},
      {"runAsNonRoot", Level::Restricted, {{v1_0, run_as_non_root_1_0, {}}}},
      {"runAsUser", Level::Restricted, {{Version::numbered(1, 23), run_as_user_1_23, {}}}},
      {"seccompProfile_restricted", Level::Restricted,
       {{Version::numbered(1, 19), seccomp_profile_restricted_1_19, {"seccompProfile_baseline"}},
        {v1_25, seccomp_profile_restricted_1_25, {"seccompProfile_baseline"}}}},
  };
}

}  // namespace kapi::admission::podsecurity

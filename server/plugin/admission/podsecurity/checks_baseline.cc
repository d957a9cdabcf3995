// The baseline checks of k8s.io/pod-security-admission/policy (check_appArmorProfile.go,
// check_capabilities_baseline.go, check_hostNamespaces.go, check_hostPathVolumes.go, check_hostPorts.go,
// check_privileged.go, check_procMount.go, check_seLinuxOptions.go, check_seccompProfile_baseline.go,
// check_sysctls.go, check_windowsHostProcess.go), release-1.32, with kube's reasons and details word for word.
#include "base/go_quote.h"
#include "server/plugin/admission/podsecurity/checks.h"

#include <algorithm>
#include <array>

namespace kapi::admission::podsecurity {
namespace {

using namespace json_view;
using boost::json::object;

const object* annotations(const PodView& pod) { return object_at(pod.metadata, "annotations"); }

// "pod", "containers \"a\"" joined by " and ", as the checks name who set a forbidden value.
std::vector<std::string> setters(bool pod, const std::vector<std::string>& containers) {
  std::vector<std::string> result;
  if (pod) result.emplace_back("pod");
  if (!containers.empty()) result.push_back(containers_phrase(containers));
  return result;
}

bool allowed_apparmor_type(std::string_view type) { return type == "RuntimeDefault" || type == "Localhost"; }

bool allowed_apparmor_annotation(std::string_view value) {
  return value.empty() || value == "runtime/default" || value.starts_with("localhost/");
}

CheckResult app_armor_profile_1_0(const PodView& pod) {
  std::set<std::string> bad_values;
  bool pod_bad = false;
  if (const object* profile = object_at(pod_security_context(pod), "appArmorProfile")) {
    if (!allowed_apparmor_type(string_at(profile, "type"))) {
      pod_bad = true;
      bad_values.emplace(string_at(profile, "type"));
    }
  }
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (const object* profile = object_at(security_context(container), "appArmorProfile")) {
      if (!allowed_apparmor_type(string_at(profile, "type"))) {
        bad_containers.push_back(container_name(container));
        bad_values.emplace(string_at(profile, "type"));
      }
    }
  });
  std::vector<std::string> bad_setters = setters(pod_bad, bad_containers);
  std::vector<std::string> forbidden_annotations;
  if (const object* all = annotations(pod)) {
    for (const auto& [key, value] : *all) {
      const std::string_view text = value.is_string() ? std::string_view(value.as_string()) : std::string_view();
      if (std::string_view(key).starts_with("container.apparmor.security.beta.kubernetes.io/") &&
          !allowed_apparmor_annotation(text))
        forbidden_annotations.push_back(std::string(key) + "=" + base::go_quote(text));
    }
  }
  std::vector<std::string> bad_value_list(bad_values.begin(), bad_values.end());
  if (!forbidden_annotations.empty()) {
    std::ranges::sort(forbidden_annotations);
    bad_value_list.insert(bad_value_list.end(), forbidden_annotations.begin(), forbidden_annotations.end());
    bad_setters.emplace_back(pluralize("annotation", "annotations", forbidden_annotations.size()));
  }
  if (bad_setters.empty()) return {};
  return forbidden(std::string(pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles",
                                         bad_value_list.size())),
                   join(bad_setters, " and ") + " must not set AppArmor profile type to " + join_quote(bad_value_list));
}

constexpr std::array<std::string_view, 13> kBaselineCapabilities{
    "AUDIT_WRITE", "CHOWN",  "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",      "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"};

CheckResult capabilities_baseline_1_0(const PodView& pod) {
  std::vector<std::string> bad_containers;
  std::set<std::string> non_default;
  visit_containers(pod.spec, [&](const object& container) {
    const boost::json::array* added = array_at(object_at(security_context(container), "capabilities"), "add");
    if (!added) return;
    bool valid = true;
    for (const auto& capability : *added) {
      const std::string_view name = capability.is_string() ? std::string_view(capability.as_string()) : "";
      if (std::ranges::find(kBaselineCapabilities, name) == kBaselineCapabilities.end()) {
        valid = false;
        non_default.emplace(name);
      }
    }
    if (!valid) bad_containers.push_back(container_name(container));
  });
  if (bad_containers.empty()) return {};
  return forbidden("non-default capabilities", containers_phrase(bad_containers) + " must not include " +
                                                   join_quote(non_default) + " in securityContext.capabilities.add");
}

CheckResult host_namespaces_1_0(const PodView& pod) {
  std::vector<std::string> host_namespaces;
  if (bool_at(pod.spec, "hostNetwork").value_or(false)) host_namespaces.emplace_back("hostNetwork=true");
  if (bool_at(pod.spec, "hostPID").value_or(false)) host_namespaces.emplace_back("hostPID=true");
  if (bool_at(pod.spec, "hostIPC").value_or(false)) host_namespaces.emplace_back("hostIPC=true");
  if (host_namespaces.empty()) return {};
  return forbidden("host namespaces", join(host_namespaces, ", "));
}

CheckResult host_path_volumes_1_0(const PodView& pod) {
  std::vector<std::string> host_volumes;
  if (const boost::json::array* volumes = array_at(pod.spec, "volumes")) {
    for (const auto& volume : *volumes) {
      const object* fields = volume.if_object();
      if (has(fields, "hostPath")) host_volumes.emplace_back(string_at(fields, "name"));
    }
  }
  if (host_volumes.empty()) return {};
  return forbidden("hostPath volumes",
                   std::string(pluralize("volume", "volumes", host_volumes.size())) + " " + join_quote(host_volumes));
}

CheckResult host_ports_1_0(const PodView& pod) {
  std::vector<std::string> bad_containers;
  std::set<std::string> host_ports;  // as strings, sorted as Go sorts them
  visit_containers(pod.spec, [&](const object& container) {
    bool valid = true;
    if (const boost::json::array* ports = array_at(&container, "ports")) {
      for (const auto& port : *ports) {
        const std::int64_t host_port = int_at(port.if_object(), "hostPort").value_or(0);
        if (host_port != 0) {
          valid = false;
          host_ports.insert(std::to_string(static_cast<std::int32_t>(host_port)));
        }
      }
    }
    if (!valid) bad_containers.push_back(container_name(container));
  });
  if (bad_containers.empty()) return {};
  return forbidden("hostPort", containers_phrase(bad_containers) + " " +
                                   std::string(pluralize("uses", "use", bad_containers.size())) + " " +
                                   std::string(pluralize("hostPort", "hostPorts", host_ports.size())) + " " +
                                   join(host_ports, ", "));
}

CheckResult privileged_1_0(const PodView& pod) {
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (bool_at(security_context(container), "privileged").value_or(false))
      bad_containers.push_back(container_name(container));
  });
  if (bad_containers.empty()) return {};
  return forbidden("privileged", containers_phrase(bad_containers) + " must not set securityContext.privileged=true");
}

CheckResult proc_mount_1_0(const PodView& pod) {
  // relaxPolicyForUserNamespacePod is off: kube 1.32 keeps UserNamespacesPodSecurityStandards (alpha) off.
  std::vector<std::string> bad_containers;
  std::set<std::string> types;
  visit_containers(pod.spec, [&](const object& container) {
    const object* context = security_context(container);
    if (!has(context, "procMount")) return;
    const std::string_view type = string_at(context, "procMount");
    if (type != "Default") {
      bad_containers.push_back(container_name(container));
      types.emplace(type);
    }
  });
  if (bad_containers.empty()) return {};
  return forbidden("procMount", containers_phrase(bad_containers) + " must not set securityContext.procMount to " +
                                    join_quote(types));
}

template <std::size_t N>
CheckResult se_linux_options(const PodView& pod, const std::array<std::string_view, N>& allowed_types) {
  std::set<std::string> bad_types;
  bool set_user = false;
  bool set_role = false;
  auto valid = [&](const object* options) {
    bool ok = true;
    const std::string_view type = string_at(options, "type");
    if (std::ranges::find(allowed_types, type) == allowed_types.end()) {
      ok = false;
      bad_types.emplace(type);
    }
    if (!string_at(options, "user").empty()) {
      ok = false;
      set_user = true;
    }
    if (!string_at(options, "role").empty()) {
      ok = false;
      set_role = true;
    }
    return ok;
  };
  bool pod_bad = false;
  if (const object* options = object_at(pod_security_context(pod), "seLinuxOptions")) pod_bad = !valid(options);
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (const object* options = object_at(security_context(container), "seLinuxOptions"))
      if (!valid(options)) bad_containers.push_back(container_name(container));
  });
  const std::vector<std::string> bad_setters = setters(pod_bad, bad_containers);
  if (bad_setters.empty()) return {};
  std::vector<std::string> bad_data;
  if (!bad_types.empty())
    bad_data.push_back(std::string(pluralize("type", "types", bad_types.size())) + " " + join_quote(bad_types));
  if (set_user) bad_data.emplace_back("user may not be set");
  if (set_role) bad_data.emplace_back("role may not be set");
  return forbidden("seLinuxOptions", join(bad_setters, " and ") + " set forbidden securityContext.seLinuxOptions: " +
                                         join(bad_data, "; "));
}

CheckResult se_linux_options_1_0(const PodView& pod) {
  static constexpr std::array<std::string_view, 4> kTypes{"", "container_t", "container_init_t", "container_kvm_t"};
  return se_linux_options(pod, kTypes);
}

CheckResult se_linux_options_1_31(const PodView& pod) {
  static constexpr std::array<std::string_view, 5> kTypes{"", "container_t", "container_init_t", "container_kvm_t",
                                                          "container_engine_t"};
  return se_linux_options(pod, kTypes);
}

bool valid_seccomp_annotation(std::string_view value) {
  return value == "runtime/default" || value == "docker/default" || value.starts_with("localhost/");
}

CheckResult seccomp_profile_baseline_1_0(const PodView& pod) {
  std::set<std::string> forbidden_annotations;
  const object* all = annotations(pod);
  auto check = [&](const std::string& key) {
    const boost::json::value* value = all ? all->if_contains(key) : nullptr;
    if (!value) return;
    const std::string_view text = value->is_string() ? std::string_view(value->as_string()) : std::string_view();
    if (!valid_seccomp_annotation(text)) forbidden_annotations.insert(key + "=" + base::go_quote(text));
  };
  check("seccomp.security.alpha.kubernetes.io/pod");
  visit_containers(pod.spec, [&](const object& container) {
    check("container.seccomp.security.alpha.kubernetes.io/" + container_name(container));
  });
  if (forbidden_annotations.empty()) return {};
  return forbidden("seccompProfile", "forbidden " +
                                         std::string(pluralize("annotation", "annotations", forbidden_annotations.size())) +
                                         " " + join(forbidden_annotations, ", "));
}

CheckResult seccomp_profile_baseline_1_19(const PodView& pod) {
  std::set<std::string> bad_values;
  bool pod_bad = false;
  if (const object* profile = object_at(pod_security_context(pod), "seccompProfile")) {
    const std::string_view type = string_at(profile, "type");
    if (type != "Localhost" && type != "RuntimeDefault") {
      pod_bad = true;
      bad_values.emplace(type);
    }
  }
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (const object* profile = object_at(security_context(container), "seccompProfile")) {
      const std::string_view type = string_at(profile, "type");
      if (type != "Localhost" && type != "RuntimeDefault") {
        bad_containers.push_back(container_name(container));
        bad_values.emplace(type);
      }
    }
  });
  const std::vector<std::string> bad_setters = setters(pod_bad, bad_containers);
  if (bad_setters.empty()) return {};
  return forbidden("seccompProfile", join(bad_setters, " and ") + " must not set securityContext.seccompProfile.type to " +
                                         join_quote(bad_values));
}

template <std::size_t N>
CheckResult sysctls(const PodView& pod, const std::array<std::string_view, N>& allowed) {
  std::vector<std::string> forbidden_sysctls;
  if (const boost::json::array* all = array_at(pod_security_context(pod), "sysctls")) {
    for (const auto& sysctl : *all) {
      const std::string_view name = string_at(sysctl.if_object(), "name");
      if (std::ranges::find(allowed, name) == allowed.end()) forbidden_sysctls.emplace_back(name);
    }
  }
  if (forbidden_sysctls.empty()) return {};
  return forbidden("forbidden sysctls", join(forbidden_sysctls, ", "));
}

CheckResult sysctls_1_0(const PodView& pod) {
  static constexpr std::array<std::string_view, 5> kAllowed{
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start"};
  return sysctls(pod, kAllowed);
}

CheckResult sysctls_1_27(const PodView& pod) {
  static constexpr std::array<std::string_view, 6> kAllowed{
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_reserved_ports"};
  return sysctls(pod, kAllowed);
}

CheckResult sysctls_1_29(const PodView& pod) {
  static constexpr std::array<std::string_view, 10> kAllowed{
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time",
      "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"};
  return sysctls(pod, kAllowed);
}

CheckResult sysctls_1_32(const PodView& pod) {
  static constexpr std::array<std::string_view, 12> kAllowed{
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time",
      "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes",
      "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"};
  return sysctls(pod, kAllowed);
}

CheckResult windows_host_process_1_0(const PodView& pod) {
  auto host_process = [](const object* context) {
    return bool_at(object_at(context, "windowsOptions"), "hostProcess").value_or(false);
  };
  std::vector<std::string> bad_containers;
  visit_containers(pod.spec, [&](const object& container) {
    if (host_process(security_context(container))) bad_containers.push_back(container_name(container));
  });
  const std::vector<std::string> bad_setters = setters(host_process(pod_security_context(pod)), bad_containers);
  if (bad_setters.empty()) return {};
  return forbidden("hostProcess",
                   join(bad_setters, " and ") + " must not set securityContext.windowsOptions.hostProcess=true");
}

}  // namespace

std::vector<Check> baseline_checks() {
  const Version v1_0 = Version::numbered(1, 0);
  return {
      {"appArmorProfile", Level::Baseline, {{v1_0, app_armor_profile_1_0, {}}}},
      {"capabilities_baseline", Level::Baseline, {{v1_0, capabilities_baseline_1_0, {}}}},
      {"hostNamespaces", Level::Baseline, {{v1_0, host_namespaces_1_0, {}}}},
      {"hostPathVolumes", Level::Baseline, {{v1_0, host_path_volumes_1_0, {}}}},
      {"hostPorts", Level::Baseline, {{v1_0, host_ports_1_0, {}}}},
      {"privileged", Level::Baseline, {{v1_0, privileged_1_0, {}}}},
      {"procMount", Level::Baseline, {{v1_0, proc_mount_1_0, {}}}},
      {"seLinuxOptions", Level::Baseline,
       {{v1_0, se_linux_options_1_0, {}}, {Version::numbered(1, 31), se_linux_options_1_31, {}}}},
      {"seccompProfile_baseline", Level::Baseline,
       {{v1_0, seccomp_profile_baseline_1_0, {}}, {Version::numbered(1, 19), seccomp_profile_baseline_1_19, {}}}},
      {"sysctls", Level::Baseline,
       {{v1_0, sysctls_1_0, {}},
        {Version::numbered(1, 27), sysctls_1_27, {}},
        {Version::numbered(1, 29), sysctls_1_29, {}},
        {Version::numbered(1, 32), sysctls_1_32, {}}}},
      {"windowsHostProcess", Level::Baseline, {{v1_0, windows_host_process_1_0, {}}}},
  };
}

}  // namespace kapi::admission::podsecurity

// The Pod Security Standards checks, each version of each with pods that pass and pods that fail and kube's exact
// reason and detail (the cases of k8s.io/pod-security-admission/policy/check_*_test.go), and the choice of checks
// per level and version (registry.go: overrides, the version a check starts at, latest and future versions).
#include "server/plugin/admission/podsecurity/checks.h"
#include "server/plugin/admission/podsecurity/policy.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::admission::podsecurity::podsecurity_checks_test {
namespace {

namespace json = boost::json;

struct CheckCase {
  std::string check;     // check id
  Version version;       // the version whose function runs
  std::string pod;       // {"metadata": ..., "spec": ...}
  std::string reason;    // "" when allowed
  std::string detail;
};

void PrintTo(const CheckCase& c, std::ostream* out) { *out << c.check << "@" << c.version.str() << " " << c.pod; }

CheckResult run_check(const CheckCase& c, const json::object& pod) {
  std::vector<Check> all = baseline_checks();
  for (Check& check : restricted_checks()) all.push_back(std::move(check));
  for (const Check& check : all) {
    if (check.id != c.check) continue;
    const VersionedCheck* found = nullptr;
    for (const VersionedCheck& versioned : check.versions)
      if (!c.version.older_than(versioned.minimum)) found = &versioned;
    if (!found) throw std::runtime_error("no version of " + c.check + " at " + c.version.str());
    return found->check(PodView{json_view::object_at(&pod, "metadata"), json_view::object_at(&pod, "spec")});
  }
  throw std::runtime_error("no check " + c.check);
}

class PodSecurityCheckTest : public ::testing::TestWithParam<CheckCase> {};

TEST_P(PodSecurityCheckTest, GivesKubesReasonAndDetail) {
  const CheckCase& c = GetParam();
  const json::object pod = json::parse(c.pod).as_object();
  const CheckResult result = run_check(c, pod);
  EXPECT_EQ(result.allowed, c.reason.empty());
  EXPECT_EQ(result.reason, c.reason);
  EXPECT_EQ(result.detail, c.detail);
}

const Version v1_0 = Version::numbered(1, 0);
const Version v1_19 = Version::numbered(1, 19);
const Version v1_22 = Version::numbered(1, 22);
const Version v1_25 = Version::numbered(1, 25);
const Version v1_27 = Version::numbered(1, 27);
const Version v1_29 = Version::numbered(1, 29);
const Version v1_31 = Version::numbered(1, 31);
const Version v1_32 = Version::numbered(1, 32);

INSTANTIATE_TEST_SUITE_P(
    Baseline, PodSecurityCheckTest,
    ::testing::Values(
        // appArmorProfile
        CheckCase{"appArmorProfile", v1_0,
                  R"({"metadata":{"annotations":{"container.apparmor.security.beta.kubernetes.io/a":"runtime/default","env":"x"}},"spec":{}})",
                  "", ""},
        CheckCase{"appArmorProfile", v1_0,
                  R"({"spec":{"securityContext":{"appArmorProfile":{"type":"Localhost"}},"containers":[{"name":"c","securityContext":{"appArmorProfile":{"type":"RuntimeDefault"}}}]}})",
                  "", ""},
        CheckCase{"appArmorProfile", v1_0, R"({"spec":{"securityContext":{"appArmorProfile":{"type":"Unconfined"}}}})",
                  "forbidden AppArmor profile", R"(pod must not set AppArmor profile type to "Unconfined")"},
        CheckCase{"appArmorProfile", v1_0,
                  R"({"spec":{"initContainers":[{"name":"bar","securityContext":{"appArmorProfile":{"type":"Unconfined"}}}],"containers":[{"name":"foo"}]}})",
                  "forbidden AppArmor profile", R"(container "bar" must not set AppArmor profile type to "Unconfined")"},
        CheckCase{"appArmorProfile", v1_0,
                  R"({"metadata":{"annotations":{"container.apparmor.security.beta.kubernetes.io/":"bogus","container.apparmor.security.beta.kubernetes.io/a":"","container.apparmor.security.beta.kubernetes.io/b":"runtime/default","container.apparmor.security.beta.kubernetes.io/c":"localhost/","container.apparmor.security.beta.kubernetes.io/e":"unconfined","container.apparmor.security.beta.kubernetes.io/f":"unknown"}}})",
                  "forbidden AppArmor profiles",
                  R"(annotations must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/="bogus"", "container.apparmor.security.beta.kubernetes.io/e="unconfined"", "container.apparmor.security.beta.kubernetes.io/f="unknown"")"},
        // capabilities_baseline
        CheckCase{"capabilities_baseline", v1_0,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"capabilities":{"add":["CHOWN","KILL","NET_BIND_SERVICE"]}}}]}})",
                  "", ""},
        CheckCase{"capabilities_baseline", v1_0,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"capabilities":{"add":["FOO","BAR"]}}},{"name":"b","securityContext":{"capabilities":{"add":["BAR","BAZ"]}}},{"name":"c","securityContext":{"capabilities":{"add":["CHOWN"]}}}]}})",
                  "non-default capabilities",
                  R"(containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add)"},
        // hostNamespaces
        CheckCase{"hostNamespaces", v1_0, R"({"spec":{"hostNetwork":false}})", "", ""},
        CheckCase{"hostNamespaces", v1_0, R"({"spec":{"hostIPC":true,"hostNetwork":true,"hostPID":true}})",
                  "host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"},
        CheckCase{"hostNamespaces", v1_0, R"({"spec":{"hostPID":true}})", "host namespaces", "hostPID=true"},
        // hostPathVolumes
        CheckCase{"hostPathVolumes", v1_0, R"({"spec":{"volumes":[{"name":"a","emptyDir":{}}]}})", "", ""},
        CheckCase{"hostPathVolumes", v1_0,
                  R"({"spec":{"volumes":[{"name":"a","hostPath":{"path":"/"}},{"name":"b"},{"name":"c","hostPath":{"path":"/x"}}]}})",
                  "hostPath volumes", R"(volumes "a", "c")"},
        CheckCase{"hostPathVolumes", v1_0, R"({"spec":{"volumes":[{"name":"a","hostPath":{"path":"/"}}]}})",
                  "hostPath volumes", R"(volume "a")"},
        // hostPorts
        CheckCase{"hostPorts", v1_0, R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})", "", ""},
        CheckCase{"hostPorts", v1_0,
                  R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":10},{"hostPort":20}]},{"name":"b","ports":[{"hostPort":0},{"hostPort":30}]}]}})",
                  "hostPort", R"(containers "a", "b" use hostPorts 10, 20, 30)"},
        CheckCase{"hostPorts", v1_0, R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":8080}]}]}})",
                  "hostPort", R"(container "a" uses hostPort 8080)"},
        // privileged
        CheckCase{"privileged", v1_0,
                  R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"privileged":false}}]}})", "", ""},
        CheckCase{"privileged", v1_0,
                  R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"privileged":true}},{"name":"c","securityContext":{"privileged":true}}]}})",
                  "privileged", R"(containers "b", "c" must not set securityContext.privileged=true)"},
        // procMount
        CheckCase{"procMount", v1_0, R"({"spec":{"containers":[{"name":"a","securityContext":{"procMount":"Default"}}]}})",
                  "", ""},
        CheckCase{"procMount", v1_0,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"procMount":"Unmasked"}},{"name":"b","securityContext":{"procMount":"other"}}]}})",
                  "procMount", R"(containers "a", "b" must not set securityContext.procMount to "Unmasked", "other")"},
        // seLinuxOptions
        CheckCase{"seLinuxOptions", v1_0,
                  R"({"spec":{"securityContext":{"seLinuxOptions":{"type":"container_t","level":"s0"}}}})", "", ""},
        CheckCase{"seLinuxOptions", v1_0,
                  R"({"spec":{"securityContext":{"seLinuxOptions":{"type":"foo","user":"bar"}},"containers":[{"name":"a","securityContext":{"seLinuxOptions":{"type":"container_engine_t","role":"baz"}}},{"name":"b","securityContext":{"seLinuxOptions":{"type":"container_init_t"}}}]}})",
                  "seLinuxOptions",
                  R"(pod and container "a" set forbidden securityContext.seLinuxOptions: types "container_engine_t", "foo"; user may not be set; role may not be set)"},
        CheckCase{"seLinuxOptions", v1_31,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"seLinuxOptions":{"type":"container_engine_t"}}}]}})",
                  "", ""},
        CheckCase{"seLinuxOptions", v1_31,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"seLinuxOptions":{"type":"spc_t"}}}]}})",
                  "seLinuxOptions", R"(container "a" set forbidden securityContext.seLinuxOptions: type "spc_t")"},
        // seccompProfile_baseline
        CheckCase{"seccompProfile_baseline", v1_0,
                  R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"runtime/default","container.seccomp.security.alpha.kubernetes.io/a":"docker/default"}},"spec":{"containers":[{"name":"a"}]}})",
                  "", ""},
        CheckCase{"seccompProfile_baseline", v1_0,
                  R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"unconfined","container.seccomp.security.alpha.kubernetes.io/a":"localhost/x","container.seccomp.security.alpha.kubernetes.io/b":"bogus","container.seccomp.security.alpha.kubernetes.io/z":"bogus"}},"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                  "seccompProfile",
                  R"(forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="bogus", seccomp.security.alpha.kubernetes.io/pod="unconfined")"},
        CheckCase{"seccompProfile_baseline", v1_19,
                  R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"unconfined"}},"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}}})",
                  "", ""},
        CheckCase{"seccompProfile_baseline", v1_19,
                  R"({"spec":{"securityContext":{"seccompProfile":{"type":"Unconfined"}},"containers":[{"name":"a","securityContext":{"seccompProfile":{"type":"Unconfined"}}},{"name":"b","securityContext":{"seccompProfile":{"type":"Localhost"}}},{"name":"c","securityContext":{"seccompProfile":{"type":"Bogus"}}}]}})",
                  "seccompProfile",
                  R"(pod and containers "a", "c" must not set securityContext.seccompProfile.type to "Bogus", "Unconfined")"},
        // sysctls
        CheckCase{"sysctls", v1_0, R"({"spec":{"securityContext":{"sysctls":[{"name":"kernel.shm_rmid_forced","value":"0"}]}}})",
                  "", ""},
        CheckCase{"sysctls", v1_0, R"({"spec":{"securityContext":{"sysctls":[{"name":"a"},{"name":"b"}]}}})",
                  "forbidden sysctls", "a, b"},
        CheckCase{"sysctls", v1_0, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.ip_local_reserved_ports"}]}}})",
                  "forbidden sysctls", "net.ipv4.ip_local_reserved_ports"},
        CheckCase{"sysctls", v1_27, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.ip_local_reserved_ports"}]}}})",
                  "", ""},
        CheckCase{"sysctls", v1_27, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_keepalive_time"}]}}})",
                  "forbidden sysctls", "net.ipv4.tcp_keepalive_time"},
        CheckCase{"sysctls", v1_29, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_keepalive_probes"}]}}})",
                  "", ""},
        CheckCase{"sysctls", v1_29, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_rmem"}]}}})",
                  "forbidden sysctls", "net.ipv4.tcp_rmem"},
        CheckCase{"sysctls", v1_32, R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_wmem"},{"name":"net.ipv4.tcp_rmem"}]}}})",
                  "", ""},
        // windowsHostProcess
        CheckCase{"windowsHostProcess", v1_0,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"windowsOptions":{"hostProcess":false}}}]}})", "", ""},
        CheckCase{"windowsHostProcess", v1_0,
                  R"({"spec":{"securityContext":{"windowsOptions":{"hostProcess":true}},"containers":[{"name":"a"},{"name":"b","securityContext":{}},{"name":"c","securityContext":{"windowsOptions":{}}},{"name":"d","securityContext":{"windowsOptions":{"hostProcess":false}}},{"name":"e","securityContext":{"windowsOptions":{"hostProcess":true}}},{"name":"f","securityContext":{"windowsOptions":{"hostProcess":true}}}]}})",
                  "hostProcess", R"(pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true)"}));

INSTANTIATE_TEST_SUITE_P(
    Restricted, PodSecurityCheckTest,
    ::testing::Values(
        // allowPrivilegeEscalation
        CheckCase{"allowPrivilegeEscalation", Version::numbered(1, 8),
                  R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{}},{"name":"c","securityContext":{"allowPrivilegeEscalation":true}},{"name":"d","securityContext":{"allowPrivilegeEscalation":false}}]}})",
                  "allowPrivilegeEscalation != false",
                  R"(containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false)"},
        CheckCase{"allowPrivilegeEscalation", Version::numbered(1, 8),
                  R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})", "allowPrivilegeEscalation != false",
                  R"(container "a" must set securityContext.allowPrivilegeEscalation=false)"},
        CheckCase{"allowPrivilegeEscalation", v1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})", "", ""},
        CheckCase{"allowPrivilegeEscalation", v1_25, R"({"spec":{"os":{"name":"linux"},"containers":[{"name":"a"}]}})",
                  "allowPrivilegeEscalation != false",
                  R"(container "a" must set securityContext.allowPrivilegeEscalation=false)"},
        // capabilities_restricted
        CheckCase{"capabilities_restricted", v1_22,
                  R"({"spec":{"containers":[{"name":"a","securityContext":{"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]}}}]}})",
                  "", ""},
        CheckCase{"capabilities_restricted", v1_22,
                  R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"capabilities":{}}},{"name":"c","securityContext":{"capabilities":{"drop":["ALL"],"add":["FOO","BAR"]}}},{"name":"d","securityContext":{"capabilities":{"drop":["KILL"],"add":["BAZ"]}}}]}})",
                  "unrestricted capabilities",
                  R"(containers "a", "b", "d" must set securityContext.capabilities.drop=["ALL"]; containers "c", "d" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add)"},
        CheckCase{"capabilities_restricted", v1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})", "", ""},
        // restrictedVolumes
        CheckCase{"restrictedVolumes", v1_0,
                  R"({"spec":{"volumes":[{"name":"a","configMap":{}},{"name":"b","csi":{}},{"name":"c","downwardAPI":{}},{"name":"d","emptyDir":{}},{"name":"e","ephemeral":{}},{"name":"f","persistentVolumeClaim":{}},{"name":"g","projected":{}},{"name":"h","secret":{}}]}})",
                  "", ""},
        CheckCase{"restrictedVolumes", v1_0,
                  R"({"spec":{"volumes":[{"name":"a","hostPath":{}},{"name":"b","hostPath":{}},{"name":"c","nfs":{}},{"name":"d","gitRepo":{}},{"name":"e"},{"name":"f","emptyDir":{}}]}})",
                  "restricted volume types",
                  R"(volumes "a", "b", "c", "d", "e" use restricted volume types "gitRepo", "hostPath", "nfs", "unknown")"},
        CheckCase{"restrictedVolumes", v1_0, R"({"spec":{"volumes":[{"name":"a","storageos":{}}]}})",
                  "restricted volume types", R"(volume "a" uses restricted volume type "storageos")"},
        // runAsNonRoot
        CheckCase{"runAsNonRoot", v1_0,
                  R"({"spec":{"securityContext":{"runAsNonRoot":true},"containers":[{"name":"a"},{"name":"b","securityContext":{"runAsNonRoot":true}}]}})",
                  "", ""},
        CheckCase{"runAsNonRoot", v1_0, R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"runAsNonRoot":true}}]}})",
                  "runAsNonRoot != true", R"(pod or container "a" must set securityContext.runAsNonRoot=true)"},
        CheckCase{"runAsNonRoot", v1_0,
                  R"({"spec":{"securityContext":{"runAsNonRoot":false},"containers":[{"name":"a"},{"name":"b","securityContext":{"runAsNonRoot":false}},{"name":"c","securityContext":{"runAsNonRoot":false}}]}})",
                  "runAsNonRoot != true", R"(pod and containers "b", "c" must not set securityContext.runAsNonRoot=false)"},
        // runAsUser
        CheckCase{"runAsUser", Version::numbered(1, 23),
                  R"({"spec":{"securityContext":{"runAsUser":1000},"containers":[{"name":"a","securityContext":{"runAsUser":1}}]}})",
                  "", ""},
        CheckCase{"runAsUser", Version::numbered(1, 23),
                  R"({"spec":{"securityContext":{"runAsUser":0},"containers":[{"name":"a","securityContext":{"runAsUser":0}},{"name":"b","securityContext":{"runAsUser":1}},{"name":"c","securityContext":{"runAsUser":0}}]}})",
                  "runAsUser=0", R"(pod and containers "a", "c" must not set runAsUser=0)"},
        // seccompProfile_restricted
        CheckCase{"seccompProfile_restricted", v1_19,
                  R"({"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"a"}]}})", "", ""},
        CheckCase{"seccompProfile_restricted", v1_19, R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"seccompProfile":{"type":"Localhost"}}},{"name":"c"}]}})",
                  "seccompProfile",
                  R"(pod or containers "a", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"},
        CheckCase{"seccompProfile_restricted", v1_19,
                  R"({"spec":{"securityContext":{"seccompProfile":{"type":"Unconfined"}},"containers":[{"name":"a","securityContext":{"seccompProfile":{"type":"Unconfined"}}},{"name":"b"}]}})",
                  "seccompProfile", R"(pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")"},
        CheckCase{"seccompProfile_restricted", v1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})", "", ""}));

// A pod that every level at every version allows.
constexpr std::string_view kCompliantPod =
    R"({"metadata":{"name":"p"},"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},)"
    R"("containers":[{"name":"c","image":"i","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";

AggregateCheckResult evaluate_json(const LevelVersion& level_version, std::string_view pod_json) {
  const json::object pod = json::parse(pod_json).as_object();
  return evaluate(level_version, PodView{json_view::object_at(&pod, "metadata"), json_view::object_at(&pod, "spec")});
}

TEST(PodSecurityPolicyTest, ACompliantPodPassesEveryLevelAtEveryVersion) {
  for (Level level : {Level::Privileged, Level::Baseline, Level::Restricted}) {
    for (int minor = 0; minor <= 40; ++minor)
      EXPECT_TRUE(evaluate_json({level, Version::numbered(1, minor)}, kCompliantPod).allowed) << minor;
    EXPECT_TRUE(evaluate_json({level, Version::newest()}, kCompliantPod).allowed);
  }
}

TEST(PodSecurityPolicyTest, RestrictedAggregatesBaselineChecksFirstThenRestrictedOnesInKubesWording) {
  const AggregateCheckResult result = evaluate_json(
      {Level::Restricted, Version::newest()},
      R"({"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}})");
  EXPECT_FALSE(result.allowed);
  EXPECT_EQ(result.forbidden_detail(),
            R"(host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true), )"
            R"(allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), )"
            R"(unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), )"
            R"(runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), )"
            R"(seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))");
  EXPECT_EQ(result.forbidden_reason(),
            "host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, "
            "runAsNonRoot != true, seccompProfile");
}

TEST(PodSecurityPolicyTest, BaselineAllowsWhatOnlyRestrictedForbids) {
  const std::string_view pod = R"({"spec":{"containers":[{"name":"c","image":"i"}]}})";
  EXPECT_TRUE(evaluate_json({Level::Baseline, Version::newest()}, pod).allowed);
  EXPECT_FALSE(evaluate_json({Level::Restricted, Version::newest()}, pod).allowed);
  EXPECT_TRUE(evaluate_json({Level::Privileged, Version::newest()}, R"({"spec":{"hostPID":true}})").allowed);
}

TEST(PodSecurityPolicyTest, RestrictedChecksReplaceTheirBaselineCounterpartsFromTheirVersionOn) {
  // hostPath: restrictedVolumes replaces hostPathVolumes at every version.
  const std::string_view host_path =
      R"({"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},"volumes":[{"name":"v","hostPath":{"path":"/"}}],)"
      R"("containers":[{"name":"c","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";
  EXPECT_EQ(evaluate_json({Level::Restricted, Version::newest()}, host_path).forbidden_detail(),
            R"(restricted volume types (volume "v" uses restricted volume type "hostPath"))");
  EXPECT_EQ(evaluate_json({Level::Baseline, Version::newest()}, host_path).forbidden_detail(),
            R"(hostPath volumes (volume "v"))");
  // Before 1.22 restricted holds capabilities to baseline's list, and before 1.19 seccomp to the annotations;
  // allowPrivilegeEscalation starts at 1.8 and runAsUser at 1.23.
  const std::string_view capabilities =
      R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"unconfined"}},"spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":0},)"
      R"("containers":[{"name":"c","securityContext":{"capabilities":{"add":["SYS_ADMIN"]}}}]}})";
  EXPECT_EQ(evaluate_json({Level::Restricted, Version::numbered(1, 7)}, capabilities).forbidden_detail(),
            R"(non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add), )"
            R"(seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"))");
  EXPECT_EQ(evaluate_json({Level::Restricted, Version::numbered(1, 21)}, capabilities).forbidden_reason(),
            "non-default capabilities, allowPrivilegeEscalation != false, seccompProfile");
  EXPECT_EQ(evaluate_json({Level::Restricted, Version::numbered(1, 22)}, capabilities).forbidden_reason(),
            "allowPrivilegeEscalation != false, unrestricted capabilities, seccompProfile");
  EXPECT_EQ(evaluate_json({Level::Restricted, Version::numbered(1, 23)}, capabilities).forbidden_reason(),
            "allowPrivilegeEscalation != false, unrestricted capabilities, runAsUser=0, seccompProfile");
}

TEST(PodSecurityPolicyTest, LatestAndFutureVersionsEvaluateAsTheNewestCheckVersion) {
  EXPECT_EQ(newest_check_version(), Version::numbered(1, 32));
  const std::string_view pod = R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_rmem"}]}}})";
  EXPECT_FALSE(evaluate_json({Level::Baseline, Version::numbered(1, 31)}, pod).allowed);
  EXPECT_TRUE(evaluate_json({Level::Baseline, Version::numbered(1, 32)}, pod).allowed);
  EXPECT_TRUE(evaluate_json({Level::Baseline, Version::numbered(1, 99)}, pod).allowed);
  EXPECT_TRUE(evaluate_json({Level::Baseline, Version::newest()}, pod).allowed);
}

}  // namespace
}  // namespace kapi::admission::podsecurity::podsecurity_checks_test

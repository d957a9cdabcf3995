// PodSecurity admission: namespace labels to a policy (api.PolicyToEvaluate), the plugin's configuration, and the
// plugin through its interface as kube's admission_test.go drives it: enforce refuses pods with kube's 403, warn
// and audit report, templates are never refused, exemptions, updates kube skips, namespace label checks and the
// dry run of existing pods.
#include "server/apierrors/errors.h"
#include "server/metrics/registry.h"
#include "server/plugin/admission/podsecurity/admission.h"
#include "server/plugin/admission/podsecurity/configuration.h"
#include "server/plugin/admission/podsecurity/policy.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>
#include <boost/json.hpp>

#include <map>

namespace kapi::admission {
std::unique_ptr<Plugin> make_pod_security(const PluginContext& context);
}

namespace kapi::admission::podsecurity::podsecurity_admission_test {
namespace {

namespace json = boost::json;

template <typename Awaitable>
void run(Awaitable awaitable) {
  asio::io_context io;
  auto done = asio::co_spawn(io, std::move(awaitable), asio::use_future);
  io.run();
  done.get();
}

json::object labels(std::initializer_list<std::pair<std::string, std::string>> entries) {
  json::object object;
  for (const auto& [key, value] : entries) object[key] = value;
  return object;
}

// ---- labels to policy ----

TEST(PodSecurityLabelsTest, UnlabelledNamespacesGetTheDefaults) {
  const Policy defaults{{Level::Baseline, Version::numbered(1, 20)}, {}, {}};
  const PolicyEvaluation result = policy_to_evaluate(nullptr, defaults);
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(result.policy.enforce.str(), "baseline:v1.20");
  EXPECT_EQ(result.policy.warn.str(), "privileged:latest");
}

TEST(PodSecurityLabelsTest, WarnFollowsAStricterEnforceLevelUnlessLabelledItself) {
  json::object only_enforce = labels({{"pod-security.kubernetes.io/enforce", "restricted"},
                                      {"pod-security.kubernetes.io/enforce-version", "v1.25"}});
  Policy policy = policy_to_evaluate(&only_enforce, Policy{}).policy;
  EXPECT_EQ(policy.enforce.str(), "restricted:v1.25");
  EXPECT_EQ(policy.warn.str(), "restricted:v1.25");
  EXPECT_EQ(policy.audit.str(), "privileged:latest");

  json::object warn_version = labels({{"pod-security.kubernetes.io/enforce", "baseline"},
                                      {"pod-security.kubernetes.io/warn-version", "v1.10"}});
  policy = policy_to_evaluate(&warn_version, Policy{}).policy;
  EXPECT_EQ(policy.warn.str(), "baseline:v1.10");

  json::object warn_level = labels({{"pod-security.kubernetes.io/enforce", "restricted"},
                                    {"pod-security.kubernetes.io/warn", "privileged"}});
  policy = policy_to_evaluate(&warn_level, Policy{}).policy;
  EXPECT_EQ(policy.warn.str(), "privileged:latest");
}

TEST(PodSecurityLabelsTest, InvalidValuesFailClosedForEnforceAndOpenForAuditAndWarn) {
  json::object invalid = labels({{"pod-security.kubernetes.io/enforce", "foo"},
                                 {"pod-security.kubernetes.io/enforce-version", "1.2"},
                                 {"pod-security.kubernetes.io/audit", "bar"},
                                 {"pod-security.kubernetes.io/warn-version", "v1.01"}});
  const PolicyEvaluation result = policy_to_evaluate(&invalid, Policy{});
  EXPECT_EQ(result.policy.enforce.str(), "restricted:latest");
  EXPECT_EQ(result.policy.audit.str(), "privileged:latest");
  // An invalid enforce level does not raise warn.
  EXPECT_EQ(result.policy.warn.str(), "privileged:latest");
  EXPECT_EQ(aggregate_text(result.errors),
            "[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"foo\": must be one of privileged, "
            "baseline, restricted, metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "
            "\"1.2\": must be \"latest\" or \"v1.x\", metadata.labels[pod-security.kubernetes.io/audit]: Invalid "
            "value: \"bar\": must be one of privileged, baseline, restricted, "
            "metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"v1.01\": must be \"latest\" "
            "or \"v1.x\"]");
}

TEST(PodSecurityLabelsTest, VersionsParseAsKubeParsesThem) {
  EXPECT_EQ(parse_version("v1.0"), Version::numbered(1, 0));
  EXPECT_EQ(parse_version("v1.32"), Version::numbered(1, 32));
  EXPECT_EQ(parse_version("latest"), Version::newest());
  for (std::string_view bad : {"v1", "v1.", "v2.0", "1.0", "v1.01", "v1.-1", "Latest", "v1.x", ""})
    EXPECT_FALSE(parse_version(bad)) << bad;
  EXPECT_TRUE(Version::numbered(1, 9).older_than(Version::numbered(1, 10)));
  EXPECT_TRUE(Version::numbered(1, 99).older_than(Version::newest()));
  EXPECT_FALSE(Version::newest().older_than(Version::numbered(1, 99)));
}

// ---- configuration ----

TEST(PodSecurityConfigurationTest, NoConfigurationIsPrivilegedLatestEverywhereWithoutExemptions) {
  const Configuration configuration = load_configuration(nullptr);
  EXPECT_TRUE(configuration.defaults.fully_privileged());
  EXPECT_EQ(configuration.defaults.enforce.str(), "privileged:latest");
  EXPECT_TRUE(configuration.exempt_namespaces.empty());
}

TEST(PodSecurityConfigurationTest, ReadsV1AndV1beta1WithDefaultsForWhatIsLeftOut) {
  for (std::string version : {"v1", "v1beta1"}) {
    const json::value given = json::parse(R"({"apiVersion":"pod-security.admission.config.k8s.io/)" + version +
                                          R"(","kind":"PodSecurityConfiguration","defaults":{"enforce":"baseline","warn":"restricted","warn-version":"v1.30"},)"
                                          R"("exemptions":{"usernames":["admin"],"namespaces":["kube-system"],"runtimeClasses":["kata"]}})");
    const Configuration configuration = load_configuration(&given);
    EXPECT_EQ(configuration.defaults.enforce.str(), "baseline:latest");
    EXPECT_EQ(configuration.defaults.audit.str(), "privileged:latest");
    EXPECT_EQ(configuration.defaults.warn.str(), "restricted:v1.30");
    EXPECT_EQ(configuration.exempt_usernames, std::vector<std::string>{"admin"});
    EXPECT_EQ(configuration.exempt_namespaces, std::vector<std::string>{"kube-system"});
    EXPECT_EQ(configuration.exempt_runtime_classes, std::vector<std::string>{"kata"});
  }
}

std::string load_error(std::string_view text) {
  const json::value given = json::parse(text);
  try {
    load_configuration(&given);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(PodSecurityConfigurationTest, RefusesInvalidConfigurationsWithKubesWording) {
  EXPECT_EQ(load_error(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","defaults":{"enforce":"strict"}})"),
            "PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted");
  EXPECT_EQ(load_error(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","defaults":{"audit-version":"1","warn":"x"}})"),
            "PodSecurity configuration error: [audit-version: must be \"latest\" or \"v1.x\", warn: must be one of "
            "privileged, baseline, restricted]");
  EXPECT_EQ(load_error(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","exemptions":{"namespaces":["ok","Bad_NS","ok"],"usernames":[""]}})"),
            "PodSecurity invalid: [exemptions.namespaces[1]: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label "
            "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
            "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?'), exemptions.namespaces[2]: Duplicate value: \"ok\", "
            "exemptions.usernames[0]: Invalid value: \"\": username must not be empty]");
  EXPECT_EQ(load_error(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","bogus":1})"),
            "strict decoding error: unknown field \"bogus\"");
  EXPECT_NE(load_error(R"({"apiVersion":"pod-security.admission.config.k8s.io/v2","kind":"PodSecurityConfiguration"})"), "");
}

// ---- the plugin ----

constexpr std::string_view kRestrictedPod =
    R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},)"
    R"("containers":[{"name":"c","image":"i","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";
constexpr std::string_view kPrivilegedPod =
    R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}})";
constexpr std::string_view kPrivilegedDetail =
    R"(privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false )"
    R"((container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container )"
    R"("c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set )"
    R"(securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set )"
    R"(securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";

struct Fixture {
  std::map<std::string, json::object> namespaces;
  std::map<std::string, std::vector<json::object>> pods;
  request::RequestContext context;
  request::UserInfo user{"alice", "", {}, {}};
  metrics::Registry registry;
  std::unique_ptr<Plugin> plugin;

  explicit Fixture(Configuration configuration = load_configuration(nullptr), Limits limits = {}) {
    plugin = make_plugin(
        std::move(configuration),
        [this](std::string name) -> asio::awaitable<json::object> {
          auto found = namespaces.find(name);
          if (found == namespaces.end()) throw apierrors::ApiError(apierrors::not_found("", "namespaces", name));
          co_return found->second;
        },
        [this](std::string namespace_) -> asio::awaitable<std::vector<json::object>> { co_return pods[namespace_]; },
        limits, &registry);
  }

  void add_namespace(const std::string& name, json::object namespace_labels) {
    namespaces[name] = json::object{{"metadata", json::object{{"name", name}, {"labels", std::move(namespace_labels)}}}};
  }

  Attributes attributes(std::string group, std::string resource, std::string kind, json::object& object,
                        Operation operation = Operation::Create) {
    Attributes result;
    result.operation = operation;
    result.kind = {group, "v1", std::move(kind)};
    result.resource = {std::move(group), "v1", std::move(resource)};
    result.namespace_ = "ns";
    result.name = std::string(object["metadata"].as_object()["name"].as_string());
    result.object = &object;
    result.user = &user;
    result.context = &context;
    return result;
  }

  // The refusal's Status, or nullopt when admitted.
  std::optional<apierrors::Status> validate(const Attributes& attributes) {
    if (!plugin->handles(attributes)) return std::nullopt;
    try {
      run(plugin->validate(attributes));
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    return std::nullopt;
  }
};

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(PodSecurityAdmissionTest, EnforceRefusesAViolatingPodWithKubesForbiddenAndAdmitsACompliantOne) {
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "restricted"}}));
  json::object pod = parse(kPrivilegedPod);
  const std::optional<apierrors::Status> refused = fixture.validate(fixture.attributes("", "pods", "Pod", pod));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->reason, "Forbidden");
  EXPECT_EQ(refused->message, "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\": " +
                                  std::string(kPrivilegedDetail));
  EXPECT_TRUE(fixture.context.warnings.empty());  // a refused request gets no warnings
  EXPECT_EQ(fixture.context.audit_annotations["pod-security.kubernetes.io/enforce-policy"], "restricted:latest");

  Fixture compliant;
  compliant.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "restricted"}}));
  json::object good = parse(kRestrictedPod);
  EXPECT_FALSE(compliant.validate(compliant.attributes("", "pods", "Pod", good)));
  EXPECT_TRUE(compliant.context.warnings.empty());
  EXPECT_EQ(compliant.context.audit_annotations,
            (std::map<std::string, std::string>{{"pod-security.kubernetes.io/enforce-policy", "restricted:latest"}}));
}

TEST(PodSecurityAdmissionTest, WarnAndAuditReportWithoutRefusing) {
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/warn", "baseline"},
                                      {"pod-security.kubernetes.io/warn-version", "v1.30"},
                                      {"pod-security.kubernetes.io/audit", "baseline"}}));
  json::object pod = parse(kPrivilegedPod);
  EXPECT_FALSE(fixture.validate(fixture.attributes("", "pods", "Pod", pod)));
  EXPECT_EQ(fixture.context.warnings,
            std::vector<std::string>{"would violate PodSecurity \"baseline:v1.30\": privileged (container \"c\" must "
                                     "not set securityContext.privileged=true)"});
  EXPECT_EQ(fixture.context.audit_annotations,
            (std::map<std::string, std::string>{
                {"pod-security.kubernetes.io/audit-violations",
                 "would violate PodSecurity \"baseline:latest\": privileged (container \"c\" must not set "
                 "securityContext.privileged=true)"},
                {"pod-security.kubernetes.io/enforce-policy", "privileged:latest"}}));
}

TEST(PodSecurityAdmissionTest, PrivilegedNamespacesOnlyRecordTheEnforcedPolicy) {
  Fixture fixture;
  fixture.add_namespace("ns", {});
  json::object pod = parse(kPrivilegedPod);
  EXPECT_FALSE(fixture.validate(fixture.attributes("", "pods", "Pod", pod)));
  EXPECT_TRUE(fixture.context.warnings.empty());
  EXPECT_EQ(fixture.context.audit_annotations,
            (std::map<std::string, std::string>{{"pod-security.kubernetes.io/enforce-policy", "privileged:latest"}}));
}

TEST(PodSecurityAdmissionTest, PodTemplatesAreWarnedAboutButNeverRefused) {
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "restricted"}}));
  json::object deployment = parse(R"({"metadata":{"name":"d"},"spec":{"template":{"metadata":{},"spec":)"
                                  R"({"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}}}})");
  EXPECT_FALSE(fixture.validate(fixture.attributes("apps", "deployments", "Deployment", deployment)));
  EXPECT_EQ(fixture.context.warnings,
            std::vector<std::string>{"would violate PodSecurity \"restricted:latest\": " + std::string(kPrivilegedDetail)});
  EXPECT_FALSE(fixture.context.audit_annotations.contains("pod-security.kubernetes.io/enforce-policy"));

  Fixture cron;
  cron.add_namespace("ns", labels({{"pod-security.kubernetes.io/warn", "baseline"}}));
  json::object cronjob = parse(R"({"metadata":{"name":"cj"},"spec":{"jobTemplate":{"spec":{"template":{"spec":)"
                               R"({"hostPID":true,"containers":[{"name":"c","image":"i"}]}}}}}})");
  EXPECT_FALSE(cron.validate(cron.attributes("batch", "cronjobs", "CronJob", cronjob)));
  EXPECT_EQ(cron.context.warnings,
            std::vector<std::string>{"would violate PodSecurity \"baseline:latest\": host namespaces (hostPID=true)"});

  // A replication controller without a template has nothing to check; subresources are not evaluated.
  Fixture rc;
  rc.add_namespace("ns", labels({{"pod-security.kubernetes.io/warn", "restricted"}}));
  json::object controller = parse(R"({"metadata":{"name":"rc"},"spec":{}})");
  EXPECT_FALSE(rc.validate(rc.attributes("", "replicationcontrollers", "ReplicationController", controller)));
  EXPECT_TRUE(rc.context.warnings.empty());
  Attributes scale = rc.attributes("apps", "deployments", "Scale", deployment, Operation::Update);
  scale.subresource = "scale";
  EXPECT_FALSE(rc.plugin->handles(scale));
}

TEST(PodSecurityAdmissionTest, ExemptionsSkipEvaluationAndSaySo) {
  const json::value given = json::parse(
      R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration",)"
      R"("defaults":{"enforce":"restricted"},"exemptions":{"usernames":["admin"],"namespaces":["exempt"],"runtimeClasses":["kata"]}})");
  Fixture fixture(load_configuration(&given));
  fixture.add_namespace("ns", {});  // the default: restricted
  json::object pod = parse(kPrivilegedPod);
  ASSERT_TRUE(fixture.validate(fixture.attributes("", "pods", "Pod", pod)));

  Fixture by_user(load_configuration(&given));
  by_user.add_namespace("ns", {});
  by_user.user.name = "admin";
  EXPECT_FALSE(by_user.validate(by_user.attributes("", "pods", "Pod", pod)));
  EXPECT_EQ(by_user.context.audit_annotations["pod-security.kubernetes.io/exempt"], "user");

  Fixture by_namespace(load_configuration(&given));
  Attributes in_exempt = by_namespace.attributes("", "pods", "Pod", pod);
  in_exempt.namespace_ = "exempt";  // never looked up
  EXPECT_FALSE(by_namespace.validate(in_exempt));
  EXPECT_EQ(by_namespace.context.audit_annotations["pod-security.kubernetes.io/exempt"], "namespace");

  Fixture by_runtime_class(load_configuration(&given));
  by_runtime_class.add_namespace("ns", {});
  json::object kata = parse(kPrivilegedPod);
  kata["spec"].as_object()["runtimeClassName"] = "kata";
  EXPECT_FALSE(by_runtime_class.validate(by_runtime_class.attributes("", "pods", "Pod", kata)));
  EXPECT_EQ(by_runtime_class.context.audit_annotations["pod-security.kubernetes.io/exempt"], "runtimeClass");
}

// metrics/metrics.go: enforce counts both decisions, audit and warn only violations, versions newer than the
// release are "future"; exemptions and errors have counters of their own.
TEST(PodSecurityAdmissionTest, CountsEvaluationsExemptionsAndErrorsAsKubesMetrics) {
  using ::testing::HasSubstr;
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "baseline"},
                                      {"pod-security.kubernetes.io/enforce-version", "v1.30"},
                                      {"pod-security.kubernetes.io/audit", "restricted"},
                                      {"pod-security.kubernetes.io/audit-version", "v1.99"},
                                      {"pod-security.kubernetes.io/warn", "restricted"}}));
  json::object privileged = parse(kPrivilegedPod);
  ASSERT_TRUE(fixture.validate(fixture.attributes("", "pods", "Pod", privileged)));
  json::object restricted = parse(kRestrictedPod);
  EXPECT_FALSE(fixture.validate(fixture.attributes("", "pods", "Pod", restricted)));
  json::object deployment = parse(R"({"metadata":{"name":"d"},"spec":{"template":{"metadata":{},"spec":)"
                                  R"({"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}}}})");
  EXPECT_FALSE(fixture.validate(fixture.attributes("apps", "deployments", "Deployment", deployment, Operation::Update)));
  fixture.add_namespace("bad", labels({{"pod-security.kubernetes.io/enforce", "bogus"}}));
  Attributes in_bad = fixture.attributes("", "pods", "Pod", restricted);
  in_bad.namespace_ = "bad";
  EXPECT_FALSE(fixture.validate(in_bad));
  Attributes in_missing = fixture.attributes("", "pods", "Pod", restricted);
  in_missing.namespace_ = "missing";
  EXPECT_TRUE(fixture.validate(in_missing));

  const std::string text = fixture.registry.render();
  auto evaluations = [](std::string_view labels) {
    return "pod_security_evaluations_total{" + std::string(labels) + "} ";
  };
  EXPECT_THAT(text, HasSubstr(evaluations(R"(decision="deny",mode="enforce",policy_level="baseline",)"
                                          R"(policy_version="v1.30",request_operation="create",resource="pod",)"
                                          R"(subresource="")") + "1\n"));
  EXPECT_THAT(text, HasSubstr(evaluations(R"(decision="allow",mode="enforce",policy_level="baseline",)"
                                          R"(policy_version="v1.30",request_operation="create",resource="pod",)"
                                          R"(subresource="")") + "1\n"));
  EXPECT_THAT(text, HasSubstr(evaluations(R"(decision="deny",mode="audit",policy_level="restricted",)"
                                          R"(policy_version="future",request_operation="create",resource="pod",)"
                                          R"(subresource="")") + "1\n"));
  EXPECT_THAT(text, HasSubstr(evaluations(R"(decision="deny",mode="audit",policy_level="restricted",)"
                                          R"(policy_version="future",request_operation="update",)"
                                          R"(resource="controller",subresource="")") + "1\n"));
  EXPECT_THAT(text, HasSubstr(evaluations(R"(decision="deny",mode="warn",policy_level="restricted",)"
                                          R"(policy_version="latest",request_operation="update",)"
                                          R"(resource="controller",subresource="")") + "1\n"));
  // The refused pod was not warned about, and so not counted under warn.
  EXPECT_THAT(text, ::testing::Not(HasSubstr(R"(mode="warn",policy_level="restricted",policy_version="latest",)"
                                             R"(request_operation="create")")));
  EXPECT_THAT(text, HasSubstr(R"(pod_security_errors_total{fatal="false",request_operation="create",resource="pod",)"
                              R"(subresource=""} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(pod_security_errors_total{fatal="true",request_operation="create",resource="pod",)"
                              R"(subresource=""} 1)"));

  const json::value exempting = json::parse(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1",)"
                                            R"("kind":"PodSecurityConfiguration","exemptions":{"usernames":["alice"]}})");
  Fixture exempt(load_configuration(&exempting));
  EXPECT_FALSE(exempt.validate(exempt.attributes("", "pods", "Pod", privileged)));
  EXPECT_THAT(exempt.registry.render(), HasSubstr(R"(pod_security_exemptions_total{request_operation="create",)"
                                                  R"(resource="pod",subresource=""} 1)"));
}

TEST(PodSecurityAdmissionTest, InvalidNamespaceLabelsEnforceRestrictedAndAreNoted) {
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "bogus"}}));
  json::object pod = parse(kPrivilegedPod);
  ASSERT_TRUE(fixture.validate(fixture.attributes("", "pods", "Pod", pod)));
  EXPECT_EQ(fixture.context.audit_annotations["pod-security.kubernetes.io/error"],
            "Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"bogus\": "
            "must be one of privileged, baseline, restricted");
}

TEST(PodSecurityAdmissionTest, PodUpdatesAreEvaluatedOnlyWhenImagesOrContainersChange) {
  Fixture fixture;
  fixture.add_namespace("ns", labels({{"pod-security.kubernetes.io/enforce", "restricted"}}));
  json::object old_pod = parse(kPrivilegedPod);
  json::object relabelled = parse(kPrivilegedPod);
  relabelled["metadata"].as_object()["labels"] = json::object{{"a", "b"}};
  Attributes update = fixture.attributes("", "pods", "Pod", relabelled, Operation::Update);
  update.old_object = &old_pod;
  EXPECT_FALSE(fixture.validate(update));

  json::object new_image = parse(kPrivilegedPod);
  new_image["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "other";
  update.object = &new_image;
  EXPECT_TRUE(fixture.validate(update));

  // An ephemeral container added through the subresource is a significant change; status never is.
  json::object debugged = parse(kPrivilegedPod);
  debugged["spec"].as_object()["ephemeralContainers"] = json::parse(R"([{"name":"debug","image":"busybox"}])");
  update.object = &debugged;
  update.subresource = "ephemeralcontainers";
  EXPECT_TRUE(fixture.validate(update));
  update.subresource = "status";
  EXPECT_FALSE(fixture.plugin->handles(update));

  EXPECT_FALSE(is_significant_pod_update(debugged, debugged));
  EXPECT_TRUE(is_significant_pod_update(debugged, old_pod));
  EXPECT_FALSE(is_significant_pod_update(old_pod, debugged));  // removing one is not
}

TEST(PodSecurityAdmissionTest, NamespaceLabelsAreValidatedOnCreateAndWhenChanged) {
  Fixture fixture;
  json::object namespace_ = parse(R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"bogus"}}})");
  Attributes create = fixture.attributes("", "namespaces", "Namespace", namespace_);
  create.namespace_.clear();
  const std::optional<apierrors::Status> refused = fixture.validate(create);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 422);
  EXPECT_EQ(refused->message,
            "Namespace \"ns\" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "
            "\"bogus\": must be one of privileged, baseline, restricted");

  // Unchanged invalid labels stay acceptable; a new invalid value is not.
  json::object old_namespace = namespace_;
  json::object relabelled = namespace_;
  relabelled["metadata"].as_object()["labels"].as_object()["other"] = "x";
  Attributes update = fixture.attributes("", "namespaces", "Namespace", relabelled, Operation::Update);
  update.old_object = &old_namespace;
  EXPECT_FALSE(fixture.validate(update));
  relabelled["metadata"].as_object()["labels"].as_object()["pod-security.kubernetes.io/enforce"] = "worse";
  EXPECT_TRUE(fixture.validate(update));
}

TEST(PodSecurityAdmissionTest, AStricterEnforceLevelWarnsAboutExistingPodsAsKubeGroupsThem) {
  Fixture fixture;
  auto pod = [](std::string name, std::string_view spec, std::string owner_uid = {}) {
    json::object object{{"metadata", json::object{{"name", std::move(name)}}}, {"spec", json::parse(spec)}};
    if (!owner_uid.empty())
      object["metadata"].as_object()["ownerReferences"] =
          json::array{json::object{{"uid", owner_uid}, {"controller", true}}};
    return object;
  };
  const std::string_view host_pid = R"({"hostPID":true,"containers":[{"name":"c"}]})";
  const std::string_view fine = R"({"containers":[{"name":"c"}]})";
  fixture.pods["ns"] = {pod("b", host_pid), pod("a", host_pid), pod("c", host_pid, "rs1"),
                        pod("fine", fine), pod("privileged", R"({"containers":[{"name":"c","securityContext":{"privileged":true}}]})")};
  json::object old_namespace = parse(R"({"metadata":{"name":"ns"}})");
  json::object updated = parse(R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})");
  Attributes update = fixture.attributes("", "namespaces", "Namespace", updated, Operation::Update);
  update.old_object = &old_namespace;
  EXPECT_FALSE(fixture.validate(update));
  EXPECT_EQ(fixture.context.warnings,
            (std::vector<std::string>{"existing pods in namespace \"ns\" violate the new PodSecurity enforce level "
                                      "\"baseline:latest\"",
                                      "a (and 2 other pods): host namespaces",
                                      "privileged: privileged"}));

  // Relaxing the level (same version) or keeping it checks nothing.
  Fixture relaxing;
  relaxing.pods = fixture.pods;
  Attributes relax = relaxing.attributes("", "namespaces", "Namespace", old_namespace, Operation::Update);
  relax.old_object = &updated;
  EXPECT_FALSE(relaxing.validate(relax));
  EXPECT_TRUE(relaxing.context.warnings.empty());
}

TEST(PodSecurityAdmissionTest, TheDryRunChecksAtMostTheConfiguredNumberOfPods) {
  Fixture fixture(load_configuration(nullptr), Limits{2, std::chrono::milliseconds(1000)});
  for (std::string name : {"x", "y", "z"})
    fixture.pods["ns"].push_back(json::object{{"metadata", json::object{{"name", name}}},
                                              {"spec", json::parse(R"({"hostNetwork":true})")}});
  json::object old_namespace = parse(R"({"metadata":{"name":"ns"}})");
  json::object updated = parse(R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})");
  Attributes update = fixture.attributes("", "namespaces", "Namespace", updated, Operation::Update);
  update.old_object = &old_namespace;
  EXPECT_FALSE(fixture.validate(update));
  EXPECT_EQ(fixture.context.warnings,
            (std::vector<std::string>{"new PodSecurity enforce level only checked against the first 2 of 3 existing pods",
                                      "existing pods in namespace \"ns\" violate the new PodSecurity enforce level "
                                      "\"baseline:latest\"",
                                      "x (and 1 other pod): host namespaces"}));
}

TEST(PodSecurityAdmissionTest, TheDryRunStopsAtHalfTheRequestsRemainingTime) {
  Fixture fixture;
  for (std::string name : {"x", "y", "z"})
    fixture.pods["ns"].push_back(json::object{{"metadata", json::object{{"name", name}}},
                                              {"spec", json::parse(R"({"hostNetwork":true})")}});
  fixture.context.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);  // already spent
  json::object old_namespace = parse(R"({"metadata":{"name":"ns"}})");
  json::object updated = parse(R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})");
  Attributes update = fixture.attributes("", "namespaces", "Namespace", updated, Operation::Update);
  update.old_object = &old_namespace;
  EXPECT_FALSE(fixture.validate(update));
  EXPECT_EQ(fixture.context.warnings,
            (std::vector<std::string>{"new PodSecurity enforce level only checked against the first 1 of 3 existing pods",
                                      "existing pods in namespace \"ns\" violate the new PodSecurity enforce level "
                                      "\"baseline:latest\"",
                                      "x: host namespaces"}));
}

TEST(PodSecurityAdmissionTest, ExemptNamespacesAreWarnedThatTheirLabelsAreIgnored) {
  const json::value given = json::parse(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1",)"
                                        R"("kind":"PodSecurityConfiguration","exemptions":{"namespaces":["ns"]}})");
  Fixture fixture(load_configuration(&given));
  json::object namespace_ = parse(R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"restricted"}}})");
  Attributes create = fixture.attributes("", "namespaces", "Namespace", namespace_);
  create.namespace_.clear();  // kube's create handler takes a new namespace's name as the request's namespace
  EXPECT_FALSE(fixture.validate(create));
  EXPECT_EQ(fixture.context.warnings,
            std::vector<std::string>{"namespace \"ns\" is exempt from Pod Security, and the policy "
                                     "(enforce=baseline:latest, warn=restricted:latest) will be ignored"});
}

TEST(PodSecurityAdmissionTest, HandlesOnlyCreatesAndUpdatesOfPodsTemplatesAndNamespaces) {
  Fixture fixture;
  json::object object = parse(R"({"metadata":{"name":"x"}})");
  EXPECT_TRUE(fixture.plugin->handles(fixture.attributes("", "pods", "Pod", object)));
  EXPECT_FALSE(fixture.plugin->handles(fixture.attributes("", "pods", "Pod", object, Operation::Delete)));
  EXPECT_FALSE(fixture.plugin->handles(fixture.attributes("", "configmaps", "ConfigMap", object)));
  EXPECT_TRUE(fixture.plugin->handles(fixture.attributes("batch", "jobs", "Job", object)));
  Attributes binding = fixture.attributes("", "pods", "Binding", object);
  binding.subresource = "binding";
  EXPECT_FALSE(fixture.plugin->handles(binding));
  Attributes finalize = fixture.attributes("", "namespaces", "Namespace", object, Operation::Update);
  finalize.subresource = "finalize";
  EXPECT_FALSE(fixture.plugin->handles(finalize));
}

// The plugin as kapi makes it (make_pod_security), over real registry Stores of namespaces and pods on the
// embedded storage: it reads the namespace's labels and lists its pods itself.
class PodSecurityStoresTest : public ::testing::Test {
 protected:
  PodSecurityStoresTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    namespaces_ = std::make_unique<registry::Store>(definition("namespaces", "Namespace", false), strategy_, *backend_);
    pods_ = std::make_unique<registry::Store>(definition("pods", "Pod", true), strategy_, *backend_);
    PluginContext context;
    context.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
      if (!group.empty()) return nullptr;
      return resource == "namespaces" ? namespaces_.get() : resource == "pods" ? pods_.get() : nullptr;
    };
    plugin_ = make_pod_security(context);
  }

  static registry::ResourceDefinition definition(std::string resource, std::string kind, bool namespaced) {
    registry::ResourceDefinition result;
    result.version = "v1";
    result.resource = std::move(resource);
    result.kind = std::move(kind);
    result.namespaced = namespaced;
    return result;
  }

  void create(registry::Store& store, std::string namespace_, std::string_view object) {
    io_.run(store.create(std::move(namespace_), json::parse(object).as_object(), registry::WriteOptions{}));
  }

  std::optional<apierrors::Status> validate(Attributes& attributes) {
    attributes.context = &context_;
    try {
      io_.run(plugin_->validate(attributes));
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    return std::nullopt;
  }

  test_support::TempDir dir_{"kapi-podsecurity-stores"};
  test_support::IoThread io_;
  std::unique_ptr<storage::embedded::Store> backend_;
  std::shared_ptr<registry::Strategy> strategy_ = std::make_shared<registry::Strategy>();
  std::unique_ptr<registry::Store> namespaces_;
  std::unique_ptr<registry::Store> pods_;
  std::unique_ptr<Plugin> plugin_;
  request::RequestContext context_;
};

TEST_F(PodSecurityStoresTest, ReadsTheNamespacesLabelsAndListsItsPodsFromTheStores) {
  create(*namespaces_, "", R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})");
  json::object pod = parse(kPrivilegedPod);
  Attributes attributes;
  attributes.kind = {"", "v1", "Pod"};
  attributes.resource = {"", "v1", "pods"};
  attributes.namespace_ = "ns";
  attributes.name = "p";
  attributes.object = &pod;
  const std::optional<apierrors::Status> refused = validate(attributes);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message, "pods \"p\" is forbidden: violates PodSecurity \"baseline:latest\": privileged (container "
                              "\"c\" must not set securityContext.privileged=true)");

  // A pod in a namespace that cannot be read is refused as kube refuses it.
  attributes.namespace_ = "missing";
  const std::optional<apierrors::Status> unknown = validate(attributes);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->code, 500);
  EXPECT_EQ(unknown->message, "Internal error occurred: failed to lookup namespace \"missing\"");

  create(*namespaces_, "", R"({"metadata":{"name":"running"}})");
  create(*pods_, "running",
         R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}})");
  json::object old_namespace = parse(R"({"metadata":{"name":"running"}})");
  json::object updated = parse(R"({"metadata":{"name":"running","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})");
  Attributes relabel;
  relabel.operation = Operation::Update;
  relabel.kind = {"", "v1", "Namespace"};
  relabel.resource = {"", "v1", "namespaces"};
  relabel.namespace_ = "running";
  relabel.name = "running";
  relabel.object = &updated;
  relabel.old_object = &old_namespace;
  EXPECT_FALSE(validate(relabel));
  EXPECT_EQ(context_.warnings,
            (std::vector<std::string>{"existing pods in namespace \"running\" violate the new PodSecurity enforce level "
                                      "\"baseline:latest\"",
                                      "p: privileged"}));
}

}  // namespace
}  // namespace kapi::admission::podsecurity::podsecurity_admission_test

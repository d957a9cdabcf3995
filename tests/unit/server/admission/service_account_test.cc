// ServiceAccount admission as kube's plugin/pkg/admission/serviceaccount/admission_test.go exercises it: the
// default service account, the kube-api-access projected volume and its mounts, automount opt-outs, image pull
// secrets, mirror pods and kubernetes.io/enforce-mountable-secrets.
#include "tests/unit/server/admission/plugin_fixture.h"

#include <regex>

namespace kapi::admission {
std::unique_ptr<Plugin> make_service_account(const PluginContext& context);

namespace service_account_test {
namespace {

namespace json = boost::json;

class ServiceAccountAdmission : public fixture::PluginFixture {
 protected:
  ServiceAccountAdmission() : plugin_(make_service_account(context())) {}

  void add_account(std::string_view json_text) { put("", "serviceaccounts", "ns", json_text); }
  std::optional<apierrors::Status> create(json::object& pod) {
    Attributes attributes = pod_create(pod);
    return admit(*plugin_, attributes);
  }

  std::unique_ptr<Plugin> plugin_;
};

json::object pod(std::string_view spec) {
  return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":)" +
                     std::string(spec) + "}")
      .as_object();
}

const json::object& spec_of(const json::object& pod) { return pod.at("spec").as_object(); }

TEST_F(ServiceAccountAdmission, APodRunsAsTheDefaultAccountWithAKubeApiAccessVolumeMountedEverywhere) {
  add_account(R"({"metadata":{"name":"default"}})");
  json::object p = pod(R"({"initContainers":[{"name":"i","image":"x"}],"containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(p), std::nullopt);
  const json::object& spec = spec_of(p);
  EXPECT_EQ(spec.at("serviceAccountName"), "default");
  EXPECT_EQ(spec.at("serviceAccount"), "default") << "v1's deprecated alias, as kube writes it";
  ASSERT_EQ(spec.at("volumes").as_array().size(), 1u);
  json::object volume = spec.at("volumes").as_array()[0].as_object();
  const std::string name(volume.at("name").as_string());
  EXPECT_TRUE(std::regex_match(name, std::regex("kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}"))) << name;
  volume.erase("name");
  EXPECT_EQ(json::value(volume), json::parse(R"({"projected":{"sources":[
      {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],
      "defaultMode":420}})"));
  const json::value mount = json::parse(R"({"name":")" + name +
                                        R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"})");
  for (const char* list : {"initContainers", "containers"})
    EXPECT_EQ(spec.at(list).as_array()[0].at("volumeMounts"), json::value(json::array{mount})) << list;
  EXPECT_FALSE(spec.contains("imagePullSecrets"));
}

TEST_F(ServiceAccountAdmission, AContainerThatMountsTheTokenPathAlreadyKeepsItsMountAndAnExistingVolumeIsReused) {
  add_account(R"({"metadata":{"name":"default"}})");
  json::object p = pod(R"({"volumes":[{"name":"kube-api-access-mine","emptyDir":{}}],"containers":[
      {"name":"a","image":"x","volumeMounts":[{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},
      {"name":"b","image":"x"}]})");
  ASSERT_EQ(create(p), std::nullopt);
  const json::object& spec = spec_of(p);
  EXPECT_EQ(spec.at("volumes").as_array().size(), 1u) << "the kube-api-access- volume the pod has is the one mounted";
  const auto& containers = spec.at("containers").as_array();
  EXPECT_EQ(containers[0].at("volumeMounts").as_array().size(), 1u);
  EXPECT_EQ(containers[1].at("volumeMounts").as_array()[0].at("name"), "kube-api-access-mine");
}

TEST_F(ServiceAccountAdmission, AutomountFalseOnThePodOrElseOnTheAccountMeansNoTokenVolume) {
  add_account(R"({"metadata":{"name":"default"}})");
  add_account(R"({"metadata":{"name":"quiet"},"automountServiceAccountToken":false})");
  json::object opted_out = pod(R"({"automountServiceAccountToken":false,"containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(opted_out), std::nullopt);
  EXPECT_FALSE(spec_of(opted_out).contains("volumes"));
  EXPECT_FALSE(spec_of(opted_out).at("containers").as_array()[0].as_object().contains("volumeMounts"));

  json::object quiet = pod(R"({"serviceAccountName":"quiet","containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(quiet), std::nullopt);
  EXPECT_FALSE(spec_of(quiet).contains("volumes"));

  json::object pod_wins =
      pod(R"({"serviceAccountName":"quiet","automountServiceAccountToken":true,"containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(pod_wins), std::nullopt);
  EXPECT_EQ(spec_of(pod_wins).at("volumes").as_array().size(), 1u);
}

TEST_F(ServiceAccountAdmission, APodNamingAMissingAccountIsForbidden) {
  json::object p = pod(R"({"serviceAccountName":"builder","containers":[{"name":"c","image":"x"}]})");
  auto refused = create(p);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->reason, "Forbidden");
  EXPECT_EQ(refused->message,
            "pods \"p\" is forbidden: error looking up service account ns/builder: serviceaccount \"builder\" not found");
}

TEST_F(ServiceAccountAdmission, WithoutItsDefaultAccountANamespaceRefusesPodsAfterRetrying) {
  json::object p = pod(R"({"containers":[{"name":"c","image":"x"}]})");
  auto refused = create(p);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message,
            "pods \"p\" is forbidden: error looking up service account ns/default: serviceaccount \"default\" not found");
}

TEST_F(ServiceAccountAdmission, TheAccountsImagePullSecretsGoToAPodThatHasNone) {
  add_account(R"({"metadata":{"name":"default"},"imagePullSecrets":[{"name":"registry"},{"name":"mirror"}]})");
  json::object bare = pod(R"({"containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(bare), std::nullopt);
  EXPECT_EQ(spec_of(bare).at("imagePullSecrets"), json::parse(R"([{"name":"registry"},{"name":"mirror"}])"));

  json::object own = pod(R"({"imagePullSecrets":[{"name":"own"}],"containers":[{"name":"c","image":"x"}]})");
  ASSERT_EQ(create(own), std::nullopt);
  EXPECT_EQ(spec_of(own).at("imagePullSecrets"), json::parse(R"([{"name":"own"}])"));
}

TEST_F(ServiceAccountAdmission, MirrorPodsAreLeftAsTheyAreAndMayReferenceNoAccountNorSecret) {
  const std::string mirror = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":)";
  json::object plain = json::parse(mirror + R"({"containers":[{"name":"c","image":"x"}]}})").as_object();
  ASSERT_EQ(create(plain), std::nullopt);
  EXPECT_FALSE(spec_of(plain).contains("serviceAccountName"));
  EXPECT_FALSE(spec_of(plain).contains("volumes"));

  json::object named = json::parse(mirror + R"({"serviceAccountName":"default","containers":[{"name":"c"}]}})").as_object();
  EXPECT_EQ(create(named)->message, "pods \"p\" is forbidden: a mirror pod may not reference service accounts");
  json::object secret = json::parse(mirror + R"({"containers":[{"name":"c","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]}]}})").as_object();
  EXPECT_EQ(create(secret)->message, "pods \"p\" is forbidden: a mirror pod may not reference secrets");
  json::object token = json::parse(mirror + R"({"volumes":[{"name":"t","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}}],"containers":[{"name":"c"}]}})").as_object();
  EXPECT_EQ(create(token)->message,
            "pods \"p\" is forbidden: a mirror pod may not use ServiceAccountToken volume projections");
}

TEST_F(ServiceAccountAdmission, AnAccountEnforcingMountableSecretsRefusesSecretsItDoesNotList) {
  add_account(R"({"metadata":{"name":"strict","annotations":{"kubernetes.io/enforce-mountable-secrets":"true"}},
                  "secrets":[{"name":"ok"}],"imagePullSecrets":[{"name":"pull"}]})");
  auto refusal = [&](std::string_view spec) {
    json::object p = pod(spec);
    auto refused = create(p);
    return refused ? refused->message : "";
  };
  EXPECT_EQ(refusal(R"({"serviceAccountName":"strict","volumes":[{"name":"v","secret":{"secretName":"ok"}}],
                        "containers":[{"name":"c","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"ok","key":"k"}}}]}]})"),
            "");
  EXPECT_EQ(refusal(R"({"serviceAccountName":"strict","volumes":[{"name":"v","secret":{"secretName":"other"}}],"containers":[{"name":"c"}]})"),
            "pods \"p\" is forbidden: volume with secret.secretName=\"other\" is not allowed because service account "
            "strict does not reference that secret");
  EXPECT_EQ(refusal(R"({"serviceAccountName":"strict","initContainers":[{"name":"i","envFrom":[{"secretRef":{"name":"other"}}]}],"containers":[{"name":"c"}]})"),
            "pods \"p\" is forbidden: init container i with envFrom referencing secret.secretName=\"other\" is not "
            "allowed because service account strict does not reference that secret");
  EXPECT_EQ(refusal(R"({"serviceAccountName":"strict","containers":[{"name":"c","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"other","key":"k"}}}]}]})"),
            "pods \"p\" is forbidden: container c with envVar E referencing secret.secretName=\"other\" is not allowed "
            "because service account strict does not reference that secret");
  EXPECT_EQ(refusal(R"({"serviceAccountName":"strict","imagePullSecrets":[{"name":"pull"},{"name":"other"}],"containers":[{"name":"c"}]})"),
            "pods \"p\" is forbidden: imagePullSecrets[1].name=\"other\" is not allowed because service account strict "
            "does not reference that imagePullSecret");
}

TEST_F(ServiceAccountAdmission, EphemeralContainersOfAStrictAccountsPodMayOnlyUseItsSecrets) {
  add_account(R"({"metadata":{"name":"strict","annotations":{"kubernetes.io/enforce-mountable-secrets":"1"}},"secrets":[{"name":"ok"}]})");
  json::object p = pod(R"({"serviceAccountName":"strict","containers":[{"name":"c"}],
      "ephemeralContainers":[{"name":"debug","envFrom":[{"secretRef":{"name":"other"}}]}]})");
  json::object old = p;
  Attributes attributes = request(Operation::Update, "", "pods", "Pod", "ns", &p, "ephemeralcontainers");
  attributes.old_object = &old;
  auto refused = admit(*plugin_, attributes);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 500);
  EXPECT_EQ(refused->message, "ephemeral container debug with envFrom referencing secret.secretName=\"other\" is not "
                              "allowed because service account strict does not reference that secret");
  EXPECT_EQ(p, old) << "an update is never mutated";
}

TEST_F(ServiceAccountAdmission, OnlyPodCreatesAndEphemeralContainerUpdatesAreHandled) {
  json::object p = pod(R"({"containers":[{"name":"c"}]})");
  EXPECT_FALSE(plugin_->handles(request(Operation::Update, "", "pods", "Pod", "ns", &p)));
  EXPECT_FALSE(plugin_->handles(request(Operation::Create, "", "pods", "Binding", "ns", &p, "binding")));
  EXPECT_FALSE(plugin_->handles(request(Operation::Create, "", "configmaps", "ConfigMap", "ns", &p)));
  EXPECT_TRUE(plugin_->handles(request(Operation::Create, "", "pods", "Pod", "ns", &p)));
}

}  // namespace
}  // namespace service_account_test
}  // namespace kapi::admission

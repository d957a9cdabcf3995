// The ResourceQuota admission plugin and its evaluators, as kube's resourcequota admission_test.go and the core
// evaluators' tests check them: usage of pods (init containers, sidecars, overhead), services, claims and object
// counts; scopes; the plugin's decisions and messages through the Plugin interface, over a real quota Store.
#include "server/admission/plugin.h"
#include "server/apierrors/errors.h"
#include "server/apis/resource_storage.h"
#include "server/controllers/resource_quota_controller.h"
#include "server/plugin/admission/resourcequota/admission.h"
#include "server/plugin/admission/resourcequota/evaluators.h"
#include "server/plugin/admission/resourcequota/resources.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::admission {
std::unique_ptr<Plugin> make_resource_quota(const PluginContext& context);

namespace resource_quota_test {
namespace {

namespace json = boost::json;
using quota::Evaluator;
using quota::ResourceList;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

std::string printed(std::string_view text) { return quota::to_string(*quota::parse_quantity(text)); }

std::string printed_usage(const Evaluator& evaluator, std::string_view object) {
  return quota::pretty(evaluator.usage(parse(object)));
}

TEST(ResourceQuotaQuantities, PrintAsGoPrintsThem) {
  EXPECT_EQ(printed("1000m"), "1");
  EXPECT_EQ(printed("500m"), "500m");
  EXPECT_EQ(printed("1.5Gi"), "1536Mi");
  EXPECT_EQ(printed("1Gi"), "1Gi");
  EXPECT_EQ(printed("0.5Ki"), "512");
  EXPECT_EQ(printed("1G"), "1G");
  EXPECT_EQ(printed("1500000"), "1500k");
  EXPECT_EQ(printed("10"), "10");
  EXPECT_EQ(printed("2e3"), "2e3");
  EXPECT_EQ(printed("0"), "0");
  EXPECT_EQ(printed("0.1"), "100m");
  EXPECT_EQ(printed("1n"), "1n");
  // Sums keep the format of the first non-zero addend.
  const ResourceList sum = quota::add({{"memory", *quota::parse_quantity("1Gi")}},
                                      {{"memory", *quota::parse_quantity("512Mi")}});
  EXPECT_EQ(quota::pretty(sum), "memory=1536Mi");
  const ResourceList from_zero = quota::add({{"memory", quota::count(0)}}, {{"memory", *quota::parse_quantity("1Gi")}});
  EXPECT_EQ(quota::pretty(from_zero), "memory=1Gi");
}

TEST(ResourceQuotaEvaluators, PodUsageTakesTheLargestInitContainerAndAddsSidecarsAndOverhead) {
  auto pods = quota::evaluator_for("", "pods");
  EXPECT_EQ(printed_usage(*pods, R"({"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}},
      {"name":"b","resources":{"requests":{"cpu":"200m","memory":"64Mi"},"limits":{"cpu":"300m","memory":"64Mi"}}}],
    "initContainers":[{"name":"i","resources":{"requests":{"cpu":"1","memory":"32Mi"},"limits":{"cpu":"1"}}}]}})"),
            "count/pods=1,cpu=1,limits.cpu=1,limits.memory=128Mi,memory=128Mi,pods=1,requests.cpu=1,"
            "requests.memory=128Mi");
  // A sidecar (restartable init container) runs beside the others: it is added, and counts for the init
  // containers after it.
  EXPECT_EQ(printed_usage(*pods, R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"100m"}}}],
    "initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"200m"}}},
                      {"name":"i","resources":{"requests":{"cpu":"250m"}}}],
    "overhead":{"cpu":"10m"}}})"),
            "count/pods=1,cpu=460m,pods=1,requests.cpu=460m");
  // hugepages and extended resources.
  EXPECT_EQ(printed_usage(*pods, R"({"spec":{"containers":[{"name":"a","resources":{
      "requests":{"hugepages-2Mi":"4Mi","example.com/gpu":"2"},"limits":{"hugepages-2Mi":"4Mi","example.com/gpu":"2"}}}]}})"),
            "count/pods=1,hugepages-2Mi=4Mi,pods=1,requests.example.com/gpu=2,requests.hugepages-2Mi=4Mi");
  // A finished pod only counts as an object.
  EXPECT_EQ(printed_usage(*pods, R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]},
    "status":{"phase":"Succeeded"}})"),
            "count/pods=1");
  // So does a pod whose deletion is past its grace period; one still within it is charged.
  EXPECT_EQ(printed_usage(*pods, R"({"metadata":{"deletionTimestamp":"2020-01-01T00:00:00Z","deletionGracePeriodSeconds":30},
    "spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})"),
            "count/pods=1");
  EXPECT_EQ(printed_usage(*pods, R"({"metadata":{"deletionTimestamp":"2999-01-01T00:00:00Z","deletionGracePeriodSeconds":30},
    "spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})"),
            "count/pods=1,cpu=1,pods=1,requests.cpu=1");
}

TEST(ResourceQuotaEvaluators, ServicesClaimsAndObjectCounts) {
  auto services = quota::evaluator_for("", "services");
  EXPECT_EQ(printed_usage(*services, R"({"spec":{"type":"ClusterIP","ports":[{"port":80}]}})"),
            "count/services=1,services=1,services.loadbalancers=0,services.nodeports=0");
  EXPECT_EQ(printed_usage(*services, R"({"spec":{"type":"NodePort","ports":[{"port":80},{"port":81}]}})"),
            "count/services=1,services=1,services.loadbalancers=0,services.nodeports=2");
  EXPECT_EQ(printed_usage(*services, R"({"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,
      "ports":[{"port":80,"nodePort":30001},{"port":81}]}})"),
            "count/services=1,services=1,services.loadbalancers=1,services.nodeports=1");
  auto claims = quota::evaluator_for("", "persistentvolumeclaims");
  EXPECT_EQ(printed_usage(*claims, R"({"spec":{"storageClassName":"gold","resources":{"requests":{"storage":"1Gi"}}}})"),
            "count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,"
            "gold.storageclass.storage.k8s.io/requests.storage=1Gi,persistentvolumeclaims=1,requests.storage=1Gi");
  EXPECT_EQ(quota::pretty_names(claims->matching_resources(
                {"requests.storage", "gold.storageclass.storage.k8s.io/requests.storage", "pods"})),
            "gold.storageclass.storage.k8s.io/requests.storage,requests.storage");
  EXPECT_EQ(printed_usage(*quota::evaluator_for("", "configmaps"), "{}"), "configmaps=1,count/configmaps=1");
  EXPECT_EQ(printed_usage(*quota::evaluator_for("apps", "deployments"), "{}"), "count/deployments.apps=1");
  EXPECT_TRUE(quota::ignored_resource("", "events"));
  EXPECT_FALSE(quota::ignored_resource("", "pods"));
}

TEST(ResourceQuotaEvaluators, PodScopes) {
  auto pods = quota::evaluator_for("", "pods");
  const json::object best_effort = parse(R"({"spec":{"containers":[{"name":"a"}]}})");
  const json::object burstable = parse(
      R"({"spec":{"activeDeadlineSeconds":10,"priorityClassName":"high",
          "containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})");
  EXPECT_TRUE(pods->matches_scope({"BestEffort", "Exists", {}}, best_effort));
  EXPECT_FALSE(pods->matches_scope({"NotBestEffort", "Exists", {}}, best_effort));
  EXPECT_TRUE(pods->matches_scope({"NotBestEffort", "Exists", {}}, burstable));
  EXPECT_TRUE(pods->matches_scope({"Terminating", "Exists", {}}, burstable));
  EXPECT_TRUE(pods->matches_scope({"NotTerminating", "Exists", {}}, best_effort));
  EXPECT_TRUE(pods->matches_scope({"PriorityClass", "In", {"high", "low"}}, burstable));
  EXPECT_FALSE(pods->matches_scope({"PriorityClass", "In", {"high"}}, best_effort));
  EXPECT_TRUE(pods->matches_scope({"PriorityClass", "NotIn", {"high"}}, best_effort));
  EXPECT_TRUE(pods->matches_scope({"PriorityClass", "DoesNotExist", {}}, best_effort));
  // Only pods have scopes: a scoped quota never matches other objects.
  EXPECT_FALSE(quota::evaluator_for("", "configmaps")->matches_scope({"BestEffort", "Exists", {}}, best_effort));

  const json::object scoped = parse(R"({"metadata":{"name":"q"},"spec":{"scopes":["BestEffort"],
      "scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"DoesNotExist"}]}},
      "status":{"hard":{"pods":"1"},"used":{"pods":"0"}}})");
  EXPECT_TRUE(quota::matches(*pods, scoped, best_effort));
  EXPECT_FALSE(quota::matches(*pods, scoped, burstable));
}

TEST(ResourceQuotaEvaluators, ConstraintsNameEachMissingResourceAndItsContainers) {
  auto pods = quota::evaluator_for("", "pods");
  const json::object pod = parse(R"({"spec":{"containers":[
      {"name":"b","resources":{"requests":{"cpu":"1"}}},{"name":"a"}],"initContainers":[{"name":"init"}]}})");
  EXPECT_EQ(pods->constraints({"requests.cpu", "limits.memory", "pods"}, pod),
            "must specify limits.memory for: a,b,init; requests.cpu for: a,init");
  EXPECT_EQ(pods->constraints({"pods", "requests.storage"}, pod), std::nullopt);
}

TEST(ResourceQuotaController, StatusFollowsSpecAndKeepsUnmeasuredUsage) {
  const json::object quota = parse(R"({"spec":{"hard":{"pods":"2","count/widgets.example.com":"3"}},
      "status":{"hard":{"pods":"1"},"used":{"pods":"1","count/widgets.example.com":"2","secrets":"4"}}})");
  const json::object status = controllers::ResourceQuotaController::status_for(quota, parse(R"({"pods":"0"})"));
  EXPECT_EQ(status, parse(R"({"hard":{"pods":"2","count/widgets.example.com":"3"},
                              "used":{"pods":"0","count/widgets.example.com":"2"}})"));
}

// The plugin over a real resourcequotas Store (embedded backend, no watch cache).
class ResourceQuotaAdmissionTest : public ::testing::Test {
 protected:
  ResourceQuotaAdmissionTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    apis::ResourceStorage quotas = apis::resourcequotas();
    quotas_ = std::make_unique<registry::Store>(std::move(quotas.definition), quotas.strategy, *backend_);
    PluginContext context;
    context.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
      return group.empty() && resource == "resourcequotas" ? quotas_.get() : nullptr;
    };
    plugin_ = make_resource_quota(context);
  }

  // A quota as the controller leaves it: status.hard and status.used set.
  void add_quota(const std::string& name, std::string_view hard, std::string_view used, std::string_view spec_extra = "") {
    json::object quota = parse(R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":")" + name +
                               R"("},"spec":{"hard":)" + std::string(hard) + std::string(spec_extra) + "}}");
    io_.run(quotas_->create("ns", quota, registry::WriteOptions{}));
    registry::UpdateFunction set_status = [&](const json::object* current) {
      json::object updated = *current;
      updated["status"] = parse(R"({"hard":)" + std::string(hard) + R"(,"used":)" + std::string(used) + "}");
      return updated;
    };
    registry::WriteOptions status_write;
    status_write.subresource = "status";
    io_.run(quotas_->update("ns", name, set_status, status_write));
  }

  json::object used(const std::string& name) {
    json::object quota = parse(io_.run(quotas_->get("ns", name, "")).json);
    return quota["status"].as_object()["used"].as_object();
  }

  // Validates a create of `object` (a pod unless told), returning the refusal's message, "" when admitted.
  std::string create(json::object object, std::string resource = "pods", std::string kind = "Pod",
                     bool dry_run = false) {
    Attributes attributes;
    attributes.operation = Operation::Create;
    attributes.kind = {"", "v1", kind};
    attributes.resource = {"", "v1", resource};
    attributes.namespace_ = "ns";
    attributes.name = std::string(registry::meta_string(object, "name"));
    attributes.object = &object;
    attributes.dry_run = dry_run;
    if (!plugin_->handles(attributes)) return "";
    try {
      io_.run(plugin_->validate(attributes));
      return "";
    } catch (const apierrors::ApiError& error) {
      EXPECT_EQ(error.status().code, 403);
      EXPECT_EQ(error.status().reason, "Forbidden");
      return error.status().message;
    }
  }

  static json::object pod(const std::string& name, std::string_view resources = "{}") {
    return parse(R"({"metadata":{"name":")" + name + R"(","namespace":"ns"},"spec":{"containers":[{"name":"c",)"
                 R"("resources":)" + std::string(resources) + "}]}}");
  }

  test_support::TempDir dir_;
  std::unique_ptr<storage::embedded::Store> backend_;
  test_support::IoThread io_;
  std::unique_ptr<registry::Store> quotas_;
  std::unique_ptr<Plugin> plugin_;
};

TEST_F(ResourceQuotaAdmissionTest, WithoutQuotasEverythingIsAdmitted) {
  EXPECT_EQ(create(pod("p")), "");
}

TEST_F(ResourceQuotaAdmissionTest, ChargesEachCreateAndRefusesOneOverTheLimit) {
  add_quota("q", R"({"pods":"2"})", R"({"pods":"0"})");
  EXPECT_EQ(create(pod("p1")), "");
  EXPECT_EQ(used("q"), parse(R"({"pods":"1"})"));
  EXPECT_EQ(create(pod("p2")), "");
  EXPECT_EQ(used("q"), parse(R"({"pods":"2"})"));
  EXPECT_EQ(create(pod("p3")),
            "pods \"p3\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2");
  EXPECT_EQ(used("q"), parse(R"({"pods":"2"})"));
  // A quota that does not limit pods is neither charged nor asked.
  add_quota("maps", R"({"count/configmaps":"1"})", R"({"count/configmaps":"0"})");
  EXPECT_EQ(create(parse(R"({"metadata":{"name":"m1"}})"), "configmaps", "ConfigMap"), "");
  EXPECT_EQ(used("maps"), parse(R"({"count/configmaps":"1"})"));
  EXPECT_EQ(create(parse(R"({"metadata":{"name":"m2"}})"), "configmaps", "ConfigMap"),
            "configmaps \"m2\" is forbidden: exceeded quota: maps, requested: count/configmaps=1, used: "
            "count/configmaps=1, limited: count/configmaps=1");
}

TEST_F(ResourceQuotaAdmissionTest, ComputeQuotasRequireRequestsAndSumThem) {
  add_quota("compute", R"({"requests.cpu":"1","requests.memory":"1Gi"})",
            R"({"requests.cpu":"0","requests.memory":"0"})");
  EXPECT_EQ(create(pod("bare")),
            "pods \"bare\" is forbidden: failed quota: compute: must specify requests.cpu for: c; requests.memory for: c");
  EXPECT_EQ(create(pod("small", R"({"requests":{"cpu":"600m","memory":"512Mi"}})")), "");
  EXPECT_EQ(used("compute"), parse(R"({"requests.cpu":"600m","requests.memory":"512Mi"})"));
  EXPECT_EQ(create(pod("big", R"({"requests":{"cpu":"500m","memory":"256Mi"}})")),
            "pods \"big\" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: "
            "requests.cpu=600m, limited: requests.cpu=1");
  EXPECT_EQ(create(pod("fits", R"({"requests":{"cpu":"400m","memory":"512Mi"}})")), "");
  EXPECT_EQ(used("compute"), parse(R"({"requests.cpu":"1","requests.memory":"1Gi"})"));
}

TEST_F(ResourceQuotaAdmissionTest, AQuotaWithoutUsageRefusesUntilMeasured) {
  add_quota("q", R"({"pods":"2","services":"1"})", R"({"services":"0"})");
  EXPECT_EQ(create(pod("p")), "pods \"p\" is forbidden: status unknown for quota: q, resources: pods");
}

TEST_F(ResourceQuotaAdmissionTest, DryRunIsCheckedButNotCharged) {
  add_quota("q", R"({"pods":"1"})", R"({"pods":"0"})");
  EXPECT_EQ(create(pod("p"), "pods", "Pod", /*dry_run=*/true), "");
  EXPECT_EQ(used("q"), parse(R"({"pods":"0"})"));
}

TEST_F(ResourceQuotaAdmissionTest, ScopedQuotasChargeOnlyWhatIsInScope) {
  add_quota("best-effort", R"({"pods":"1"})", R"({"pods":"1"})", R"(,"scopes":["BestEffort"])");
  EXPECT_EQ(create(pod("guaranteed", R"({"requests":{"cpu":"1"},"limits":{"cpu":"1"}})")), "");
  EXPECT_EQ(create(pod("none")),
            "pods \"none\" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1");
}

TEST_F(ResourceQuotaAdmissionTest, ServiceUpdatesAreChargedWhatTheyAdd) {
  add_quota("q", R"({"services.nodeports":"1","services":"5"})", R"({"services.nodeports":"0","services":"1"})");
  json::object old = parse(R"({"metadata":{"name":"s","resourceVersion":"5"},"spec":{"type":"ClusterIP",
      "ports":[{"port":80},{"port":81}]}})");
  json::object updated = parse(R"({"metadata":{"name":"s","resourceVersion":"5"},"spec":{"type":"NodePort",
      "ports":[{"port":80},{"port":81}]}})");
  Attributes attributes;
  attributes.operation = Operation::Update;
  attributes.kind = {"", "v1", "Service"};
  attributes.resource = {"", "v1", "services"};
  attributes.namespace_ = "ns";
  attributes.name = "s";
  attributes.object = &updated;
  attributes.old_object = &old;
  ASSERT_TRUE(plugin_->handles(attributes));
  try {
    io_.run(plugin_->validate(attributes));
    ADD_FAILURE() << "admitted";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().message,
              "services \"s\" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: "
              "services.nodeports=0, limited: services.nodeports=1");
  }
}

TEST_F(ResourceQuotaAdmissionTest, LimitedResourcesNeedACoveringQuota) {
  const json::value configuration = json::parse(R"({"apiVersion":"apiserver.config.k8s.io/v1",
      "kind":"ResourceQuotaConfiguration","limitedResources":[
        {"resource":"persistentvolumeclaims","matchContains":[".storageclass.storage.k8s.io/requests.storage"]},
        {"resource":"pods","matchScopes":[{"scopeName":"PriorityClass","operator":"In","values":["critical"]}]}]})");
  PluginContext context;
  context.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
    return group.empty() && resource == "resourcequotas" ? quotas_.get() : nullptr;
  };
  context.configuration = &configuration;
  plugin_ = make_resource_quota(context);

  const json::object gold = parse(R"({"metadata":{"name":"c"},"spec":{"storageClassName":"gold",
      "resources":{"requests":{"storage":"1Gi"}}}})");
  EXPECT_EQ(create(gold, "persistentvolumeclaims", "PersistentVolumeClaim"),
            "persistentvolumeclaims \"c\" is forbidden: insufficient quota to consume: "
            "gold.storageclass.storage.k8s.io/requests.storage");
  EXPECT_EQ(create(pod("ordinary")), "");
  json::object critical = pod("critical");
  critical["spec"].as_object()["priorityClassName"] = "critical";
  Attributes attributes;
  attributes.operation = Operation::Create;
  attributes.kind = {"", "v1", "Pod"};
  attributes.resource = {"", "v1", "pods"};
  attributes.namespace_ = "ns";
  attributes.name = "critical";
  attributes.object = &critical;
  try {
    io_.run(plugin_->validate(attributes));
    ADD_FAILURE() << "admitted";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
    EXPECT_EQ(error.status().reason, "");
    EXPECT_EQ(error.status().message, "insufficient quota to match these scopes: [{PriorityClass In [critical]}]");
  }

  add_quota("gold", R"({"gold.storageclass.storage.k8s.io/requests.storage":"10Gi"})",
            R"({"gold.storageclass.storage.k8s.io/requests.storage":"0"})");
  EXPECT_EQ(create(gold, "persistentvolumeclaims", "PersistentVolumeClaim"), "");
  add_quota("critical", R"({"pods":"5"})", R"({"pods":"0"})",
            R"(,"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["critical"]}]})");
  EXPECT_EQ(create(critical), "");
  EXPECT_EQ(used("critical"), parse(R"({"pods":"1"})"));
}

TEST_F(ResourceQuotaAdmissionTest, SubresourcesDeletesAndEventsAreNotItsConcern) {
  json::object object = pod("p");
  Attributes attributes;
  attributes.operation = Operation::Create;
  attributes.kind = {"", "v1", "Pod"};
  attributes.resource = {"", "v1", "pods"};
  attributes.namespace_ = "ns";
  attributes.object = &object;
  EXPECT_TRUE(plugin_->handles(attributes));
  attributes.subresource = "binding";
  EXPECT_FALSE(plugin_->handles(attributes));
  attributes.subresource = "";
  attributes.operation = Operation::Update;
  EXPECT_FALSE(plugin_->handles(attributes));  // pods are charged on create only in 1.32
  attributes.operation = Operation::Create;
  attributes.resource = {"", "v1", "events"};
  EXPECT_FALSE(plugin_->handles(attributes));
}

}  // namespace
}  // namespace resource_quota_test
}  // namespace kapi::admission

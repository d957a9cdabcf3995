// kube 1.32's bootstrap APF configuration and the config producer that keeps it: the objects and their values, the
// ensurer's decisions for mandatory and suggested objects (spec restored or left, autoupdate-spec annotation set),
// the removal of objects the bootstrap no longer has, and whole passes over real stores (embedded storage).
#include "server/apis/resource_storage.h"
#include "server/flowcontrol/bootstrap_configuration.h"
#include "server/apis/flowcontrol/config_producer.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>

namespace kapi::apis::apf::config_producer_test {
namespace {

using namespace ::kapi::flowcontrol;  // the bootstrap configuration the producer keeps

namespace json = boost::json;

std::vector<std::string> names(const std::vector<json::object>& objects) {
  std::vector<std::string> out;
  for (const auto& object : objects) out.emplace_back(registry::meta_string(object, "name"));
  return out;
}

const json::object& named(const std::vector<json::object>& objects, std::string_view name) {
  for (const auto& object : objects)
    if (registry::meta_string(object, "name") == name) return object;
  ADD_FAILURE() << "no " << name;
  return objects.front();
}

std::string annotation(const json::object& object) {
  const json::value* value = object.at("metadata").as_object().if_contains("annotations");
  const json::value* autoupdate = value && value->is_object() ? value->as_object().if_contains(kAutoUpdateAnnotation)
                                                              : nullptr;
  return autoupdate ? std::string(autoupdate->as_string()) : "<none>";
}

TEST(BootstrapConfigurationTest, Kube132Objects) {
  EXPECT_EQ(names(mandatory_priority_levels()), (std::vector<std::string>{"catch-all", "exempt"}));
  EXPECT_EQ(names(mandatory_flow_schemas()), (std::vector<std::string>{"exempt", "catch-all"}));
  EXPECT_EQ(names(suggested_priority_levels()),
            (std::vector<std::string>{"system", "node-high", "leader-election", "workload-high", "workload-low",
                                      "global-default"}));
  EXPECT_EQ(names(suggested_flow_schemas()),
            (std::vector<std::string>{"system-nodes", "system-node-high", "probes", "system-leader-election",
                                      "workload-leader-election", "endpoint-controller", "kube-controller-manager",
                                      "kube-scheduler", "kube-system-service-accounts", "service-accounts",
                                      "global-default"}));
  for (const auto& list : {mandatory_priority_levels(), mandatory_flow_schemas(), suggested_priority_levels(),
                           suggested_flow_schemas()}) {
    for (const auto& object : list) {
      EXPECT_EQ(object.at("apiVersion"), "flowcontrol.apiserver.k8s.io/v1");
      EXPECT_EQ(annotation(object), "true") << json::serialize(object);
    }
  }
  EXPECT_EQ(json::serialize(named(mandatory_priority_levels(), "exempt").at("spec")),
            R"({"type":"Exempt","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}})");
  EXPECT_EQ(json::serialize(named(mandatory_priority_levels(), "catch-all").at("spec")),
            R"({"type":"Limited","limited":{"nominalConcurrencyShares":5,"limitResponse":{"type":"Reject"},"lendablePercent":0}})");
  // Shares, lendable percents and queuing (queues, hand size, queue length limit) of each suggested level.
  std::map<std::string, std::string> levels;
  for (const auto& level : suggested_priority_levels()) {
    const json::object& limited = level.at("spec").at("limited").as_object();
    const json::object& queuing = limited.at("limitResponse").at("queuing").as_object();
    levels[std::string(registry::meta_string(level, "name"))] =
        json::serialize(limited.at("nominalConcurrencyShares")) + "/" + json::serialize(limited.at("lendablePercent")) +
        " " + json::serialize(queuing.at("queues")) + "," + json::serialize(queuing.at("handSize")) + "," +
        json::serialize(queuing.at("queueLengthLimit"));
  }
  EXPECT_EQ(levels, (std::map<std::string, std::string>{{"system", "30/33 64,6,50"},
                                                        {"node-high", "40/25 64,6,50"},
                                                        {"leader-election", "10/0 16,4,50"},
                                                        {"workload-high", "40/50 128,6,50"},
                                                        {"workload-low", "100/90 128,6,50"},
                                                        {"global-default", "20/50 128,6,50"}}));
  EXPECT_EQ(json::serialize(named(suggested_flow_schemas(), "probes").at("spec")),
            R"({"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":2,"rules":[{"subjects":[)"
            R"({"kind":"Group","group":{"name":"system:unauthenticated"}},{"kind":"Group","group":{"name":"system:authenticated"}}],)"
            R"("nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/readyz","/livez"]}]}]})");
  EXPECT_EQ(json::serialize(named(suggested_flow_schemas(), "endpoint-controller").at("spec")),
            R"({"priorityLevelConfiguration":{"name":"workload-high"},"matchingPrecedence":150,)"
            R"("distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[)"
            R"({"kind":"User","user":{"name":"system:kube-controller-manager"}},)"
            R"({"kind":"ServiceAccount","serviceAccount":{"namespace":"kube-system","name":"endpoint-controller"}},)"
            R"({"kind":"ServiceAccount","serviceAccount":{"namespace":"kube-system","name":"endpointslicemirroring-controller"}}],)"
            R"("resourceRules":[{"verbs":["get","create","update"],"apiGroups":[""],"resources":["endpoints"],"namespaces":["*"]}]}]})");
  EXPECT_EQ(json::serialize(named(mandatory_flow_schemas(), "exempt").at("spec")),
            R"({"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":1,"rules":[{"subjects":[)"
            R"({"kind":"Group","group":{"name":"system:masters"}}],"resourceRules":[{"verbs":["*"],"apiGroups":["*"],)"
            R"("resources":["*"],"clusterScope":true,"namespaces":["*"]}],"nonResourceRules":[{"verbs":["*"],)"
            R"("nonResourceURLs":["*"]}]}]})");
  ASSERT_NE(mandatory_priority_level("exempt"), nullptr);
  EXPECT_EQ(mandatory_priority_level("workload-low"), nullptr);
  ASSERT_NE(mandatory_flow_schema("catch-all"), nullptr);
  EXPECT_EQ(mandatory_flow_schema("probes"), nullptr);
}

// A stored object: the bootstrap one with its metadata as the store keeps it.
json::object stored(json::object object, std::int64_t generation, std::optional<std::string> autoupdate) {
  json::object& metadata = object["metadata"].as_object();
  metadata["generation"] = generation;
  metadata["uid"] = "u";
  if (autoupdate) metadata["annotations"] = json::object{{kAutoUpdateAnnotation, *autoupdate}};
  else metadata.erase("annotations");
  object["status"] = json::object();
  return object;
}

TEST(ConfigProducerTest, SuggestedObjectsFollowTheirAnnotation) {
  const json::object bootstrap = named(suggested_flow_schemas(), "service-accounts");
  json::object changed = bootstrap;
  changed["spec"].as_object()["matchingPrecedence"] = 8000;

  // Auto-updated: the spec comes back, the annotation stays.
  auto revised = revise_flow_schema(stored(changed, 2, "true"), bootstrap, EnsureStrategy::Suggested);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec"), bootstrap.at("spec"));
  EXPECT_EQ(annotation(*revised), "true");
  EXPECT_EQ(revised->at("metadata").at("uid"), "u");  // the stored object, revised
  // Up to date: nothing to write.
  EXPECT_FALSE(revise_flow_schema(stored(bootstrap, 5, "true"), bootstrap, EnsureStrategy::Suggested));
  // The operator's "false" (or any ParseBool false) keeps their spec.
  EXPECT_FALSE(revise_flow_schema(stored(changed, 2, "false"), bootstrap, EnsureStrategy::Suggested));
  EXPECT_FALSE(revise_flow_schema(stored(changed, 2, "F"), bootstrap, EnsureStrategy::Suggested));
  // Without an annotation, generation 1 means never changed: updated, and annotated "true".
  revised = revise_flow_schema(stored(changed, 1, std::nullopt), bootstrap, EnsureStrategy::Suggested);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec"), bootstrap.at("spec"));
  EXPECT_EQ(annotation(*revised), "true");
  // ... a later generation means the operator changed it: only annotated "false".
  revised = revise_flow_schema(stored(changed, 3, std::nullopt), bootstrap, EnsureStrategy::Suggested);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec").at("matchingPrecedence"), 8000);
  EXPECT_EQ(annotation(*revised), "false");
  // A value that is no boolean counts as missing, and is replaced.
  revised = revise_flow_schema(stored(bootstrap, 1, "maybe"), bootstrap, EnsureStrategy::Suggested);
  ASSERT_TRUE(revised);
  EXPECT_EQ(annotation(*revised), "true");
  revised = revise_flow_schema(stored(changed, 4, "maybe"), bootstrap, EnsureStrategy::Suggested);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec").at("matchingPrecedence"), 8000);
  EXPECT_EQ(annotation(*revised), "false");
}

TEST(ConfigProducerTest, MandatoryObjectsAreAlwaysRestored) {
  const json::object bootstrap = named(mandatory_priority_levels(), "catch-all");
  json::object changed = bootstrap;
  changed["spec"].as_object()["limited"].as_object()["nominalConcurrencyShares"] = 50;
  auto revised = revise_priority_level(stored(changed, 7, "false"), bootstrap, EnsureStrategy::Mandatory);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec"), bootstrap.at("spec"));
  EXPECT_EQ(annotation(*revised), "true");  // the operator's "false" is stomped
  // The annotation alone.
  revised = revise_priority_level(stored(bootstrap, 3, std::nullopt), bootstrap, EnsureStrategy::Mandatory);
  ASSERT_TRUE(revised);
  EXPECT_EQ(annotation(*revised), "true");
  EXPECT_FALSE(revise_priority_level(stored(bootstrap, 3, "true"), bootstrap, EnsureStrategy::Mandatory));
  // Defaults the store added do not count as a difference.
  json::object defaulted = bootstrap;
  defaulted["spec"].as_object()["limited"].as_object().erase("lendablePercent");
  EXPECT_FALSE(revise_priority_level(stored(bootstrap, 1, "true"), defaulted, EnsureStrategy::Mandatory));

  // spec.exempt of the exempt level is the operator's.
  const json::object exempt = named(mandatory_priority_levels(), "exempt");
  json::object tuned = exempt;
  tuned["spec"].as_object()["exempt"] = json::object{{"nominalConcurrencyShares", 10}, {"lendablePercent", 20}};
  EXPECT_FALSE(revise_priority_level(stored(tuned, 2, "true"), exempt, EnsureStrategy::Mandatory));
  json::object without = exempt;
  without["spec"].as_object().erase("exempt");
  revised = revise_priority_level(stored(without, 2, "true"), exempt, EnsureStrategy::Mandatory);
  ASSERT_TRUE(revised);
  EXPECT_EQ(revised->at("spec"), exempt.at("spec"));
}

TEST(ConfigProducerTest, UnwantedObjectsAreTheBootstrapOwnedOnes) {
  const auto bootstrap = suggested_flow_schemas();
  auto object = [](std::string_view name, std::optional<std::string> autoupdate) {
    json::object out{{"metadata", json::object{{"name", name}}}};
    if (autoupdate) out["metadata"].as_object()["annotations"] = json::object{{kAutoUpdateAnnotation, *autoupdate}};
    return out;
  };
  EXPECT_TRUE(is_unwanted(object("retired", "true"), bootstrap));
  EXPECT_TRUE(is_unwanted(object("retired", "1"), bootstrap));
  EXPECT_FALSE(is_unwanted(object("retired", "false"), bootstrap));
  EXPECT_FALSE(is_unwanted(object("retired", "yes"), bootstrap));  // malformed: left for the operator
  EXPECT_FALSE(is_unwanted(object("mine", std::nullopt), bootstrap));
  EXPECT_FALSE(is_unwanted(object("probes", "true"), bootstrap));
}

// The two resources' registry Stores over an embedded store, without the watch cache.
class ConfigProducerStoreTest : public ::testing::Test {
 protected:
  ConfigProducerStoreTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    apis::ResourceStorage schemas = apis::flowschemas();
    apis::ResourceStorage levels = apis::prioritylevelconfigurations();
    flow_schemas_ = std::make_unique<registry::Store>(schemas.definition, schemas.strategy, *backend_);
    priority_levels_ = std::make_unique<registry::Store>(levels.definition, levels.strategy, *backend_);
  }

  ConfigStores stores() { return {*flow_schemas_, *priority_levels_}; }
  void ensure() { io_.run(ensure_configuration(stores())); }

  // name → the stored object.
  std::map<std::string, json::object> all(registry::Store& store) {
    registry::ObjectList list = io_.run(store.list("", registry::ListRequest{}));
    std::map<std::string, json::object> out;
    for (const auto& item : list.items) {
      json::object object = *registry::parse_json_object(item.json);
      out[std::string(registry::meta_string(object, "name"))] = std::move(object);
    }
    return out;
  }
  // Stores `change` of the current object as an operator would (or, with `bypass`, as an older server wrote it).
  void change(registry::Store& store, const std::string& name, std::function<void(json::object&)> change,
              bool bypass = false) {
    registry::UpdateFunction update = [change](const json::object* current) {
      json::object object = *current;
      change(object);
      return object;
    };
    io_.run(store.update("", name, update, registry::WriteOptions{.bypass_strategy_validation = bypass}));
  }

  test_support::TempDir dir_{"kapi-apf-producer"};
  test_support::IoThread io_;
  std::unique_ptr<storage::embedded::Store> backend_;
  std::unique_ptr<registry::Store> flow_schemas_;
  std::unique_ptr<registry::Store> priority_levels_;
};

std::int64_t generation(const json::object& object) { return object.at("metadata").at("generation").as_int64(); }

TEST_F(ConfigProducerStoreTest, PassesCreateRestoreKeepAndRemove) {
  ensure();
  auto schemas = all(*flow_schemas_);
  auto levels = all(*priority_levels_);
  EXPECT_EQ(schemas.size(), 13u);
  EXPECT_EQ(levels.size(), 8u);
  for (const auto& [name, object] : schemas) {
    EXPECT_EQ(generation(object), 1) << name;
    EXPECT_EQ(annotation(object), "true") << name;
    EXPECT_EQ(object.at("status"), json::object()) << name;
  }
  EXPECT_EQ(levels.at("exempt").at("spec"), named(mandatory_priority_levels(), "exempt").at("spec"));

  // A second pass writes nothing.
  const std::string before = json::serialize(schemas.at("global-default")) + json::serialize(levels.at("system"));
  ensure();
  EXPECT_EQ(json::serialize(all(*flow_schemas_).at("global-default")) + json::serialize(all(*priority_levels_).at("system")),
            before);

  // The operator deletes a suggested object, opts another out and changes it, changes a third without opting out,
  // tunes the exempt level, breaks catch-all (as an older server could have stored it) and stops auto-updating a
  // mandatory object; an object of theirs, one the bootstrap no longer has and one of those opted out are added.
  io_.run(flow_schemas_->remove("", "global-default", registry::DeleteOptions{}));
  change(*flow_schemas_, "service-accounts", [](json::object& object) {
    object["metadata"].as_object()["annotations"].as_object()[kAutoUpdateAnnotation] = "false";
    object["spec"].as_object()["matchingPrecedence"] = 8000;
  });
  change(*priority_levels_, "workload-low", [](json::object& object) {
    object["spec"].as_object()["limited"].as_object()["nominalConcurrencyShares"] = 7;
  });
  change(*priority_levels_, "exempt", [](json::object& object) {
    object["spec"].as_object()["exempt"].as_object()["nominalConcurrencyShares"] = 40;
  });
  change(*priority_levels_, "catch-all", [](json::object& object) {
    object["spec"].as_object()["limited"].as_object()["nominalConcurrencyShares"] = 50;
  }, true);
  change(*flow_schemas_, "exempt", [](json::object& object) {
    object["metadata"].as_object()["annotations"].as_object()[kAutoUpdateAnnotation] = "false";
  });
  auto create = [&](std::string_view name, std::optional<std::string> autoupdate) {
    json::object object = named(suggested_flow_schemas(), "service-accounts");
    object["metadata"].as_object()["name"] = name;
    if (autoupdate) object["metadata"].as_object()["annotations"].as_object()[kAutoUpdateAnnotation] = *autoupdate;
    else object["metadata"].as_object().erase("annotations");
    io_.run(flow_schemas_->create("", object, registry::WriteOptions{}));
  };
  create("mine", std::nullopt);
  create("retired", "true");
  create("kept", "false");
  ensure();

  schemas = all(*flow_schemas_);
  levels = all(*priority_levels_);
  EXPECT_TRUE(schemas.contains("global-default"));  // recreated
  EXPECT_EQ(generation(schemas.at("global-default")), 1);
  EXPECT_EQ(schemas.at("service-accounts").at("spec").at("matchingPrecedence"), 8000);  // opted out: left alone
  EXPECT_EQ(annotation(schemas.at("service-accounts")), "false");
  // Changed but still annotated "true": the bootstrap spec comes back (a new generation).
  EXPECT_EQ(levels.at("workload-low").at("spec"), named(suggested_priority_levels(), "workload-low").at("spec"));
  EXPECT_EQ(generation(levels.at("workload-low")), 3);
  EXPECT_EQ(levels.at("exempt").at("spec").at("exempt").at("nominalConcurrencyShares"), 40);  // the operator's
  EXPECT_EQ(levels.at("catch-all").at("spec"), named(mandatory_priority_levels(), "catch-all").at("spec"));
  EXPECT_EQ(annotation(schemas.at("exempt")), "true");  // mandatory: always auto-updated
  EXPECT_TRUE(schemas.contains("mine"));
  EXPECT_FALSE(schemas.contains("retired"));
  EXPECT_TRUE(schemas.contains("kept"));
}

}  // namespace
}  // namespace kapi::apis::apf::config_producer_test

// FlowSchemas and PriorityLevelConfigurations as kube's flowcontrol registries keep them: the v1 defaults,
// ValidateFlowSchema and ValidatePriorityLevelConfiguration word for word (field paths, Go's %#v of values, the
// mandatory objects' fixed specs), the strategies' status handling, and the printers' columns, cells and order.
#include "base/name_validation.h"
#include "server/apis/flowcontrol/flowcontrol_validation.h"
#include "server/apis/resource_storage.h"
#include "server/flowcontrol/bootstrap_configuration.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::flowcontrol_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

// What the Store does with a new object before validating it: the strategy's create preparation, then validation.
std::string create_errors(const ResourceStorage& storage, json::object object) {
  storage.strategy->prepare_for_create(object);
  return messages(storage.strategy->validate(object));
}

const json::object& named(const std::vector<json::object>& objects, std::string_view name) {
  for (const auto& object : objects)
    if (object.at("metadata").at("name").as_string() == name) return object;
  ADD_FAILURE() << "no " << name;
  return objects.front();
}

TEST(FlowcontrolDefinitionsTest, ServedAsKube) {
  for (const ResourceStorage& storage : {flowschemas(), prioritylevelconfigurations()}) {
    const auto& definition = storage.definition;
    EXPECT_EQ(definition.group_version(), "flowcontrol.apiserver.k8s.io/v1");
    EXPECT_FALSE(definition.namespaced) << definition.resource;
    EXPECT_TRUE(definition.short_names.empty()) << definition.resource;
    EXPECT_TRUE(definition.categories.empty()) << definition.resource;
    EXPECT_EQ(definition.subresources, std::vector<std::string>{"status"});
    EXPECT_TRUE(definition.storage_resource.empty() || definition.storage_resource == definition.resource);
    EXPECT_TRUE(storage.strategy->tracks_generation());
    EXPECT_FALSE(storage.strategy->allow_create_on_update());
  }
  EXPECT_EQ(flowschemas().definition.kind, "FlowSchema");
  EXPECT_EQ(flowschemas().definition.singular, "flowschema");
  EXPECT_EQ(prioritylevelconfigurations().definition.kind, "PriorityLevelConfiguration");
  EXPECT_EQ(prioritylevelconfigurations().definition.singular, "prioritylevelconfiguration");
}

TEST(FlowcontrolDefaultsTest, FlowSchemaMatchingPrecedence) {
  const ResourceStorage storage = flowschemas();
  json::object absent = parse(R"({"metadata":{"name":"a"},"spec":{"priorityLevelConfiguration":{"name":"x"}},
                                  "status":{"conditions":[{"type":"Dangling","status":"False"}]}})");
  storage.strategy->prepare_for_create(absent);
  EXPECT_EQ(absent.at("spec").at("matchingPrecedence"), 1000);
  EXPECT_EQ(absent.at("status"), json::object());  // PrepareForCreate clears the status
  json::object zero = parse(R"({"spec":{"matchingPrecedence":0}})");
  apf::apply_flow_schema_defaults(zero);
  EXPECT_EQ(zero.at("spec").at("matchingPrecedence"), 1000);
  json::object set = parse(R"({"spec":{"matchingPrecedence":42}})");
  apf::apply_flow_schema_defaults(set);
  EXPECT_EQ(set.at("spec").at("matchingPrecedence"), 42);
}

TEST(FlowcontrolDefaultsTest, PriorityLevelShares) {
  json::object limited = parse(R"({"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{}}}}})");
  apf::apply_priority_level_defaults(limited);
  EXPECT_EQ(json::serialize(limited.at("spec")),
            R"({"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":8,)"
            R"("queueLengthLimit":50}},"nominalConcurrencyShares":30,"lendablePercent":0}})");
  // A v1 pointer: an explicit zero stays (a "jail" level); a queuing zero is "not set" and takes the default.
  json::object zero = parse(R"({"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"lendablePercent":7,
                              "limitResponse":{"type":"Queue","queuing":{"queues":0,"handSize":3}}}}})");
  apf::apply_priority_level_defaults(zero);
  EXPECT_EQ(zero.at("spec").at("limited").at("nominalConcurrencyShares"), 0);
  EXPECT_EQ(zero.at("spec").at("limited").at("lendablePercent"), 7);
  EXPECT_EQ(json::serialize(zero.at("spec").at("limited").at("limitResponse").at("queuing")),
            R"({"queues":64,"handSize":3,"queueLengthLimit":50})");
  // Reject has no queuing to default; an exempt level's fields default to 0, and only when it has the struct.
  json::object reject = parse(R"({"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}})");
  apf::apply_priority_level_defaults(reject);
  EXPECT_EQ(json::serialize(reject.at("spec").at("limited").at("limitResponse")), R"({"type":"Reject"})");
  json::object exempt = parse(R"({"spec":{"type":"Exempt","exempt":{}}})");
  apf::apply_priority_level_defaults(exempt);
  EXPECT_EQ(json::serialize(exempt.at("spec")), R"({"type":"Exempt","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}})");
  json::object bare = parse(R"({"spec":{"type":"Exempt"}})");
  apf::apply_priority_level_defaults(bare);
  EXPECT_EQ(json::serialize(bare.at("spec")), R"({"type":"Exempt"})");
}

TEST(FlowSchemaValidationTest, SpecAndRules) {
  const ResourceStorage storage = flowschemas();
  json::object schema = parse(R"({"metadata":{"name":"fs"},"spec":{"matchingPrecedence":10001,
      "priorityLevelConfiguration":{"name":""},"distinguisherMethod":{"type":"ByFoo"},
      "rules":[{"subjects":[],
                "resourceRules":[{"verbs":["get","frob"],"apiGroups":["*","apps"],"resources":[],"namespaces":["-x"]}],
                "nonResourceRules":[{"verbs":["*","get"],"nonResourceURLs":["healthz","/a b","/a//b","/a/*/b","/","/ok/*"]}]}]}})");
  const std::string label_message = validation::is_dns1123_label("-x").at(0);
  EXPECT_EQ(create_errors(storage, schema),
            "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000\n"
            "spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:\"ByFoo\"}: "
            "supported values: \"ByNamespace\", \"ByUser\"\n"
            "spec.priorityLevelConfiguration.name: Required value: must reference a priority level\n"
            "spec.rules[0].subjects: Required value: subjects must contain at least one value\n"
            "spec.rules[0].resourceRules[0].verbs: Unsupported value: []string{\"get\", \"frob\"}: supported values: "
            "\"create\", \"delete\", \"deletecollection\", \"get\", \"list\", \"patch\", \"proxy\", \"update\", \"watch\"\n"
            "spec.rules[0].resourceRules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, "
            "must not specify other api groups\n"
            "spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource\n"
            "spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: \"-x\": each member of this list must be '*' "
            "or a DNS-1123 label; " + label_message + "\n"
            "spec.rules[0].nonResourceRules[0].verbs: Invalid value: []string{\"*\", \"get\"}: if '*' is present, must "
            "not specify other verbs\n"
            "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: \"healthz\": must start with slash\n"
            "spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: \"/a b\": must not contain white-space\n"
            "spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: \"/a//b\": must not contain double slash\n"
            "spec.rules[0].nonResourceRules[0].nonResourceURLs[3]: Invalid value: \"/a/*/b\": wildcard can only do "
            "suffix matching\n");

  json::object precedence = parse(R"({"metadata":{"name":"fred"},"spec":{"matchingPrecedence":1,
      "priorityLevelConfiguration":{"name":"Bad_Level"},
      "rules":[{"subjects":[{"kind":"User","user":{"name":"noxu"}}]},
               {"subjects":[{"kind":"Group","group":{"name":"g"}}],
                "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*","pods"]},
                                 {"verbs":["*"],"apiGroups":[""],"resources":["pods"],"namespaces":["a","*"]},
                                 {"verbs":["*"],"apiGroups":[""],"resources":["nodes"],"clusterScope":true}]}]}})");
  const std::string subdomain_message = validation::is_dns1123_subdomain("Bad_Level").at(0);
  EXPECT_EQ(create_errors(storage, precedence),
            "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1\n"
            "spec.priorityLevelConfiguration.name: Invalid value: \"Bad_Level\": " + subdomain_message + "\n"
            "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty\n"
            "spec.rules[1].resourceRules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, "
            "must not specify other resources\n"
            "spec.rules[1].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped "
            "must supply at least one namespace\n"
            "spec.rules[1].resourceRules[1].namespaces: Invalid value: []string{\"a\", \"*\"}: if '*' is present, "
            "must not specify other namespaces\n");

  json::object negative = parse(R"({"metadata":{"name":"neg"},"spec":{"matchingPrecedence":-3,
      "priorityLevelConfiguration":{"name":"x"},
      "rules":[{"subjects":[{"kind":"User","user":{"name":"u"}}],"nonResourceRules":[{"verbs":[],"nonResourceURLs":[]}]}]}})");
  EXPECT_EQ(create_errors(storage, negative),
            "spec.matchingPrecedence: Invalid value: -3: must be a positive value\n"
            "spec.rules[0].nonResourceRules[0].verbs: Required value: verbs must contain at least one value\n"
            "spec.rules[0].nonResourceRules[0].nonResourceURLs: Required value: nonResourceURLs must contain at least "
            "one value\n");
}

TEST(FlowSchemaValidationTest, SubjectUnion) {
  const ResourceStorage storage = flowschemas();
  json::object schema = parse(R"({"metadata":{"name":"subjects"},"spec":{"priorityLevelConfiguration":{"name":"x"},
      "rules":[{"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}],"subjects":[
        {"kind":"ServiceAccount","user":{"name":"u"}},
        {"kind":"User","user":{"name":""},"group":{"name":"g"}},
        {"kind":"Group","serviceAccount":{"namespace":"n","name":"s"}},
        {"kind":"Robot"},
        {"kind":"ServiceAccount","serviceAccount":{"name":"Bad_Name","namespace":""}},
        {"kind":"ServiceAccount","serviceAccount":{"name":"*","namespace":"kube-system"}}]}]}})");
  const std::string subdomain_message = validation::is_dns1123_subdomain("Bad_Name").at(0);
  EXPECT_EQ(create_errors(storage, schema),
            "spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind "
            "is 'ServiceAccount'\n"
            "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'\n"
            "spec.rules[0].subjects[1].user.name: Required value\n"
            "spec.rules[0].subjects[1].group: Forbidden: group is forbidden when subject kind is not 'Group'\n"
            "spec.rules[0].subjects[2].group: Required value: group is required when subject kind is 'Group'\n"
            "spec.rules[0].subjects[2].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is "
            "not 'ServiceAccount'\n"
            "spec.rules[0].subjects[3].kind: Unsupported value: \"Robot\": supported values: \"Group\", "
            "\"ServiceAccount\", \"User\"\n"
            "spec.rules[0].subjects[4].serviceAccount.name: Invalid value: \"Bad_Name\": " + subdomain_message + "\n"
            "spec.rules[0].subjects[4].serviceAccount.namespace: Required value: must specify namespace for service "
            "account\n");
}

TEST(FlowSchemaValidationTest, StatusConditions) {
  const ResourceStorage storage = flowschemas();
  json::object schema = parse(R"({"metadata":{"name":"s"},"spec":{"matchingPrecedence":500,
      "priorityLevelConfiguration":{"name":"x"},
      "rules":[{"subjects":[{"kind":"Group","group":{"name":"g"}}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/"]}]}]},
      "status":{"conditions":[{"type":"1"},{"type":"1"},{"status":"True"}]}})");
  EXPECT_EQ(messages(storage.strategy->validate(schema)),
            "status.conditions[1].type: Duplicate value: \"1\"\n"
            "status.conditions[2].type: Required value: must not be empty\n");
}

TEST(FlowSchemaValidationTest, MandatorySpecsAreFixed) {
  const ResourceStorage storage = flowschemas();
  for (const auto& bootstrap : {flowcontrol::mandatory_flow_schemas(), flowcontrol::suggested_flow_schemas()})
    for (const auto& object : bootstrap)
      EXPECT_EQ(create_errors(storage, object), "") << json::serialize(object);

  json::object catch_all = named(flowcontrol::mandatory_flow_schemas(), "catch-all");
  catch_all["spec"].as_object()["matchingPrecedence"] = 9000;
  EXPECT_EQ(create_errors(storage, catch_all),
            "spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:"
            "flowcontrol.PriorityLevelConfigurationReference{Name:\"catch-all\"}, MatchingPrecedence:9000, "
            "DistinguisherMethod:&flowcontrol.FlowDistinguisherMethod{Type:\"ByUser\"}, "
            "Rules:[]flowcontrol.PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{"
            "Subjects:[]flowcontrol.Subject{flowcontrol.Subject{Kind:\"Group\", User:(*flowcontrol.UserSubject)(nil), "
            "Group:&flowcontrol.GroupSubject{Name:\"system:unauthenticated\"}, "
            "ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}, flowcontrol.Subject{Kind:\"Group\", "
            "User:(*flowcontrol.UserSubject)(nil), Group:&flowcontrol.GroupSubject{Name:\"system:authenticated\"}, "
            "ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}}, "
            "ResourceRules:[]flowcontrol.ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string{\"*\"}, "
            "APIGroups:[]string{\"*\"}, Resources:[]string{\"*\"}, ClusterScope:true, Namespaces:[]string{\"*\"}}}, "
            "NonResourceRules:[]flowcontrol.NonResourcePolicyRule{flowcontrol.NonResourcePolicyRule{"
            "Verbs:[]string{\"*\"}, NonResourceURLs:[]string{\"*\"}}}}}}: spec of 'catch-all' must equal the fixed "
            "value\n");
  // Semantic equality: a null pointer is a nil one, and the order of keys does not count.
  json::object exempt = named(flowcontrol::mandatory_flow_schemas(), "exempt");
  json::object& spec = exempt["spec"].as_object();
  json::object reordered;
  for (auto it = spec.end(); it != spec.begin();) {
    --it;
    reordered[it->key()] = it->value();
  }
  reordered["distinguisherMethod"] = nullptr;
  spec = std::move(reordered);
  EXPECT_EQ(create_errors(storage, exempt), "");
  // A FlowSchema named exempt with another spec is refused; with nil rules it prints them as Go's nil slice.
  json::object other = parse(R"({"metadata":{"name":"exempt"},"spec":{"matchingPrecedence":1,
                               "priorityLevelConfiguration":{"name":"exempt"}}})");
  EXPECT_EQ(create_errors(storage, other),
            "spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:"
            "flowcontrol.PriorityLevelConfigurationReference{Name:\"exempt\"}, MatchingPrecedence:1, "
            "DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(nil), "
            "Rules:[]flowcontrol.PolicyRulesWithSubjects(nil)}: spec of 'exempt' must equal the fixed value\n");
}

json::object level(std::string_view name, std::string_view spec) {
  return parse(R"({"metadata":{"name":")" + std::string(name) + R"("},"spec":)" + std::string(spec) + "}");
}

TEST(PriorityLevelValidationTest, LimitedLevels) {
  const ResourceStorage storage = prioritylevelconfigurations();
  auto queuing = [&](std::string_view queuing) {
    return create_errors(storage, level("system-foo", R"({"type":"Limited","limited":{"nominalConcurrencyShares":100,
        "limitResponse":{"type":"Queue","queuing":)" + std::string(queuing) + "}}}"));
  };
  EXPECT_EQ(queuing(R"({"queues":512,"handSize":4,"queueLengthLimit":100})"), "");
  EXPECT_EQ(queuing(R"({"queues":512,"handSize":8,"queueLengthLimit":100})"),
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 512 and "
            "handSize 8 should not be greater than 60\n");
  EXPECT_EQ(queuing(R"({"queues":128,"handSize":10,"queueLengthLimit":100})"),
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 128 and "
            "handSize 10 should not be greater than 60\n");
  EXPECT_EQ(queuing(R"({"queues":2147483647,"handSize":3,"queueLengthLimit":100})"),
            "spec.limited.limitResponse.queuing.queues: Invalid value: 2147483647: must not be greater than 10000000\n"
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy bits of deckSize "
            "2147483647 and handSize 3 should not be greater than 60\n");
  EXPECT_EQ(queuing(R"({"queues":10000000,"handSize":2,"queueLengthLimit":100})"), "");
  EXPECT_EQ(queuing(R"({"queues":7,"handSize":8,"queueLengthLimit":100})"),
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (7)\n");
  EXPECT_EQ(queuing(R"({"queues":-1,"handSize":-2,"queueLengthLimit":-3})"),
            "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -3: must be positive\n"
            "spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive\n"
            "spec.limited.limitResponse.queuing.handSize: Invalid value: -2: must be positive\n");

  auto limited = [&](std::string_view fields) {
    return create_errors(storage, level("l", R"({"type":"Limited","limited":{)" + std::string(fields) + "}}"));
  };
  // Zero shares make a "jail" level and are allowed; negative ones are not.
  EXPECT_EQ(limited(R"("nominalConcurrencyShares":0,"limitResponse":{"type":"Reject"})"), "");
  EXPECT_EQ(limited(R"("nominalConcurrencyShares":-1,"lendablePercent":101,"borrowingLimitPercent":-1,
                       "limitResponse":{"type":"Reject","queuing":{"queues":1,"handSize":1,"queueLengthLimit":1}})"),
            "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer\n"
            "spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited\n"
            "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive\n"
            "spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer\n");
  EXPECT_EQ(limited(R"("lendablePercent":-1,"borrowingLimitPercent":300,"limitResponse":{"type":"Queue"})"),
            "spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is "
            "Limited\n"
            "spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive\n");
  EXPECT_EQ(limited(R"("limitResponse":{"type":"Drop"})"),
            "spec.limited.limitResponse.type: Unsupported value: \"Drop\": supported values: \"Queue\", \"Reject\"\n");
}

TEST(PriorityLevelValidationTest, TypesAndUnions) {
  const ResourceStorage storage = prioritylevelconfigurations();
  EXPECT_EQ(create_errors(storage, level("broken", R"({"type":"Limited","exempt":{}})")),
            "spec.exempt: Forbidden: must be nil if the type is Limited\n"
            "spec.limited: Required value: must not be empty when type is Limited\n");
  EXPECT_EQ(create_errors(storage, level("other", R"({"type":"Other"})")),
            "spec.type: Unsupported value: \"Other\": supported values: \"Exempt\", \"Limited\"\n");
  EXPECT_EQ(create_errors(storage, level("not-exempt", R"({"type":"Exempt"})")),
            "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'\n");
  json::object annotated = level("annotated", R"({"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}})");
  annotated["metadata"].as_object()["annotations"] =
      json::object{{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares", ""}};
  EXPECT_EQ(create_errors(storage, annotated),
            "metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' "
            "is forbidden\n");
  json::object conditions = level("c", R"({"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}})");
  conditions["status"] = json::parse(R"({"conditions":[{"type":"A"},{"type":"A"}]})");
  const json::object stored = conditions;
  storage.strategy->prepare_for_update(conditions, stored);  // an update keeps the stored status
  EXPECT_EQ(messages(storage.strategy->validate(conditions)), "status.conditions[1].type: Duplicate value: \"A\"\n");
}

TEST(PriorityLevelValidationTest, MandatoryLevels) {
  const ResourceStorage storage = prioritylevelconfigurations();
  for (const auto& bootstrap : {flowcontrol::mandatory_priority_levels(), flowcontrol::suggested_priority_levels()})
    for (const auto& object : bootstrap)
      EXPECT_EQ(create_errors(storage, object), "") << json::serialize(object);

  // The operator may change spec.exempt of the exempt level, within its own bounds, and nothing else.
  EXPECT_EQ(create_errors(storage, level("exempt", R"({"type":"Exempt","exempt":{"nominalConcurrencyShares":10,
                                                       "lendablePercent":10}})")), "");
  EXPECT_EQ(create_errors(storage, level("exempt", R"({"type":"Exempt"})")), "");
  EXPECT_EQ(create_errors(storage, level("exempt", R"({"type":"Exempt","exempt":{"nominalConcurrencyShares":-1,
                                                       "lendablePercent":101}})")),
            "spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer\n"
            "spec.exempt.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive\n");
  EXPECT_EQ(create_errors(storage, level("exempt", R"({"type":"Limited","limited":{"nominalConcurrencyShares":42,
                                                       "limitResponse":{"type":"Reject"}}})")),
            "spec.type: Invalid value: \"Limited\": type must be 'Exempt' if and only if name is 'exempt'\n"
            "spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", "
            "Limited:&flowcontrol.LimitedPriorityLevelConfiguration{NominalConcurrencyShares:42, "
            "LimitResponse:flowcontrol.LimitResponse{Type:\"Reject\", Queuing:(*flowcontrol.QueuingConfiguration)(nil)}, "
            "LendablePercent:(*int32)(0), BorrowingLimitPercent:(*int32)(nil)}, "
            "Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of 'exempt' except the 'spec.exempt' "
            "field must equal the fixed value\n");
  EXPECT_EQ(create_errors(storage, level("catch-all", R"({"type":"Limited","limited":{"nominalConcurrencyShares":42,
                                                          "limitResponse":{"type":"Queue","queuing":{}}}})")),
            "spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", "
            "Limited:&flowcontrol.LimitedPriorityLevelConfiguration{NominalConcurrencyShares:42, "
            "LimitResponse:flowcontrol.LimitResponse{Type:\"Queue\", Queuing:&flowcontrol.QueuingConfiguration{"
            "Queues:64, HandSize:8, QueueLengthLimit:50}}, LendablePercent:(*int32)(0), "
            "BorrowingLimitPercent:(*int32)(nil)}, Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: "
            "spec of 'catch-all' must equal the fixed value\n");
  // catch-all as kube's fixed value: 5 shares, nothing lent, rejecting; the default lendablePercent completes it.
  EXPECT_EQ(create_errors(storage, level("catch-all", R"({"type":"Limited","limited":{"nominalConcurrencyShares":5,
                                                          "limitResponse":{"type":"Reject"}}})")), "");
}

TEST(FlowcontrolStrategyTest, UpdatesKeepTheStoredStatus) {
  for (const ResourceStorage& storage : {flowschemas(), prioritylevelconfigurations()}) {
    json::object old = parse(R"({"metadata":{"name":"x"},"spec":{},"status":{"conditions":[{"type":"Dangling"}]}})");
    json::object updated = parse(R"({"metadata":{"name":"x"},"spec":{},"status":{"conditions":[]}})");
    storage.strategy->prepare_for_update(updated, old);
    EXPECT_EQ(updated.at("status"), old.at("status")) << storage.definition.resource;
    json::object without = parse(R"({"metadata":{"name":"x"},"spec":{}})");
    json::object with_status = parse(R"({"metadata":{"name":"x"},"spec":{},"status":{"conditions":[]}})");
    storage.strategy->prepare_for_update(with_status, without);
    EXPECT_FALSE(with_status.contains("status")) << storage.definition.resource;
  }
}

std::vector<std::string> column_names(const registry::Strategy& strategy) {
  std::vector<std::string> names;
  for (const auto& column : strategy.table_columns()) names.push_back(column.name + (column.priority ? "*" : ""));
  return names;
}

TEST(FlowcontrolPrinterTest, FlowSchemaColumnsCellsAndOrder) {
  const ResourceStorage storage = flowschemas();
  EXPECT_EQ(column_names(*storage.strategy),
            (std::vector<std::string>{"Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age",
                                      "MissingPL"}));
  for (const auto& column : storage.strategy->table_columns()) EXPECT_EQ(column.type, "string") << column.name;
  json::object probes = named(flowcontrol::suggested_flow_schemas(), "probes");
  storage.strategy->prepare_for_create(probes);
  json::array cells = storage.strategy->table_cells(probes);
  EXPECT_EQ(cells[0], "probes");
  EXPECT_EQ(cells[1], "exempt");
  EXPECT_EQ(cells[2], 2);
  EXPECT_EQ(cells[3], "<none>");
  EXPECT_EQ(cells[5], "?");  // no Dangling condition yet
  json::object nodes = named(flowcontrol::suggested_flow_schemas(), "system-nodes");
  nodes["status"] = json::parse(R"({"conditions":[{"type":"Other","status":"True"},{"type":"Dangling","status":"False"}]})");
  cells = storage.strategy->table_cells(nodes);
  EXPECT_EQ(cells[3], "ByUser");
  EXPECT_EQ(cells[5], "False");

  // printFlowSchemaList: by matching precedence, then by name.
  std::vector<json::object> rows = flowcontrol::suggested_flow_schemas();
  for (const auto& object : flowcontrol::mandatory_flow_schemas()) rows.push_back(object);
  storage.strategy->order_table_rows(rows);
  std::vector<std::string> order;
  for (const auto& row : rows) order.emplace_back(row.at("metadata").at("name").as_string());
  EXPECT_EQ(order, (std::vector<std::string>{"exempt", "probes", "system-leader-election", "endpoint-controller",
                                             "workload-leader-election", "system-node-high", "system-nodes",
                                             "kube-controller-manager", "kube-scheduler",
                                             "kube-system-service-accounts", "service-accounts", "global-default",
                                             "catch-all"}));
}

TEST(FlowcontrolPrinterTest, PriorityLevelColumnsAndCells) {
  const ResourceStorage storage = prioritylevelconfigurations();
  EXPECT_EQ(column_names(*storage.strategy),
            (std::vector<std::string>{"Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize",
                                      "QueueLengthLimit", "Age"}));
  auto cells = [&](const json::object& object) {
    json::array row = storage.strategy->table_cells(object);
    row.pop_back();  // Age
    return json::serialize(row);
  };
  EXPECT_EQ(cells(named(flowcontrol::mandatory_priority_levels(), "exempt")),
            R"(["exempt","Exempt","<none>","<none>","<none>","<none>"])");
  EXPECT_EQ(cells(named(flowcontrol::mandatory_priority_levels(), "catch-all")),
            R"(["catch-all","Limited",5,"<none>","<none>","<none>"])");
  EXPECT_EQ(cells(named(flowcontrol::suggested_priority_levels(), "leader-election")),
            R"(["leader-election","Limited",10,16,4,50])");
}

}  // namespace
}  // namespace kapi::apis::flowcontrol_test

#include "server/flowcontrol/configuration.h"

#include "base/json_fields.h"

namespace kapi::flowcontrol {
namespace {

namespace json = boost::json;
using base::fields::array_at;
using base::fields::int_at;
using base::fields::object_at;
using base::fields::string_at;

std::vector<std::string> strings_at(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* values = array_at(object, key))
    for (const auto& value : *values)
      if (value.is_string()) out.emplace_back(value.get_string());
  return out;
}

int int_or(const json::object* object, std::string_view key, int fallback) {
  if (!object) return fallback;
  std::optional<std::int64_t> value = int_at(*object, key);
  return value ? static_cast<int>(*value) : fallback;
}

Subject subject_from_json(const json::object& object) {
  Subject subject;
  std::string_view kind = string_at(object, "kind");
  if (kind == "Group") {
    subject.kind = Subject::Kind::Group;
    subject.name = string_at(object_at(object, "group"), "name");
  } else if (kind == "ServiceAccount") {
    subject.kind = Subject::Kind::ServiceAccount;
    const json::object* account = object_at(object, "serviceAccount");
    subject.name = string_at(account, "name");
    subject.namespace_ = string_at(account, "namespace");
  } else {
    subject.name = string_at(object_at(object, "user"), "name");
  }
  return subject;
}

PolicyRulesWithSubjects rules_from_json(const json::object& object) {
  PolicyRulesWithSubjects rules;
  if (const json::array* subjects = array_at(object, "subjects"))
    for (const auto& subject : *subjects)
      if (subject.is_object()) rules.subjects.push_back(subject_from_json(subject.get_object()));
  if (const json::array* resource_rules = array_at(object, "resourceRules"))
    for (const auto& value : *resource_rules) {
      if (!value.is_object()) continue;
      const json::object& rule = value.get_object();
      rules.resource_rules.push_back({strings_at(rule, "verbs"), strings_at(rule, "apiGroups"),
                                      strings_at(rule, "resources"), base::fields::bool_at(&rule, "clusterScope"),
                                      strings_at(rule, "namespaces")});
    }
  if (const json::array* non_resource_rules = array_at(object, "nonResourceRules"))
    for (const auto& value : *non_resource_rules) {
      if (!value.is_object()) continue;
      const json::object& rule = value.get_object();
      rules.non_resource_rules.push_back({strings_at(rule, "verbs"), strings_at(rule, "nonResourceURLs")});
    }
  return rules;
}

}  // namespace

FlowSchema flow_schema_from_json(const json::object& object) {
  FlowSchema schema;
  const json::object* metadata = object_at(object, "metadata");
  schema.name = string_at(metadata, "name");
  schema.uid = string_at(metadata, "uid");
  const json::object* spec = object_at(object, "spec");
  schema.matching_precedence = int_or(spec, "matchingPrecedence", 1000);
  schema.priority_level = string_at(spec ? object_at(*spec, "priorityLevelConfiguration") : nullptr, "name");
  std::string_view method = string_at(spec ? object_at(*spec, "distinguisherMethod") : nullptr, "type");
  if (method == "ByUser") schema.distinguisher = DistinguisherMethod::ByUser;
  if (method == "ByNamespace") schema.distinguisher = DistinguisherMethod::ByNamespace;
  if (const json::array* rules = spec ? array_at(*spec, "rules") : nullptr)
    for (const auto& rule : *rules)
      if (rule.is_object()) schema.rules.push_back(rules_from_json(rule.get_object()));
  return schema;
}

PriorityLevel priority_level_from_json(const json::object& object) {
  PriorityLevel level;
  const json::object* metadata = object_at(object, "metadata");
  level.name = string_at(metadata, "name");
  level.uid = string_at(metadata, "uid");
  const json::object* spec = object_at(object, "spec");
  if (string_at(spec, "type") == "Exempt") {
    const json::object* exempt = spec ? object_at(*spec, "exempt") : nullptr;
    level.exempt = true;
    level.nominal_concurrency_shares = int_or(exempt, "nominalConcurrencyShares", 0);
    level.lendable_percent = int_or(exempt, "lendablePercent", 0);
    level.borrowing_limit_percent = 0;  // an exempt level is never limited, so it never needs to borrow
    return level;
  }
  const json::object* limited = spec ? object_at(*spec, "limited") : nullptr;
  level.nominal_concurrency_shares = int_or(limited, "nominalConcurrencyShares", 30);
  level.lendable_percent = int_or(limited, "lendablePercent", 0);
  if (std::optional<std::int64_t> limit = limited ? int_at(*limited, "borrowingLimitPercent") : std::nullopt)
    level.borrowing_limit_percent = static_cast<int>(*limit);
  const json::object* response = limited ? object_at(*limited, "limitResponse") : nullptr;
  if (string_at(response, "type") == "Queue") {
    const json::object* queuing = response ? object_at(*response, "queuing") : nullptr;
    level.queuing = QueuingConfiguration{int_or(queuing, "queues", 64), int_or(queuing, "handSize", 8),
                                         int_or(queuing, "queueLengthLimit", 50)};
  }
  return level;
}

}  // namespace kapi::flowcontrol

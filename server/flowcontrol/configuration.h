#pragma once
// What the priority-and-fairness runtime needs of the stored flowcontrol.apiserver.k8s.io/v1 objects, read once per
// change (kube's apf_controller digests the same): FlowSchemas with their rules and PriorityLevelConfigurations
// with their concurrency shares and queuing. Absent fields take kube's v1 defaults, so objects written before
// defaulting (or by an older server) read the same.
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kapi::flowcontrol {

enum class DistinguisherMethod { None, ByUser, ByNamespace };

struct Subject {
  enum class Kind { User, Group, ServiceAccount };
  Kind kind = Kind::User;
  std::string name;        // "*" matches any
  std::string namespace_;  // ServiceAccount only
};

struct ResourcePolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;  // "pods", "pods/status" or "*"
  bool cluster_scope = false;
  std::vector<std::string> namespaces;
};

struct NonResourcePolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;  // "/healthz", "/apis/*" or "*"
};

struct PolicyRulesWithSubjects {
  std::vector<Subject> subjects;
  std::vector<ResourcePolicyRule> resource_rules;
  std::vector<NonResourcePolicyRule> non_resource_rules;
};

struct FlowSchema {
  std::string name;
  std::string uid;
  int matching_precedence = 1000;
  std::string priority_level;
  DistinguisherMethod distinguisher = DistinguisherMethod::None;
  std::vector<PolicyRulesWithSubjects> rules;
};

struct QueuingConfiguration {
  int queues = 64;
  int hand_size = 8;
  int queue_length_limit = 50;
};

struct PriorityLevel {
  std::string name;
  std::string uid;
  bool exempt = false;
  int nominal_concurrency_shares = 30;
  int lendable_percent = 0;
  std::optional<int> borrowing_limit_percent;  // none: may borrow without limit
  // Queue when the level is full; none: reject at once (limitResponse Reject).
  std::optional<QueuingConfiguration> queuing;
};

FlowSchema flow_schema_from_json(const boost::json::object& object);
PriorityLevel priority_level_from_json(const boost::json::object& object);

}  // namespace kapi::flowcontrol

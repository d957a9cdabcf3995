#pragma once
// The audit policy (audit.k8s.io/v1 Policy, k8s.io/apiserver/pkg/apis/audit): which requests are recorded and at
// which level. Read once at start-up from --audit-policy-file (YAML or JSON), validated with kube's messages, then
// evaluated per request as kube's policy.Checker does: the first rule that matches decides; none matches → None.
#include "server/authorization/authorizer.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::audit {

// Ordered: a level includes everything the levels before it record.
enum class Level { None, Metadata, Request, RequestResponse };
enum class Stage { RequestReceived, ResponseStarted, ResponseComplete, Panic };

std::string_view to_string(Level level);
std::string_view to_string(Stage stage);
std::optional<Level> parse_level(std::string_view text);
std::optional<Stage> parse_stage(std::string_view text);

struct GroupResources {
  std::string group;                        // "" is the core group
  std::vector<std::string> resources;       // "pods", "pods/log", "*/status", "pods/*", "*"; empty: all
  std::vector<std::string> resource_names;  // empty: all
};

struct PolicyRule {
  Level level = Level::None;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;         // "" matches cluster-scoped resources
  std::vector<std::string> non_resource_urls;  // "/healthz", "/version*", "*"
  std::vector<Stage> omit_stages;
  std::optional<bool> omit_managed_fields;  // unset: the policy's
};

struct Policy {
  std::vector<PolicyRule> rules;
  std::vector<Stage> omit_stages;
  bool omit_managed_fields = false;
};

// What the policy says about one request (kube's RequestAuditConfig).
struct RequestAuditConfig {
  Level level = Level::None;
  std::vector<Stage> omit_stages;  // the policy's and the rule's
  bool omit_managed_fields = false;

  bool omits(Stage stage) const;
};

// A policy kube would refuse; what() is kube's wording without the file ("rules[0].level: Unsupported value: ...").
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a Policy document (YAML or JSON) of apiVersion audit.k8s.io/v1 and validates it as ValidatePolicy does;
// a policy without rules is refused ("loaded illegal policy with 0 rules"). Throws PolicyError.
Policy parse_policy(std::string_view text);

// Reads and parses the file; errors name it as kube's LoadPolicyFromFile does ("...: from file <path>").
Policy load_policy_file(const std::filesystem::path& path);

// policy.Checker.EvaluatePolicyRule. A request without a user (failed authentication) has an empty user name.
RequestAuditConfig evaluate(const Policy& policy, const authorization::Attributes& attributes);

}  // namespace kapi::audit

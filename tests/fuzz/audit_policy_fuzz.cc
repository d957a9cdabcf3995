// Fuzzes the audit policy file (--audit-policy-file) as kube-apiserver reads it (k8s.io/apiserver/pkg/audit/policy
// reader.go and apis/audit/validation): an audit.k8s.io/v1 Policy in YAML or JSON, decoded field by field with Go's
// type errors and validated with kube's messages (server/audit/policy.h), then evaluated as policy.Checker
// evaluates it, against requests of every shape: resources and subresources, names, namespaces, non-resource
// paths, and the users, groups, verbs and paths the policy's own rules name.
//
// parse_policy documents PolicyError for a policy kube would refuse; anything else escaping (yaml-cpp's and
// Boost.JSON's exceptions included), a crash, a sanitizer report or a timeout is a finding. So is an accepted policy
// without rules, and an evaluation that answers a level no rule has or omits stages neither policy nor rule omits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/audit/policy.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

using kapi::audit::Policy;
using kapi::audit::PolicyError;
using kapi::authorization::Attributes;

std::string first_of(const std::vector<std::string>& list, std::string_view otherwise) {
  return list.empty() ? std::string(otherwise) : list.front();
}

// A resource request and a non-resource one shaped after each rule, then a few fixed ones.
std::vector<Attributes> requests_for(const Policy& policy) {
  std::vector<Attributes> requests;
  for (const auto& rule : policy.rules) {
    Attributes attributes;
    attributes.user.name = first_of(rule.users, "jane");
    attributes.user.groups = {first_of(rule.user_groups, "system:authenticated")};
    attributes.verb = first_of(rule.verbs, "get");
    attributes.namespace_ = first_of(rule.namespaces, "default");
    attributes.path = first_of(rule.non_resource_urls, "/healthz");
    requests.push_back(attributes);  // non-resource
    attributes.resource_request = true;
    const std::string resource = rule.resources.empty() ? "pods" : first_of(rule.resources.front().resources, "pods");
    const std::size_t slash = resource.find('/');
    attributes.resource = resource.substr(0, slash);
    if (slash != std::string::npos) attributes.subresource = resource.substr(slash + 1);
    if (!rule.resources.empty()) {
      attributes.api_group = rule.resources.front().group;
      attributes.name = first_of(rule.resources.front().resource_names, "web");
    }
    requests.push_back(std::move(attributes));
  }
  Attributes anonymous;  // failed authentication: no user at all
  anonymous.verb = "get";
  anonymous.path = "/version";
  requests.push_back(anonymous);
  Attributes status;
  status.user.name = "system:kube-proxy";
  status.verb = "update";
  status.resource_request = true;
  status.api_group = "apps";
  status.resource = "deployments";
  status.subresource = "status";
  status.name = "web";
  requests.push_back(status);
  return requests;
}

void check(const Policy& policy, const Attributes& attributes) {
  const kapi::audit::RequestAuditConfig config = kapi::audit::evaluate(policy, attributes);
  const bool some_rule_has_it = std::any_of(policy.rules.begin(), policy.rules.end(),
                                            [&](const auto& rule) { return rule.level == config.level; });
  if (config.level != kapi::audit::Level::None && !some_rule_has_it)
    finding("evaluation answers a level no rule has: " + std::string(to_string(config.level)));
  for (kapi::audit::Stage stage : config.omit_stages) {
    const auto omitted_by = [&](const std::vector<kapi::audit::Stage>& stages) {
      return std::find(stages.begin(), stages.end(), stage) != stages.end();
    };
    const bool by_rule = std::any_of(policy.rules.begin(), policy.rules.end(),
                                     [&](const auto& rule) { return omitted_by(rule.omit_stages); });
    if (!omitted_by(policy.omit_stages) && !by_rule)
      finding("evaluation omits a stage nothing omits: " + std::string(to_string(stage)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Policy policy;
  try {
    policy = kapi::audit::parse_policy(text);
  } catch (const PolicyError&) {
    return 0;
  }
  if (policy.rules.empty()) finding("a policy without rules is accepted");
  for (const Attributes& attributes : requests_for(policy)) check(policy, attributes);
  return 0;
}

#include "server/authorization/rbac/escalation.h"

#include "base/go_quote.h"
#include "server/apierrors/errors.h"
#include "server/authorization/rbac/policy_builder.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace kapi::authorization::rbac {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using policy_builder::kRbacGroup;

bool has(const std::vector<std::string>& set, std::string_view item) {
  return std::find(set.begin(), set.end(), item) != set.end();
}

bool has_all(const std::vector<std::string>& set, const std::vector<std::string>& items) {
  return std::all_of(items.begin(), items.end(), [&](const std::string& item) { return has(set, item); });
}

// A subresource is covered by "*/<subresource>" too.
bool resources_cover_all(const std::vector<std::string>& owner, const std::vector<std::string>& requested) {
  if (has(owner, "*") || has_all(owner, requested)) return true;
  return std::all_of(requested.begin(), requested.end(), [&](const std::string& path) {
    if (has(owner, path)) return true;
    const auto slash = path.find('/');
    return slash != std::string::npos && has(owner, "*/" + path.substr(slash + 1));
  });
}

bool urls_cover_all(const std::vector<std::string>& owner, const std::vector<std::string>& requested) {
  return std::all_of(requested.begin(), requested.end(), [&](const std::string& url) {
    return std::any_of(owner.begin(), owner.end(), [&](const std::string& path) {
      if (path == url) return true;
      if (path.empty() || path.back() != '*') return false;
      const std::string_view prefix = std::string_view(path).substr(0, path.find_last_not_of('*') + 1);
      return std::string_view(url).starts_with(prefix);
    });
  });
}

// validation.ruleCovers.
bool rule_covers(const PolicyRule& owner, const PolicyRule& part) {
  const bool verbs = has(owner.verbs, "*") || has_all(owner.verbs, part.verbs);
  const bool groups = has(owner.api_groups, "*") || has_all(owner.api_groups, part.api_groups);
  const bool names = owner.resource_names.empty() || (!part.resource_names.empty() && has_all(owner.resource_names, part.resource_names));
  return verbs && groups && resources_cover_all(owner.resources, part.resources) && names &&
         urls_cover_all(owner.non_resource_urls, part.non_resource_urls);
}

// validation.BreakdownRule: one verb on one resource of one group (and one name), or one verb on one URL.
std::vector<PolicyRule> breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> parts;
  for (const auto& group : rule.api_groups)
    for (const auto& resource : rule.resources)
      for (const auto& verb : rule.verbs) {
        if (rule.resource_names.empty()) parts.push_back({{verb}, {group}, {resource}, {}, {}});
        for (const auto& name : rule.resource_names) parts.push_back({{verb}, {group}, {resource}, {name}, {}});
      }
  for (const auto& url : rule.non_resource_urls)
    for (const auto& verb : rule.verbs) parts.push_back({{verb}, {}, {}, {}, {url}});
  return parts;
}

// validation.CompactRules: the verbs of rules on one resource (and name) of one group together.
std::vector<PolicyRule> compact(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> compacted;
  std::map<std::tuple<std::string, std::string, std::string>, PolicyRule> simple;
  for (const auto& rule : rules) {
    const bool is_simple = rule.resource_names.size() <= 1 && rule.non_resource_urls.empty() &&
                           rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      compacted.push_back(rule);
      continue;
    }
    const std::string name = rule.resource_names.empty() ? "" : rule.resource_names.front();
    auto [it, inserted] = simple.try_emplace({rule.api_groups.front(), rule.resources.front(), name}, rule);
    if (!inserted) it->second.verbs.insert(it->second.verbs.end(), rule.verbs.begin(), rule.verbs.end());
  }
  for (auto& [key, rule] : simple) compacted.push_back(std::move(rule));
  return compacted;
}

bool in_system_masters(const request::UserInfo& user) { return has(user.groups, "system:masters"); }

apierrors::ApiError forbidden(const std::string& resource, const std::string& name, std::string why) {
  return apierrors::ApiError(apierrors::forbidden(kRbacGroup, resource, name, std::move(why)));
}

}  // namespace

std::vector<PolicyRule> uncovered_rules(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& requested) {
  std::vector<PolicyRule> missing;
  for (const auto& rule : requested)
    for (auto& part : breakdown(rule))
      if (std::none_of(owner.begin(), owner.end(), [&](const PolicyRule& held) { return rule_covers(held, part); }))
        missing.push_back(std::move(part));
  return compact(missing);
}

std::string compact_string(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) parts.push_back("APIGroups:" + base::go_quote_list(rule.api_groups));
  if (!rule.resources.empty()) parts.push_back("Resources:" + base::go_quote_list(rule.resources));
  if (!rule.non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + base::go_quote_list(rule.non_resource_urls));
  if (!rule.resource_names.empty()) parts.push_back("ResourceNames:" + base::go_quote_list(rule.resource_names));
  if (!rule.verbs.empty()) parts.push_back("Verbs:" + base::go_quote_list(rule.verbs));
  std::string text = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text + "}";
}

bool EscalationCheck::allowed(const request::UserInfo& user, const std::string& verb, const std::string& resource,
                              const std::string& namespace_, const std::string& name) const {
  Attributes attributes{.user = user, .verb = verb, .resource_request = true, .namespace_ = namespace_,
                        .api_group = std::string(kRbacGroup), .api_version = "v1", .resource = resource, .name = name};
  return authorizer_->authorize(attributes).decision == Decision::Allow;
}

void EscalationCheck::confirm_no_escalation(const request::UserInfo& user, const std::string& namespace_,
                                            const std::vector<PolicyRule>& rules, const std::string& resource,
                                            const std::string& name) const {
  const RuleSet held = authorizer_->rules_for(user, namespace_);
  std::vector<PolicyRule> owner;
  for (const auto& rule : held.resource_rules)
    owner.push_back({rule.verbs, rule.api_groups, rule.resources, rule.resource_names, {}});
  for (const auto& rule : held.non_resource_rules) owner.push_back({rule.verbs, {}, {}, {}, rule.non_resource_urls});
  const std::vector<PolicyRule> missing = uncovered_rules(owner, rules);
  if (missing.empty()) return;
  std::set<std::string> descriptions;  // sets.NewString(...).List(): sorted, each once
  for (const auto& rule : missing) descriptions.insert(compact_string(rule));
  std::string message = "user " + base::go_quote(user.name) + " (groups=" + base::go_quote_list(user.groups) +
                        ") is attempting to grant RBAC permissions not currently held:";
  for (const auto& description : descriptions) message += "\n" + description;
  if (!held.errors.empty()) {
    message += "; resolution errors: [";
    for (std::size_t i = 0; i < held.errors.size(); ++i) message += (i ? " " : "") + held.errors[i];
    message += "]";
  }
  throw forbidden(resource, name, std::move(message));
}

void EscalationCheck::check_role(const request::UserInfo& user, const json::object& role, const json::object* old) const {
  if (!authorizer_ || in_system_masters(user)) return;
  const bool cluster_role = string_at(role, "kind") == "ClusterRole";
  const std::string resource = cluster_role ? "clusterroles" : "roles";
  const json::object& metadata = object_or_empty(role, "metadata");
  const std::string namespace_ = cluster_role ? "" : std::string(string_at(metadata, "namespace"));
  const std::string name(string_at(metadata, "name"));
  if (allowed(user, "escalate", resource, namespace_, name)) return;
  // An aggregated ClusterRole may come to hold anything: only one who holds everything may make it.
  const bool aggregated = cluster_role && role.if_contains("aggregationRule") && !role.at("aggregationRule").is_null();
  if (!aggregated && old && rules_of(*old) == rules_of(role)) return;  // the rules stay as they are
  const std::vector<PolicyRule> full_authority{{{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}};
  confirm_no_escalation(user, namespace_, aggregated ? full_authority : rules_of(role), resource, name);
}

void EscalationCheck::check_binding(const request::UserInfo& user, const json::object& binding,
                                    const json::object* old) const {
  if (!authorizer_ || in_system_masters(user)) return;
  const bool cluster_binding = string_at(binding, "kind") == "ClusterRoleBinding";
  const std::string resource = cluster_binding ? "clusterrolebindings" : "rolebindings";
  const json::object& metadata = object_or_empty(binding, "metadata");
  const std::string namespace_ = cluster_binding ? "" : std::string(string_at(metadata, "namespace"));
  const std::string name(string_at(metadata, "name"));
  // roleRef cannot change: an update that keeps the subjects grants nothing new.
  auto subjects = [](const json::object& object) {
    const json::value* value = object.if_contains("subjects");
    return value ? *value : json::value();
  };
  if (old && subjects(*old) == subjects(binding)) return;
  const json::object& role_ref = object_or_empty(binding, "roleRef");
  const bool to_cluster_role = string_at(role_ref, "kind") == "ClusterRole";
  const std::string role_name(string_at(role_ref, "name"));
  if (allowed(user, "bind", to_cluster_role ? "clusterroles" : "roles", namespace_, role_name)) return;
  const std::shared_ptr<const PolicySnapshot> policy = rbac_ ? rbac_->policy() : nullptr;
  const std::vector<PolicyRule>* rules = policy ? policy->role_rules(to_cluster_role ? "" : namespace_, role_name) : nullptr;
  if (!rules)
    throw forbidden(resource, name,
                    std::string(to_cluster_role ? "clusterrole" : "role") + ".rbac.authorization.k8s.io \"" + role_name +
                        "\" not found");
  confirm_no_escalation(user, namespace_, *rules, resource, name);
}

}  // namespace kapi::authorization::rbac

#include "server/flowcontrol/classifier.h"

#include <algorithm>

namespace kapi::flowcontrol {
namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

bool contains_or_star(const std::vector<std::string>& values, std::string_view value) {
  return std::any_of(values.begin(), values.end(), [value](const std::string& v) { return v == "*" || v == value; });
}

bool matches_subject(const Subject& subject, const request::UserInfo& user) {
  switch (subject.kind) {
    case Subject::Kind::User:
      return subject.name == "*" || subject.name == user.name;
    case Subject::Kind::Group:
      return subject.name == "*" ||
             std::find(user.groups.begin(), user.groups.end(), subject.name) != user.groups.end();
    case Subject::Kind::ServiceAccount: {
      // system:serviceaccount:<namespace>:<name>
      std::string_view name = user.name;
      if (!name.starts_with(kServiceAccountPrefix)) return false;
      name.remove_prefix(kServiceAccountPrefix.size());
      auto colon = name.find(':');
      if (colon == std::string_view::npos || name.substr(0, colon) != subject.namespace_) return false;
      return subject.name == "*" || name.substr(colon + 1) == subject.name;
    }
  }
  return false;
}

bool matches_resource_rule(const ResourcePolicyRule& rule, const request::RequestInfo& info) {
  if (!contains_or_star(rule.verbs, info.verb) || !contains_or_star(rule.api_groups, info.api_group)) return false;
  bool resource_matches =
      info.subresource.empty()
          ? contains_or_star(rule.resources, info.resource)
          : contains_or_star(rule.resources, info.resource + "/" + info.subresource);
  if (!resource_matches) return false;
  if (info.namespace_.empty()) return rule.cluster_scope;
  return contains_or_star(rule.namespaces, info.namespace_);
}

// "/apis/*" covers /apis and everything under it; "*" covers every path.
bool matches_url(std::string_view pattern, std::string_view path) {
  if (pattern == "*" || pattern == path) return true;
  if (!pattern.ends_with("/*")) return false;
  std::string_view prefix = pattern.substr(0, pattern.size() - 1);  // keeps the slash
  return path.starts_with(prefix) || path == prefix.substr(0, prefix.size() - 1);
}

bool matches_non_resource_rule(const NonResourcePolicyRule& rule, const request::RequestInfo& info) {
  if (!contains_or_star(rule.verbs, info.verb)) return false;
  return std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                     [&info](const std::string& url) { return matches_url(url, info.path); });
}

bool matches_rules(const PolicyRulesWithSubjects& rules, const RequestDigest& request) {
  if (std::none_of(rules.subjects.begin(), rules.subjects.end(),
                   [&request](const Subject& subject) { return matches_subject(subject, request.user); }))
    return false;
  if (request.info.is_resource_request)
    return std::any_of(rules.resource_rules.begin(), rules.resource_rules.end(),
                       [&request](const ResourcePolicyRule& rule) { return matches_resource_rule(rule, request.info); });
  return std::any_of(rules.non_resource_rules.begin(), rules.non_resource_rules.end(),
                     [&request](const NonResourcePolicyRule& rule) { return matches_non_resource_rule(rule, request.info); });
}

}  // namespace

bool matches(const FlowSchema& schema, const RequestDigest& request) {
  return std::any_of(schema.rules.begin(), schema.rules.end(),
                     [&request](const PolicyRulesWithSubjects& rules) { return matches_rules(rules, request); });
}

std::string_view flow_distinguisher(const FlowSchema& schema, const RequestDigest& request) {
  switch (schema.distinguisher) {
    case DistinguisherMethod::ByUser:
      return request.user.name;
    case DistinguisherMethod::ByNamespace:
      return request.info.namespace_;
    case DistinguisherMethod::None:
      break;
  }
  return {};
}

void sort_for_matching(std::vector<FlowSchema>& schemas) {
  std::sort(schemas.begin(), schemas.end(), [](const FlowSchema& a, const FlowSchema& b) {
    return a.matching_precedence != b.matching_precedence ? a.matching_precedence < b.matching_precedence
                                                          : a.name < b.name;
  });
}

}  // namespace kapi::flowcontrol

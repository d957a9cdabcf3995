#include "server/apis/flowcontrol/flowcontrol_validation.h"

#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/flowcontrol/bootstrap_configuration.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace kapi::apis::apf {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;
using namespace registry::fields;

// ---- The internal types (pkg/apis/flowcontrol/types.go) the checks and comparisons work on. ----

// A Go slice: nil or not, which %#v shows and apiequality.Semantic does not.
template <typename T>
struct Slice {
  std::vector<T> items;
  bool nil = true;
  bool operator==(const Slice& other) const { return items == other.items; }
  bool empty() const { return items.empty(); }
};

struct FlowDistinguisherMethod {
  std::string type;
  bool operator==(const FlowDistinguisherMethod&) const = default;
};
struct NamedSubject {  // UserSubject and GroupSubject
  std::string name;
  bool operator==(const NamedSubject&) const = default;
};
struct ServiceAccountSubject {
  std::string namespace_, name;
  bool operator==(const ServiceAccountSubject&) const = default;
};
struct Subject {
  std::string kind;
  std::optional<NamedSubject> user, group;
  std::optional<ServiceAccountSubject> service_account;
  bool operator==(const Subject&) const = default;
};
struct ResourcePolicyRule {
  Slice<std::string> verbs, api_groups, resources;
  bool cluster_scope = false;
  Slice<std::string> namespaces;
  bool operator==(const ResourcePolicyRule&) const = default;
};
struct NonResourcePolicyRule {
  Slice<std::string> verbs, non_resource_urls;
  bool operator==(const NonResourcePolicyRule&) const = default;
};
struct PolicyRulesWithSubjects {
  Slice<Subject> subjects;
  Slice<ResourcePolicyRule> resource_rules;
  Slice<NonResourcePolicyRule> non_resource_rules;
  bool operator==(const PolicyRulesWithSubjects&) const = default;
};
struct FlowSchemaSpec {
  std::string priority_level;
  std::int64_t matching_precedence = 0;
  std::optional<FlowDistinguisherMethod> distinguisher_method;
  Slice<PolicyRulesWithSubjects> rules;
  bool operator==(const FlowSchemaSpec&) const = default;
};

struct QueuingConfiguration {
  std::int64_t queues = 0, hand_size = 0, queue_length_limit = 0;
  bool operator==(const QueuingConfiguration&) const = default;
};
struct LimitResponse {
  std::string type;
  std::optional<QueuingConfiguration> queuing;
  bool operator==(const LimitResponse&) const = default;
};
struct LimitedPriorityLevelConfiguration {
  std::int64_t nominal_concurrency_shares = 0;
  LimitResponse limit_response;
  std::optional<std::int64_t> lendable_percent, borrowing_limit_percent;
  bool operator==(const LimitedPriorityLevelConfiguration&) const = default;
};
struct ExemptPriorityLevelConfiguration {
  std::optional<std::int64_t> nominal_concurrency_shares, lendable_percent;
  bool operator==(const ExemptPriorityLevelConfiguration&) const = default;
};
struct PriorityLevelConfigurationSpec {
  std::string type;
  std::optional<LimitedPriorityLevelConfiguration> limited;
  std::optional<ExemptPriorityLevelConfiguration> exempt;
  bool operator==(const PriorityLevelConfigurationSpec&) const = default;
};

template <typename T, typename Read>
Slice<T> slice_at(const json::object* object, std::string_view key, Read read) {
  Slice<T> out;
  const json::value* value = object ? object->if_contains(key) : nullptr;
  if (!value || !value->is_array()) return out;
  out.nil = false;
  for (const auto& item : value->get_array()) out.items.push_back(read(item));
  return out;
}

Slice<std::string> strings_at(const json::object* object, std::string_view key) {
  return slice_at<std::string>(object, key, [](const json::value& item) {
    return item.is_string() ? std::string(item.get_string()) : std::string();
  });
}

Subject subject_of(const json::value& value) {
  const json::object* object = value.if_object();
  Subject subject{.kind = std::string(string_at(object, "kind"))};
  if (const json::object* user = object_at(object, "user")) subject.user = NamedSubject{std::string(string_at(user, "name"))};
  if (const json::object* group = object_at(object, "group")) subject.group = NamedSubject{std::string(string_at(group, "name"))};
  if (const json::object* account = object_at(object, "serviceAccount"))
    subject.service_account = ServiceAccountSubject{std::string(string_at(account, "namespace")), std::string(string_at(account, "name"))};
  return subject;
}

PolicyRulesWithSubjects rules_of(const json::value& value) {
  const json::object* object = value.if_object();
  PolicyRulesWithSubjects rules;
  rules.subjects = slice_at<Subject>(object, "subjects", subject_of);
  rules.resource_rules = slice_at<ResourcePolicyRule>(object, "resourceRules", [](const json::value& item) {
    const json::object* rule = item.if_object();
    const json::value* cluster_scope = rule ? rule->if_contains("clusterScope") : nullptr;
    return ResourcePolicyRule{strings_at(rule, "verbs"), strings_at(rule, "apiGroups"), strings_at(rule, "resources"),
                              cluster_scope && cluster_scope->is_bool() && cluster_scope->get_bool(),
                              strings_at(rule, "namespaces")};
  });
  rules.non_resource_rules = slice_at<NonResourcePolicyRule>(object, "nonResourceRules", [](const json::value& item) {
    const json::object* rule = item.if_object();
    return NonResourcePolicyRule{strings_at(rule, "verbs"), strings_at(rule, "nonResourceURLs")};
  });
  return rules;
}

FlowSchemaSpec flow_schema_spec_of(const json::object& flow_schema) {
  const json::object* spec = object_at(&flow_schema, "spec");
  FlowSchemaSpec out;
  out.priority_level = std::string(string_at(object_at(spec, "priorityLevelConfiguration"), "name"));
  out.matching_precedence = int_at(spec, "matchingPrecedence").value_or(0);
  if (const json::object* method = object_at(spec, "distinguisherMethod"))
    out.distinguisher_method = FlowDistinguisherMethod{std::string(string_at(method, "type"))};
  out.rules = slice_at<PolicyRulesWithSubjects>(spec, "rules", rules_of);
  return out;
}

PriorityLevelConfigurationSpec priority_level_spec_of(const json::object& priority_level) {
  const json::object* spec = object_at(&priority_level, "spec");
  PriorityLevelConfigurationSpec out;
  out.type = std::string(string_at(spec, "type"));
  if (const json::object* limited = object_at(spec, "limited")) {
    LimitedPriorityLevelConfiguration level;
    level.nominal_concurrency_shares = int_at(limited, "nominalConcurrencyShares").value_or(0);
    const json::object* response = object_at(limited, "limitResponse");
    level.limit_response.type = std::string(string_at(response, "type"));
    if (const json::object* queuing = object_at(response, "queuing"))
      level.limit_response.queuing = QueuingConfiguration{int_at(queuing, "queues").value_or(0),
                                                          int_at(queuing, "handSize").value_or(0),
                                                          int_at(queuing, "queueLengthLimit").value_or(0)};
    level.lendable_percent = int_at(limited, "lendablePercent");
    level.borrowing_limit_percent = int_at(limited, "borrowingLimitPercent");
    out.limited = std::move(level);
  }
  if (const json::object* exempt = object_at(spec, "exempt"))
    out.exempt = ExemptPriorityLevelConfiguration{int_at(exempt, "nominalConcurrencyShares"),
                                                  int_at(exempt, "lendablePercent")};
  return out;
}

// ---- Go's %#v of the internal types. ----

std::string go(const std::string& text) { return base::go_quote(text); }

std::string go(const Slice<std::string>& slice) {
  return slice.nil ? "[]string(nil)" : base::go_string_slice(slice.items);
}

template <typename T, typename Print>
std::string go(const Slice<T>& slice, std::string_view type, Print print) {
  if (slice.nil) return "[]flowcontrol." + std::string(type) + "(nil)";
  std::string out = "[]flowcontrol." + std::string(type) + "{";
  for (std::size_t i = 0; i < slice.items.size(); ++i) out += (i ? ", " : "") + print(slice.items[i]);
  return out + "}";
}

template <typename T, typename Print>
std::string go_pointer(const std::optional<T>& pointer, std::string_view type, Print print) {
  if (!pointer) return "(*" + std::string(type) + ")(nil)";
  return "&" + print(*pointer);
}

std::string go_int_pointer(const std::optional<std::int64_t>& pointer) {
  return "(*int32)(" + (pointer ? std::to_string(*pointer) : std::string("nil")) + ")";
}

std::string go(const FlowDistinguisherMethod& method) {
  return "flowcontrol.FlowDistinguisherMethod{Type:" + go(method.type) + "}";
}

std::string go(const Subject& subject) {
  auto named = [](std::string_view type) {
    return [type](const NamedSubject& s) { return "flowcontrol." + std::string(type) + "{Name:" + go(s.name) + "}"; };
  };
  auto account = [](const ServiceAccountSubject& s) {
    return "flowcontrol.ServiceAccountSubject{Namespace:" + go(s.namespace_) + ", Name:" + go(s.name) + "}";
  };
  return "flowcontrol.Subject{Kind:" + go(subject.kind) +
         ", User:" + go_pointer(subject.user, "flowcontrol.UserSubject", named("UserSubject")) +
         ", Group:" + go_pointer(subject.group, "flowcontrol.GroupSubject", named("GroupSubject")) +
         ", ServiceAccount:" + go_pointer(subject.service_account, "flowcontrol.ServiceAccountSubject", account) + "}";
}

std::string go(const ResourcePolicyRule& rule) {
  return "flowcontrol.ResourcePolicyRule{Verbs:" + go(rule.verbs) + ", APIGroups:" + go(rule.api_groups) +
         ", Resources:" + go(rule.resources) + ", ClusterScope:" + (rule.cluster_scope ? "true" : "false") +
         ", Namespaces:" + go(rule.namespaces) + "}";
}

std::string go(const NonResourcePolicyRule& rule) {
  return "flowcontrol.NonResourcePolicyRule{Verbs:" + go(rule.verbs) + ", NonResourceURLs:" + go(rule.non_resource_urls) +
         "}";
}

std::string go(const PolicyRulesWithSubjects& rules) {
  return "flowcontrol.PolicyRulesWithSubjects{Subjects:" +
         go(rules.subjects, "Subject", [](const Subject& s) { return go(s); }) +
         ", ResourceRules:" + go(rules.resource_rules, "ResourcePolicyRule", [](const ResourcePolicyRule& r) { return go(r); }) +
         ", NonResourceRules:" +
         go(rules.non_resource_rules, "NonResourcePolicyRule", [](const NonResourcePolicyRule& r) { return go(r); }) + "}";
}

std::string go(const FlowSchemaSpec& spec) {
  return "flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:" +
         go(spec.priority_level) + "}, MatchingPrecedence:" + std::to_string(spec.matching_precedence) +
         ", DistinguisherMethod:" +
         go_pointer(spec.distinguisher_method, "flowcontrol.FlowDistinguisherMethod",
                    [](const FlowDistinguisherMethod& m) { return go(m); }) +
         ", Rules:" + go(spec.rules, "PolicyRulesWithSubjects", [](const PolicyRulesWithSubjects& r) { return go(r); }) +
         "}";
}

std::string go(const PriorityLevelConfigurationSpec& spec) {
  auto queuing = [](const QueuingConfiguration& q) {
    return "flowcontrol.QueuingConfiguration{Queues:" + std::to_string(q.queues) +
           ", HandSize:" + std::to_string(q.hand_size) + ", QueueLengthLimit:" + std::to_string(q.queue_length_limit) +
           "}";
  };
  auto limited = [&queuing](const LimitedPriorityLevelConfiguration& l) {
    return "flowcontrol.LimitedPriorityLevelConfiguration{NominalConcurrencyShares:" +
           std::to_string(l.nominal_concurrency_shares) + ", LimitResponse:flowcontrol.LimitResponse{Type:" +
           go(l.limit_response.type) +
           ", Queuing:" + go_pointer(l.limit_response.queuing, "flowcontrol.QueuingConfiguration", queuing) +
           "}, LendablePercent:" + go_int_pointer(l.lendable_percent) +
           ", BorrowingLimitPercent:" + go_int_pointer(l.borrowing_limit_percent) + "}";
  };
  auto exempt = [](const ExemptPriorityLevelConfiguration& e) {
    return "flowcontrol.ExemptPriorityLevelConfiguration{NominalConcurrencyShares:" +
           go_int_pointer(e.nominal_concurrency_shares) + ", LendablePercent:" + go_int_pointer(e.lendable_percent) +
           "}";
  };
  return "flowcontrol.PriorityLevelConfigurationSpec{Type:" + go(spec.type) +
         ", Limited:" + go_pointer(spec.limited, "flowcontrol.LimitedPriorityLevelConfiguration", limited) +
         ", Exempt:" + go_pointer(spec.exempt, "flowcontrol.ExemptPriorityLevelConfiguration", exempt) + "}";
}

// ---- ValidateFlowSchema ----

const std::vector<std::string>& supported_verbs() {
  static const std::vector<std::string> verbs{"create", "delete", "deletecollection", "get",  "list",
                                              "patch",  "proxy",  "update",           "watch"};
  return verbs;
}

bool has_wildcard(const Slice<std::string>& list) {
  return std::find(list.items.begin(), list.items.end(), "*") != list.items.end();
}

constexpr std::string_view kNamespaceErrorIntro = "each member of this list must be '*' or a DNS-1123 label; ";
constexpr std::int64_t kMaxMatchingPrecedence = 10000;
constexpr std::int64_t kMaxQueues = 10 * 1000 * 1000;
constexpr int kMaxHashBits = 60;  // shufflesharding.MaxHashBits

void validate_verbs(const Slice<std::string>& verbs, const Path& path, ErrorList& errors) {
  if (verbs.empty()) {
    errors.push_back(validation::required(path, "verbs must contain at least one value"));
  } else if (has_wildcard(verbs)) {
    if (verbs.items.size() > 1)
      errors.push_back(validation::invalid_value(path, go(verbs), "if '*' is present, must not specify other verbs"));
  } else {
    const auto& supported = supported_verbs();
    const bool all_supported = std::all_of(verbs.items.begin(), verbs.items.end(), [&](const std::string& verb) {
      return std::find(supported.begin(), supported.end(), verb) != supported.end();
    });
    if (!all_supported) {
      validation::FieldError error = validation::not_supported(path, "", supported);
      error.value = go(verbs);
      errors.push_back(std::move(error));
    }
  }
}

void validate_named_subject(const std::optional<NamedSubject>& subject, std::string_view kind, const Path& path,
                            ErrorList& errors) {
  if (!subject) {
    std::string field = kind == "User" ? "user" : "group";
    errors.push_back(validation::required(path, field + " is required when subject kind is '" + std::string(kind) + "'"));
    return;
  }
  if (subject->name.empty()) errors.push_back(validation::required(path.child("name")));
}

void validate_service_account_subject(const std::optional<ServiceAccountSubject>& subject, const Path& path,
                                      ErrorList& errors) {
  if (!subject) {
    errors.push_back(validation::required(path, "serviceAccount is required when subject kind is 'ServiceAccount'"));
    return;
  }
  if (subject->name.empty()) {
    errors.push_back(validation::required(path.child("name")));
  } else if (subject->name != "*") {
    for (auto& message : validation::is_dns1123_subdomain(subject->name))
      errors.push_back(validation::invalid(path.child("name"), subject->name, std::move(message)));
  }
  if (!subject->namespace_.empty()) {
    for (auto& message : validation::is_dns1123_label(subject->namespace_))
      errors.push_back(validation::invalid(path.child("namespace"), subject->namespace_, std::move(message)));
  } else {
    errors.push_back(validation::required(path.child("namespace"), "must specify namespace for service account"));
  }
}

void validate_subject(const Subject& subject, const Path& path, ErrorList& errors) {
  auto forbid_user = [&] {
    if (subject.user)
      errors.push_back(validation::forbidden(path.child("user"), "user is forbidden when subject kind is not 'User'"));
  };
  auto forbid_group = [&] {
    if (subject.group)
      errors.push_back(validation::forbidden(path.child("group"), "group is forbidden when subject kind is not 'Group'"));
  };
  auto forbid_service_account = [&] {
    if (subject.service_account)
      errors.push_back(validation::forbidden(path.child("serviceAccount"),
                                             "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"));
  };
  if (subject.kind == "ServiceAccount") {
    validate_service_account_subject(subject.service_account, path.child("serviceAccount"), errors);
    forbid_user();
    forbid_group();
  } else if (subject.kind == "User") {
    validate_named_subject(subject.user, "User", path.child("user"), errors);
    forbid_service_account();
    forbid_group();
  } else if (subject.kind == "Group") {
    validate_named_subject(subject.group, "Group", path.child("group"), errors);
    forbid_service_account();
    forbid_user();
  } else {
    errors.push_back(validation::not_supported(path.child("kind"), subject.kind, {"Group", "ServiceAccount", "User"}));
  }
}

// ValidateNonResourceURLPath
std::optional<validation::FieldError> validate_non_resource_url(const std::string& url, const Path& path) {
  if (url.empty()) return validation::invalid(path, url, "must not be empty");
  if (url == "/") return std::nullopt;
  if (!url.starts_with('/')) return validation::invalid(path, url, "must start with slash");
  if (url.find(' ') != std::string::npos) return validation::invalid(path, url, "must not contain white-space");
  if (url.find("//") != std::string::npos) return validation::invalid(path, url, "must not contain double slash");
  const auto wildcards = std::count(url.begin(), url.end(), '*');
  if (wildcards > 1 || (wildcards == 1 && !url.ends_with("/*")))
    return validation::invalid(path, url, "wildcard can only do suffix matching");
  return std::nullopt;
}

void validate_resource_rule(const ResourcePolicyRule& rule, const Path& path, ErrorList& errors) {
  validate_verbs(rule.verbs, path.child("verbs"), errors);
  if (rule.api_groups.empty())
    errors.push_back(validation::required(path.child("apiGroups"), "resource rules must supply at least one api group"));
  else if (rule.api_groups.items.size() > 1 && has_wildcard(rule.api_groups))
    errors.push_back(validation::invalid_value(path.child("apiGroups"), go(rule.api_groups),
                                               "if '*' is present, must not specify other api groups"));
  if (rule.resources.empty())
    errors.push_back(validation::required(path.child("resources"), "resource rules must supply at least one resource"));
  else if (rule.resources.items.size() > 1 && has_wildcard(rule.resources))
    errors.push_back(validation::invalid_value(path.child("resources"), go(rule.resources),
                                               "if '*' is present, must not specify other resources"));
  if (rule.namespaces.empty() && !rule.cluster_scope) {
    errors.push_back(validation::required(path.child("namespaces"),
                                          "resource rules that are not cluster scoped must supply at least one namespace"));
  } else if (has_wildcard(rule.namespaces)) {
    if (rule.namespaces.items.size() > 1)
      errors.push_back(validation::invalid_value(path.child("namespaces"), go(rule.namespaces),
                                                 "if '*' is present, must not specify other namespaces"));
  } else {
    for (std::size_t i = 0; i < rule.namespaces.items.size(); ++i)
      for (auto& message : validation::is_dns1123_label(rule.namespaces.items[i]))
        errors.push_back(validation::invalid(path.child("namespaces").index(i), rule.namespaces.items[i],
                                             std::string(kNamespaceErrorIntro) + message));
  }
}

void validate_non_resource_rule(const NonResourcePolicyRule& rule, const Path& path, ErrorList& errors) {
  validate_verbs(rule.verbs, path.child("verbs"), errors);
  const Path urls = path.child("nonResourceURLs");
  if (rule.non_resource_urls.empty()) {
    errors.push_back(validation::required(urls, "nonResourceURLs must contain at least one value"));
  } else if (has_wildcard(rule.non_resource_urls)) {
    if (rule.non_resource_urls.items.size() > 1)
      errors.push_back(validation::invalid_value(urls, go(rule.non_resource_urls),
                                                 "if '*' is present, must not specify other non-resource URLs"));
  } else {
    for (std::size_t i = 0; i < rule.non_resource_urls.items.size(); ++i)
      if (auto error = validate_non_resource_url(rule.non_resource_urls.items[i], urls.index(i)))
        errors.push_back(std::move(*error));
  }
}

void validate_rules(const PolicyRulesWithSubjects& rules, const Path& path, ErrorList& errors) {
  if (!rules.subjects.empty()) {
    for (std::size_t i = 0; i < rules.subjects.items.size(); ++i)
      validate_subject(rules.subjects.items[i], path.child("subjects").index(i), errors);
  } else {
    errors.push_back(validation::required(path.child("subjects"), "subjects must contain at least one value"));
  }
  if (rules.resource_rules.empty() && rules.non_resource_rules.empty())
    errors.push_back(validation::required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
  for (std::size_t i = 0; i < rules.resource_rules.items.size(); ++i)
    validate_resource_rule(rules.resource_rules.items[i], path.child("resourceRules").index(i), errors);
  for (std::size_t i = 0; i < rules.non_resource_rules.items.size(); ++i)
    validate_non_resource_rule(rules.non_resource_rules.items[i], path.child("nonResourceRules").index(i), errors);
}

void validate_flow_schema_spec(const std::string& name, const FlowSchemaSpec& spec, const Path& path,
                               ErrorList& errors) {
  const Path precedence = path.child("matchingPrecedence");
  const std::string precedence_text = std::to_string(spec.matching_precedence);
  if (spec.matching_precedence <= 0)
    errors.push_back(validation::invalid_value(precedence, precedence_text, "must be a positive value"));
  if (spec.matching_precedence > kMaxMatchingPrecedence)
    errors.push_back(validation::invalid_value(precedence, precedence_text,
                                               "must not be greater than " + std::to_string(kMaxMatchingPrecedence)));
  if (spec.matching_precedence == 1 && name != ::kapi::flowcontrol::kExemptName)
    errors.push_back(validation::invalid_value(precedence, precedence_text,
                                               "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (spec.distinguisher_method && spec.distinguisher_method->type != "ByNamespace" &&
      spec.distinguisher_method->type != "ByUser") {
    validation::FieldError error =
        validation::not_supported(path.child("distinguisherMethod").child("type"), "", {"ByNamespace", "ByUser"});
    error.value = go(*spec.distinguisher_method);
    errors.push_back(std::move(error));
  }
  const Path level = path.child("priorityLevelConfiguration").child("name");
  if (!spec.priority_level.empty()) {
    for (auto& message : validation::is_dns1123_subdomain(spec.priority_level))
      errors.push_back(validation::invalid(level, spec.priority_level, std::move(message)));
  } else {
    errors.push_back(validation::required(level, "must reference a priority level"));
  }
  for (std::size_t i = 0; i < spec.rules.items.size(); ++i)
    validate_rules(spec.rules.items[i], path.child("rules").index(i), errors);
}

// ValidateFlowSchemaStatus and ValidatePriorityLevelConfigurationStatus: condition types present and unique.
void validate_conditions(const json::object& object, ErrorList& errors) {
  const Path conditions_path = Path("status").child("conditions");
  const json::object* status = object_at(&object, "status");
  const json::value* list = status ? status->if_contains("conditions") : nullptr;
  if (!list || !list->is_array()) return;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list->get_array().size(); ++i) {
    const std::string type = std::string(string_at(list->get_array()[i].if_object(), "type"));
    if (seen.contains(type)) errors.push_back(validation::duplicate(conditions_path.index(i).child("type"), type));
    seen.insert(type);
    if (type.empty()) errors.push_back(validation::required(conditions_path.index(i).child("type"), "must not be empty"));
  }
}

// ---- ValidatePriorityLevelConfiguration ----

// shufflesharding.RequiredEntropyBits: ceil(log2(deckSize) * handSize), with Go's math.Log2.
int required_entropy_bits(std::int64_t deck_size, std::int64_t hand_size) {
  int exponent = 0;
  const double fraction = std::frexp(static_cast<double>(deck_size), &exponent);
  const double log2 = fraction == 0.5 ? static_cast<double>(exponent - 1)
                                      : std::log(fraction) * (1 / 0.693147180559945309417232121458176568) + exponent;
  return static_cast<int>(std::ceil(log2 * static_cast<double>(hand_size)));
}

void validate_queuing(const QueuingConfiguration& queuing, const Path& path, ErrorList& errors) {
  if (queuing.queue_length_limit <= 0)
    errors.push_back(validation::invalid_value(path.child("queueLengthLimit"),
                                               std::to_string(queuing.queue_length_limit), "must be positive"));
  const std::string queues = std::to_string(queuing.queues);
  if (queuing.queues <= 0)
    errors.push_back(validation::invalid_value(path.child("queues"), queues, "must be positive"));
  else if (queuing.queues > kMaxQueues)
    errors.push_back(validation::invalid_value(path.child("queues"), queues,
                                               "must not be greater than " + std::to_string(kMaxQueues)));
  const std::string hand_size = std::to_string(queuing.hand_size);
  if (queuing.hand_size <= 0) {
    errors.push_back(validation::invalid_value(path.child("handSize"), hand_size, "must be positive"));
  } else if (queuing.hand_size > queuing.queues) {
    errors.push_back(validation::invalid_value(path.child("handSize"), hand_size,
                                               "should not be greater than queues (" + queues + ")"));
  } else if (required_entropy_bits(queuing.queues, queuing.hand_size) > kMaxHashBits) {
    errors.push_back(validation::invalid_value(path.child("handSize"), hand_size,
                                               "required entropy bits of deckSize " + queues + " and handSize " +
                                                   hand_size + " should not be greater than " +
                                                   std::to_string(kMaxHashBits)));
  }
}

void validate_limit_response(const LimitResponse& response, const Path& path, ErrorList& errors) {
  if (response.type == "Reject") {
    if (response.queuing)
      errors.push_back(validation::forbidden(path.child("queuing"),
                                             "must be nil if limited.limitResponse.type is not Limited"));
  } else if (response.type == "Queue") {
    if (!response.queuing)
      errors.push_back(validation::required(path.child("queuing"),
                                            "must not be empty if limited.limitResponse.type is Limited"));
    else
      validate_queuing(*response.queuing, path.child("queuing"), errors);
  } else {
    errors.push_back(validation::not_supported(path.child("type"), response.type, {"Queue", "Reject"}));
  }
}

bool is_percent(std::int64_t value) { return value >= 0 && value <= 100; }

void validate_limited(const LimitedPriorityLevelConfiguration& limited, const Path& path, ErrorList& errors) {
  // Zero is allowed since 1.30 (a "jail" level); only negative shares are refused.
  if (limited.nominal_concurrency_shares < 0)
    errors.push_back(validation::invalid_value(path.child("nominalConcurrencyShares"),
                                               std::to_string(limited.nominal_concurrency_shares),
                                               "must be a non-negative integer"));
  validate_limit_response(limited.limit_response, path.child("limitResponse"), errors);
  if (limited.lendable_percent && !is_percent(*limited.lendable_percent))
    errors.push_back(validation::invalid_value(path.child("lendablePercent"), std::to_string(*limited.lendable_percent),
                                               "must be between 0 and 100, inclusive"));
  if (limited.borrowing_limit_percent && *limited.borrowing_limit_percent < 0)
    errors.push_back(validation::invalid_value(path.child("borrowingLimitPercent"),
                                               std::to_string(*limited.borrowing_limit_percent),
                                               "if specified, must be a non-negative integer"));
}

void validate_exempt(const ExemptPriorityLevelConfiguration& exempt, const Path& path, ErrorList& errors) {
  if (exempt.nominal_concurrency_shares && *exempt.nominal_concurrency_shares < 0)
    errors.push_back(validation::invalid_value(path.child("nominalConcurrencyShares"),
                                               std::to_string(*exempt.nominal_concurrency_shares),
                                               "must be a non-negative integer"));
  if (exempt.lendable_percent && !is_percent(*exempt.lendable_percent))
    errors.push_back(validation::invalid_value(path.child("lendablePercent"), std::to_string(*exempt.lendable_percent),
                                               "must be between 0 and 100, inclusive"));
}

void validate_priority_level_spec(const PriorityLevelConfigurationSpec& spec, const std::string& name,
                                  const Path& path, ErrorList& errors) {
  if ((name == ::kapi::flowcontrol::kExemptName) != (spec.type == "Exempt"))
    errors.push_back(validation::invalid(path.child("type"), spec.type,
                                         "type must be 'Exempt' if and only if name is 'exempt'"));
  if (spec.type == "Exempt") {
    if (spec.limited)
      errors.push_back(validation::forbidden(path.child("limited"), "must be nil if the type is not Limited"));
    if (spec.exempt) validate_exempt(*spec.exempt, path.child("exempt"), errors);
  } else if (spec.type == "Limited") {
    if (spec.exempt) errors.push_back(validation::forbidden(path.child("exempt"), "must be nil if the type is Limited"));
    if (!spec.limited)
      errors.push_back(validation::required(path.child("limited"), "must not be empty when type is Limited"));
    else
      validate_limited(*spec.limited, path.child("limited"), errors);
  } else {
    errors.push_back(validation::not_supported(path.child("type"), spec.type, {"Exempt", "Limited"}));
  }
}

// The mandatory objects' specs, defaulted as kube's internalbootstrap holds them.
FlowSchemaSpec mandatory_flow_schema_spec(const json::object& mandatory) {
  json::object copy = mandatory;
  apply_flow_schema_defaults(copy);
  return flow_schema_spec_of(copy);
}
PriorityLevelConfigurationSpec mandatory_priority_level_spec(const json::object& mandatory) {
  json::object copy = mandatory;
  apply_priority_level_defaults(copy);
  return priority_level_spec_of(copy);
}

// v1beta3.PriorityLevelPreserveZeroConcurrencySharesKey: only v1beta3 requests may carry it, and kapi serves v1.
constexpr std::string_view kPreserveZeroConcurrencySharesAnnotation =
    "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

}  // namespace

void apply_flow_schema_defaults(json::object& flow_schema) {
  json::object& spec = ensure_object(flow_schema, "spec");
  if (int_at(&spec, "matchingPrecedence").value_or(0) == 0) spec["matchingPrecedence"] = 1000;
}

void apply_priority_level_defaults(json::object& priority_level) {
  json::object& spec = ensure_object(priority_level, "spec");
  auto set_when_nil = [](json::object& object, std::string_view key, int value) {
    const json::value* current = object.if_contains(key);
    if (!current || current->is_null()) object[key] = value;
  };
  auto set_when_zero = [](json::object& object, std::string_view key, int value) {
    if (int_at(&object, key).value_or(0) == 0) object[key] = value;
  };
  if (json::value* limited = spec.if_contains("limited"); limited && limited->is_object()) {
    json::object& level = limited->get_object();
    set_when_nil(level, "nominalConcurrencyShares", 30);
    set_when_nil(level, "lendablePercent", 0);
    json::value* response = level.if_contains("limitResponse");
    json::value* queuing = response && response->is_object() ? response->get_object().if_contains("queuing") : nullptr;
    if (queuing && queuing->is_object()) {
      set_when_zero(queuing->get_object(), "queues", 64);
      set_when_zero(queuing->get_object(), "handSize", 8);
      set_when_zero(queuing->get_object(), "queueLengthLimit", 50);
    }
  }
  if (json::value* exempt = spec.if_contains("exempt"); exempt && exempt->is_object()) {
    set_when_nil(exempt->get_object(), "nominalConcurrencyShares", 0);
    set_when_nil(exempt->get_object(), "lendablePercent", 0);
  }
}

validation::ErrorList validate_flow_schema(const json::object& flow_schema) {
  ErrorList errors;
  const std::string name(registry::meta_string(flow_schema, "name"));
  const FlowSchemaSpec spec = flow_schema_spec_of(flow_schema);
  validate_flow_schema_spec(name, spec, Path("spec"), errors);
  if (const json::object* mandatory = ::kapi::flowcontrol::mandatory_flow_schema(name)) {
    // Almost exact equality: both sides are meant to come from the same code.
    if (!(spec == mandatory_flow_schema_spec(*mandatory)))
      errors.push_back(validation::invalid_value(Path("spec"), go(spec),
                                                 "spec of '" + name + "' must equal the fixed value"));
  }
  validate_conditions(flow_schema, errors);
  return errors;
}

validation::ErrorList validate_priority_level(const json::object& priority_level) {
  ErrorList errors;
  const std::string name(registry::meta_string(priority_level, "name"));
  const json::object* annotations = object_at(object_at(&priority_level, "metadata"), "annotations");
  if (annotations && annotations->contains(kPreserveZeroConcurrencySharesAnnotation))
    errors.push_back(validation::forbidden(Path("metadata").child("annotations"),
                                           "annotation '" + std::string(kPreserveZeroConcurrencySharesAnnotation) +
                                               "' is forbidden"));
  const PriorityLevelConfigurationSpec spec = priority_level_spec_of(priority_level);
  validate_priority_level_spec(spec, name, Path("spec"), errors);
  if (const json::object* mandatory = ::kapi::flowcontrol::mandatory_priority_level(name)) {
    const PriorityLevelConfigurationSpec want = mandatory_priority_level_spec(*mandatory);
    if (name == ::kapi::flowcontrol::kExemptName) {
      // The operator may change spec.exempt of the `exempt` level, and nothing else.
      PriorityLevelConfigurationSpec have = spec;
      have.exempt = want.exempt;
      if (!(have == want))
        errors.push_back(validation::invalid_value(
            Path("spec"), go(spec), "spec of '" + name + "' except the 'spec.exempt' field must equal the fixed value"));
    } else if (!(spec == want)) {
      errors.push_back(validation::invalid_value(Path("spec"), go(spec),
                                                 "spec of '" + name + "' must equal the fixed value"));
    }
  }
  validate_conditions(priority_level, errors);
  return errors;
}

bool flow_schema_spec_equalish(const json::object& expected, const json::object& actual) {
  json::object defaulted = expected;
  apply_flow_schema_defaults(defaulted);
  return flow_schema_spec_of(defaulted) == flow_schema_spec_of(actual);
}

bool priority_level_spec_equalish(const json::object& expected, const json::object& actual) {
  json::object defaulted = expected;
  apply_priority_level_defaults(defaulted);
  PriorityLevelConfigurationSpec want = priority_level_spec_of(defaulted);
  const PriorityLevelConfigurationSpec have = priority_level_spec_of(actual);
  if (registry::meta_string(expected, "name") == ::kapi::flowcontrol::kExemptName) {
    if (!have.exempt) return false;
    if (want.exempt) {
      want.exempt->nominal_concurrency_shares = have.exempt->nominal_concurrency_shares;
      want.exempt->lendable_percent = have.exempt->lendable_percent;
    }
  }
  return want == have;
}

std::string go_flow_schema_spec(const json::object& flow_schema) { return go(flow_schema_spec_of(flow_schema)); }

std::string go_priority_level_spec(const json::object& priority_level) {
  return go(priority_level_spec_of(priority_level));
}

}  // namespace kapi::apis::apf

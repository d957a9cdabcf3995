#include "server/apis/admissionregistration/admission_validation.h"

#include "base/go_quote.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/metav1_validation.h"
#include "server/validation/names.h"

#include <boost/json.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace kapi::apis::admissionregistration {
namespace {

namespace json = boost::json;
using core::append;
using registry::fields::array_at;
using registry::fields::array_or_empty;
using registry::fields::object_at;
using registry::fields::object_or_empty;
using registry::fields::string_at;
using validation::ErrorList;
using validation::Path;

const std::vector<std::string> kFailurePolicies{"Fail", "Ignore"};
const std::vector<std::string> kMatchPolicies{"Equivalent", "Exact"};
const std::vector<std::string> kSideEffectClasses{"None", "NoneOnDryRun", "Some", "Unknown"};
const std::vector<std::string> kNoSideEffectClasses{"None", "NoneOnDryRun"};
const std::vector<std::string> kOperations{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
const std::vector<std::string> kReinvocationPolicies{"IfNeeded", "Never"};
const std::vector<std::string> kScopes{"*", "Cluster", "Namespaced"};
const std::vector<std::string> kValidationActions{"Audit", "Deny", "Warn"};
const std::vector<std::string> kValidationReasons{"Forbidden", "Invalid", "RequestEntityTooLarge"};
// The AdmissionReview versions this server and the one before it understand.
const std::vector<std::string> kAdmissionReviewVersions{"v1", "v1beta1"};
// What a list element that is not an object reads as (Go: the zero struct).
const json::object kNotAnObject;

bool contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::vector<std::string> strings_of(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& value : array_or_empty(object, key))
    out.emplace_back(value.is_string() ? std::string_view(value.as_string()) : "");
  return out;
}

// Go's %#v of a slice of a named string type, e.g. []admissionregistration.OperationType{"CREATE", "*"}.
std::string go_typed_slice(std::string_view type, const std::vector<std::string>& values) {
  std::string literal = base::go_string_slice(values);  // []string{...}
  return "[]" + std::string(type) + literal.substr(literal.find('{'));
}

std::string trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return std::string(text);
}

// A member present in JSON (Go: a non-nil pointer).
const json::value* present(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && !value->is_null() ? value : nullptr;
}

// core/validation.ValidateQualifiedName.
ErrorList qualified_name_errors(const Path& path, std::string_view name) {
  ErrorList errors;
  for (auto& message : validation::is_qualified_name(name)) errors.push_back(validation::invalid(path, name, message));
  return errors;
}

// utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments.
ErrorList fully_qualified_name_errors(const Path& path, std::string_view name) {
  if (name.empty()) return {validation::required(path)};
  std::vector<std::string> messages = validation::is_dns1123_subdomain(name);
  if (!messages.empty()) {
    std::string joined;
    for (const auto& message : messages) joined += (joined.empty() ? "" : ",") + message;
    return {validation::invalid(path, name, joined)};
  }
  if (std::count(name.begin(), name.end(), '.') < 2)
    return {validation::invalid(path, name, "should be a domain with at least three segments separated by dots")};
  return {};
}

bool has_wildcard(const std::vector<std::string>& values) { return contains(values, "*"); }

ErrorList validate_resources(const std::vector<std::string>& resources, const Path& path) {
  ErrorList errors;
  if (resources.empty()) errors.push_back(validation::required(path));
  std::set<std::string> with_wildcard_subresources, subresources_with_wildcard_resource;
  bool double_wildcard = false, single_wildcard = false, resource_without_subresource = false;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const std::string& entry = resources[i];
    if (entry.empty()) {
      errors.push_back(validation::required(path.index(i)));
      continue;
    }
    if (entry == "*/*") double_wildcard = true;
    if (entry == "*") single_wildcard = true;
    const std::size_t slash = entry.find('/');
    if (slash == std::string::npos) {
      resource_without_subresource = entry != "*";
      continue;
    }
    const std::string resource = entry.substr(0, slash), subresource = entry.substr(slash + 1);
    if (with_wildcard_subresources.contains(resource))
      errors.push_back(validation::invalid(path.index(i), entry, "if '" + resource + "/*' is present, must not specify " + entry));
    if (subresources_with_wildcard_resource.contains(subresource))
      errors.push_back(validation::invalid(path.index(i), entry, "if '*/" + subresource + "' is present, must not specify " + entry));
    if (subresource == "*") with_wildcard_subresources.insert(resource);
    if (resource == "*") subresources_with_wildcard_resource.insert(subresource);
  }
  if (resources.size() > 1 && double_wildcard)
    errors.push_back(validation::invalid_value(path, base::go_string_slice(resources),
                                               "if '*/*' is present, must not specify other resources"));
  if (single_wildcard && resource_without_subresource)
    errors.push_back(validation::invalid_value(path, base::go_string_slice(resources),
                                               "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

// validateRuleWithOperations (and validateRule with subresources allowed); `rule` holds the inlined Rule.
ErrorList validate_rule_with_operations(const json::object& rule, const Path& path) {
  ErrorList errors;
  const std::vector<std::string> operations = strings_of(rule, "operations");
  if (operations.empty()) errors.push_back(validation::required(path.child("operations")));
  if (operations.size() > 1 && has_wildcard(operations))
    errors.push_back(validation::invalid_value(path.child("operations"),
                                               go_typed_slice("admissionregistration.OperationType", operations),
                                               "if '*' is present, must not specify other operations"));
  for (std::size_t i = 0; i < operations.size(); ++i)
    if (!contains(kOperations, operations[i]))
      errors.push_back(validation::not_supported(path.child("operations").index(i), operations[i], kOperations));
  const std::vector<std::string> groups = strings_of(rule, "apiGroups");
  if (groups.empty()) errors.push_back(validation::required(path.child("apiGroups")));
  if (groups.size() > 1 && has_wildcard(groups))
    errors.push_back(validation::invalid_value(path.child("apiGroups"), base::go_string_slice(groups),
                                               "if '*' is present, must not specify other API groups"));
  const std::vector<std::string> versions = strings_of(rule, "apiVersions");
  if (versions.empty()) errors.push_back(validation::required(path.child("apiVersions")));
  if (versions.size() > 1 && has_wildcard(versions))
    errors.push_back(validation::invalid_value(path.child("apiVersions"), base::go_string_slice(versions),
                                               "if '*' is present, must not specify other API versions"));
  for (std::size_t i = 0; i < versions.size(); ++i)
    if (versions[i].empty()) errors.push_back(validation::required(path.child("apiVersions").index(i)));
  append(errors, validate_resources(strings_of(rule, "resources"), path.child("resources")));
  if (const json::value* scope = present(rule, "scope"); scope && scope->is_string() && !contains(kScopes, scope->as_string()))
    errors.push_back(validation::not_supported(path.child("scope"), scope->as_string(), kScopes));
  return errors;
}

// validateMatchConditions: at most 64, each named (a qualified name, unique) with an expression. The expression's
// CEL is not compiled here.
ErrorList validate_match_conditions(const json::object& holder, const Path& path) {
  ErrorList errors;
  const json::array& conditions = array_or_empty(holder, "matchConditions");
  if (conditions.size() > 64)
    errors.push_back({validation::ErrorType::TooMany, path.str(), std::to_string(conditions.size()),
                      "must have at most 64 items"});
  std::set<std::string> names;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const json::object& condition = conditions[i].is_object() ? conditions[i].as_object() : kNotAnObject;
    const Path at = path.index(i);
    if (trimmed(string_at(condition, "expression")).empty()) errors.push_back(validation::required(at.child("expression")));
    const std::string_view name = string_at(condition, "name");
    if (name.empty()) errors.push_back(validation::required(at.child("name")));
    else append(errors, qualified_name_errors(at.child("name"), name));
    if (!name.empty() && !names.insert(std::string(name)).second)
      errors.push_back(validation::duplicate(at.child("name"), name));
  }
  return errors;
}

ErrorList validate_admission_review_versions(const json::object& webhook, bool require_recognized, const Path& path) {
  ErrorList errors;
  const std::vector<std::string> versions = strings_of(webhook, "admissionReviewVersions");
  if (versions.empty()) {
    errors.push_back(validation::required(path, "must specify one of v1, v1beta1"));
    return errors;
  }
  std::set<std::string> seen;
  bool recognized = false;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    if (!seen.insert(versions[i]).second) {
      errors.push_back(validation::invalid(path.index(i), versions[i], "duplicate version"));
      continue;
    }
    for (auto& message : validation::is_dns1035_label(versions[i]))
      errors.push_back(validation::invalid(path.index(i), versions[i], message));
    recognized = recognized || contains(kAdmissionReviewVersions, versions[i]);
  }
  if (require_recognized && !recognized)
    errors.push_back(validation::invalid_value(path, base::go_string_slice(versions),
                                               "must include at least one of v1, v1beta1"));
  return errors;
}

// What an update tolerates because the stored configuration already has it (the Update functions' options).
struct WebhookOptions {
  bool require_no_side_effects = true;
  bool require_recognized_admission_review_version = true;
  bool require_unique_webhook_names = true;
  bool allow_invalid_label_value_in_selector = false;
  bool ignore_match_conditions = false;
};

ErrorList validate_webhook(const json::object& webhook, WebhookKind kind, const WebhookOptions& options,
                           const Path& path) {
  ErrorList errors = fully_qualified_name_errors(path.child("name"), string_at(webhook, "name"));
  const json::array& rules = array_or_empty(webhook, "rules");
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].is_object()) append(errors, validate_rule_with_operations(rules[i].as_object(), path.child("rules").index(i)));
  if (const json::value* policy = present(webhook, "failurePolicy"); policy && !contains(kFailurePolicies, string_at(webhook, "failurePolicy")))
    errors.push_back(validation::not_supported(path.child("failurePolicy"), string_at(webhook, "failurePolicy"), kFailurePolicies));
  if (present(webhook, "matchPolicy") && !contains(kMatchPolicies, string_at(webhook, "matchPolicy")))
    errors.push_back(validation::not_supported(path.child("matchPolicy"), string_at(webhook, "matchPolicy"), kMatchPolicies));
  const std::vector<std::string>& side_effects = options.require_no_side_effects ? kNoSideEffectClasses : kSideEffectClasses;
  if (!present(webhook, "sideEffects")) {
    std::string allowed;
    for (const auto& value : side_effects) allowed += (allowed.empty() ? "" : ", ") + value;
    errors.push_back(validation::required(path.child("sideEffects"), "must specify one of " + allowed));
  } else if (!contains(side_effects, string_at(webhook, "sideEffects"))) {
    errors.push_back(validation::not_supported(path.child("sideEffects"), string_at(webhook, "sideEffects"), side_effects));
  }
  if (std::optional<std::int64_t> timeout = registry::fields::int_at(webhook, "timeoutSeconds");
      timeout && (*timeout > 30 || *timeout < 1))
    errors.push_back(validation::invalid_value(path.child("timeoutSeconds"), std::to_string(*timeout),
                                               "the timeout value must be between 1 and 30 seconds"));
  for (std::string_view selector : {"namespaceSelector", "objectSelector"})
    if (const json::object* value = object_at(webhook, selector))
      append(errors, validation::validate_label_selector(*value, path.child(selector),
                                                         options.allow_invalid_label_value_in_selector));
  if (kind == WebhookKind::Mutating && present(webhook, "reinvocationPolicy") &&
      !contains(kReinvocationPolicies, string_at(webhook, "reinvocationPolicy")))
    errors.push_back(validation::not_supported(path.child("reinvocationPolicy"), string_at(webhook, "reinvocationPolicy"),
                                               kReinvocationPolicies));
  const json::object& client = object_or_empty(webhook, "clientConfig");
  const json::value* url = present(client, "url");
  const json::object* service = object_at(client, "service");
  if ((url == nullptr) == (service == nullptr))
    errors.push_back(validation::required(path.child("clientConfig"), "exactly one of url or service is required"));
  else if (url)
    append(errors, validate_webhook_url(path.child("clientConfig").child("url"), string_at(client, "url")));
  else
    append(errors, validate_webhook_service(path.child("clientConfig").child("service"), *service));
  if (!options.ignore_match_conditions) append(errors, validate_match_conditions(webhook, path.child("matchConditions")));
  return errors;
}

ErrorList validate_configuration(const json::object& configuration, WebhookKind kind, const WebhookOptions& options) {
  ErrorList errors;
  std::set<std::string> names;
  const json::array& webhooks = array_or_empty(configuration, "webhooks");
  for (std::size_t i = 0; i < webhooks.size(); ++i) {
    if (!webhooks[i].is_object()) continue;
    const json::object& webhook = webhooks[i].as_object();
    const Path at = Path("webhooks").index(i);
    append(errors, validate_webhook(webhook, kind, options, at));
    append(errors, validate_admission_review_versions(webhook, options.require_recognized_admission_review_version,
                                                      at.child("admissionReviewVersions")));
    const std::string_view name = string_at(webhook, "name");
    if (options.require_unique_webhook_names && !name.empty() && !names.insert(std::string(name)).second)
      errors.push_back(validation::duplicate(at.child("name"), name));
  }
  return errors;
}

bool selectors_have_invalid_label_values(const json::array& webhooks) {
  for (const auto& webhook : webhooks) {
    if (!webhook.is_object()) continue;
    for (std::string_view selector : {"namespaceSelector", "objectSelector"})
      if (const json::object* value = object_at(webhook.as_object(), selector))
        if (!validation::validate_label_selector(*value, Path(""), false).empty()) return true;
  }
  return false;
}

// validateMatchResources: the selectors and match policy (defaulted) and every rule.
ErrorList validate_match_resources(const json::object& match, const Path& path) {
  ErrorList errors;
  if (!present(match, "matchPolicy")) errors.push_back(validation::required(path.child("matchPolicy")));
  else if (!contains(kMatchPolicies, string_at(match, "matchPolicy")))
    errors.push_back(validation::not_supported(path.child("matchPolicy"), string_at(match, "matchPolicy"), kMatchPolicies));
  for (std::string_view selector : {"namespaceSelector", "objectSelector"}) {
    if (const json::object* value = object_at(match, selector))
      append(errors, validation::validate_label_selector(*value, path.child(selector)));
    else
      errors.push_back(validation::required(path.child(selector)));
  }
  for (std::string_view list : {"resourceRules", "excludeResourceRules"}) {
    const json::array& rules = array_or_empty(match, list);
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (!rules[i].is_object()) continue;
      const json::object& rule = rules[i].as_object();
      const Path at = path.child(list).index(i);
      std::set<std::string> names;
      const std::vector<std::string> resource_names = strings_of(rule, "resourceNames");
      for (std::size_t n = 0; n < resource_names.size(); ++n) {
        for (auto& message : validation::is_valid_path_segment_name(resource_names[n]))
          errors.push_back(validation::invalid(at.child("resourceNames").index(n), resource_names[n], message));
        if (!names.insert(resource_names[n]).second)
          errors.push_back(validation::duplicate(at.child("resourceNames").index(n), resource_names[n]));
      }
      append(errors, validate_rule_with_operations(rule, at));
    }
  }
  return errors;
}

// validateParamKind: apiVersion a group/version (group a DNS subdomain, version a DNS-1035 label), kind a
// DNS-1035 label in any case.
ErrorList validate_param_kind(const json::object& param_kind, const Path& path) {
  ErrorList errors;
  const std::string_view api_version = string_at(param_kind, "apiVersion");
  const auto join = [](const std::vector<std::string>& messages) {
    std::string joined;
    for (const auto& message : messages) joined += (joined.empty() ? "" : ",") + message;
    return joined;
  };
  if (api_version.empty()) {
    errors.push_back(validation::required(path.child("apiVersion")));
  } else if (std::count(api_version.begin(), api_version.end(), '/') > 1) {
    errors.push_back(validation::invalid(path.child("apiVersion"), api_version,
                                         "unexpected GroupVersion string: " + std::string(api_version)));
  } else if (api_version != "/") {
    const std::size_t slash = api_version.find('/');
    const std::string_view group = slash == std::string_view::npos ? "" : api_version.substr(0, slash);
    const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
    if (!group.empty())
      if (auto messages = validation::is_dns1123_subdomain(group); !messages.empty())
        errors.push_back(validation::invalid(path.child("apiVersion"), group, join(messages)));
    if (version.empty())
      errors.push_back(validation::invalid(path.child("apiVersion"), api_version, "version must be specified"));
    else if (auto messages = validation::is_dns1035_label(version); !messages.empty())
      errors.push_back(validation::invalid(path.child("apiVersion"), version, join(messages)));
  }
  const std::string_view kind = string_at(param_kind, "kind");
  std::string lower(kind);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (kind.empty()) errors.push_back(validation::required(path.child("kind")));
  else if (auto messages = validation::is_dns1035_label(lower); !messages.empty())
    errors.push_back(validation::invalid(path.child("kind"), kind,
                                         "may have mixed case, but should otherwise match: " + join(messages)));
  return errors;
}

bool is_cel_identifier(std::string_view name) {
  static const std::regex identifier("^[_a-zA-Z][_a-zA-Z0-9]*$");
  static const std::set<std::string_view> reserved{"true", "false", "null", "in", "as", "break", "const",
                                                   "continue", "else", "for", "function", "if", "import", "let",
                                                   "loop", "package", "namespace", "return", "var", "void", "while"};
  return std::regex_match(name.begin(), name.end(), identifier) && !reserved.contains(name);
}

ErrorList validate_validation(const json::object& rule, const Path& path) {
  ErrorList errors;
  if (trimmed(string_at(rule, "expression")).empty())
    errors.push_back(validation::required(path.child("expression"), "expression is not specified"));
  const std::string_view message_expression = string_at(rule, "messageExpression");
  if (!message_expression.empty() && trimmed(message_expression).empty())
    errors.push_back(validation::invalid(path.child("messageExpression"), message_expression, "must be non-empty if specified"));
  const std::string_view message = string_at(rule, "message");
  const std::string trimmed_message = trimmed(message);
  if (!message.empty() && trimmed_message.empty())
    errors.push_back(validation::invalid(path.child("message"), message, "message must be non-empty if specified"));
  else if (trimmed_message.find_first_of("\r\n") != std::string::npos)
    errors.push_back(validation::invalid(path.child("message"), message, "message must not contain line breaks"));
  if (present(rule, "reason") && !contains(kValidationReasons, string_at(rule, "reason")))
    errors.push_back(validation::not_supported(path.child("reason"), string_at(rule, "reason"), kValidationReasons));
  return errors;
}

ErrorList validate_audit_annotation(std::string_view policy_name, const json::object& annotation, const Path& path) {
  ErrorList errors;
  const std::string_view key = string_at(annotation, "key");
  if (!policy_name.empty())
    append(errors, qualified_name_errors(path.child("key"), std::string(policy_name) + "/" + std::string(key)));
  else
    errors.push_back(validation::invalid(path.child("key"), key, "requires metadata.name be non-empty"));
  const std::string value = trimmed(string_at(annotation, "valueExpression"));
  if (value.empty())
    errors.push_back(validation::required(path.child("valueExpression"), "valueExpression is not specified"));
  else if (value.size() > 5 * 1024)
    errors.push_back(validation::required(path.child("valueExpression"), "must not exceed 5120 bytes in length"));
  return errors;
}

}  // namespace

ErrorList validate_webhook_url(const Path& path, std::string_view url) {
  // net/url.Parse's split of an absolute URL: scheme ":" ["//" [userinfo "@"] host] path ["?" query] ["#" fragment].
  ErrorList errors;
  const std::string form = "; desired format: https://host[/path]";
  std::string_view rest = url;
  std::string fragment, query, scheme, host, user;
  if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  static const std::regex scheme_pattern("^([a-zA-Z][a-zA-Z0-9+.-]*):");
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_search(rest.begin(), rest.end(), match, scheme_pattern)) {
    scheme = match[1].str();
    rest.remove_prefix(static_cast<std::size_t>(match.length(0)));
  } else if (!rest.empty() && rest.front() == ':') {
    errors.push_back(validation::required(path, "url must be a valid URL: parse " + base::go_quote(url) +
                                                    ": missing protocol scheme" + form));
    return errors;
  }
  if (std::size_t question = rest.find('?'); question != std::string_view::npos) {
    query = rest.substr(question + 1);
    rest = rest.substr(0, question);
  }
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    std::string_view authority = rest.substr(0, rest.find('/'));
    if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
      user = authority.substr(0, at);
      authority = authority.substr(at + 1);
    }
    host = authority;
  }
  std::string lower_scheme = scheme;
  std::transform(lower_scheme.begin(), lower_scheme.end(), lower_scheme.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower_scheme != "https")
    errors.push_back(validation::invalid(path, lower_scheme, "'https' is the only allowed URL scheme" + form));
  if (host.empty()) errors.push_back(validation::invalid(path, host, "host must be specified" + form));
  if (!user.empty()) errors.push_back(validation::invalid(path, user, "user information is not permitted in the URL"));
  if (!fragment.empty()) errors.push_back(validation::invalid(path, fragment, "fragments are not permitted in the URL"));
  if (!query.empty()) errors.push_back(validation::invalid(path, query, "query parameters are not permitted in the URL"));
  return errors;
}

ErrorList validate_webhook_service(const Path& path, const json::object& service) {
  ErrorList errors;
  if (string_at(service, "name").empty()) errors.push_back(validation::required(path.child("name")));
  if (string_at(service, "namespace").empty()) errors.push_back(validation::required(path.child("namespace")));
  const std::int64_t port = registry::fields::int_at(service, "port").value_or(443);
  if (auto messages = core::port_number_errors(port); !messages.empty()) {
    std::string joined;
    for (const auto& message : messages) joined += (joined.empty() ? "" : ", ") + message;
    errors.push_back(validation::invalid_value(path.child("port"), std::to_string(port), "port is not valid: " + joined));
  }
  if (!present(service, "path")) return errors;
  const std::string_view url_path = string_at(service, "path");
  if (url_path == "/" || url_path.empty()) return errors;
  if (url_path == "//") {
    errors.push_back(validation::invalid(path.child("path"), url_path, "segment[0] may not be empty"));
    return errors;
  }
  if (!url_path.starts_with("/")) errors.push_back(validation::invalid(path.child("path"), url_path, "must start with a '/'"));
  std::string_view steps = url_path.substr(1);
  if (steps.ends_with("/")) steps.remove_suffix(1);
  for (std::size_t index = 0, start = 0;; ++index) {
    const std::size_t slash = steps.find('/', start);
    const std::string_view step = steps.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (step.empty())
      errors.push_back(validation::invalid(path.child("path"), url_path, "segment[" + std::to_string(index) + "] may not be empty"));
    else
      for (auto& message : validation::is_dns1123_subdomain(step))
        errors.push_back(validation::invalid(path.child("path"), url_path,
                                             "segment[" + std::to_string(index) + "]: " + message));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return errors;
}

ErrorList validate_webhook_configuration(const json::object& configuration, WebhookKind kind) {
  return validate_configuration(configuration, kind, WebhookOptions{});
}

ErrorList validate_webhook_configuration_update(const json::object& configuration, const json::object& old,
                                                WebhookKind kind) {
  const json::array& webhooks = array_or_empty(configuration, "webhooks");
  const json::array& old_webhooks = array_or_empty(old, "webhooks");
  WebhookOptions options;
  std::set<std::string> names;
  for (const auto& value : old_webhooks) {
    const json::object& webhook = value.is_object() ? value.as_object() : kNotAnObject;
    if (!present(webhook, "sideEffects") || !contains(kNoSideEffectClasses, string_at(webhook, "sideEffects")))
      options.require_no_side_effects = false;
    const std::vector<std::string> versions = strings_of(webhook, "admissionReviewVersions");
    if (!versions.empty() && std::none_of(versions.begin(), versions.end(),
                                          [](const std::string& v) { return contains(kAdmissionReviewVersions, v); }))
      options.require_recognized_admission_review_version = false;
    if (!names.insert(std::string(string_at(webhook, "name"))).second) options.require_unique_webhook_names = false;
  }
  options.allow_invalid_label_value_in_selector = selectors_have_invalid_label_values(old_webhooks);
  // Match conditions already stored are not checked again unless they change.
  options.ignore_match_conditions = webhooks.size() == old_webhooks.size();
  for (std::size_t i = 0; options.ignore_match_conditions && i < webhooks.size(); ++i) {
    const json::value* now = webhooks[i].is_object() ? webhooks[i].as_object().if_contains("matchConditions") : nullptr;
    const json::value* before = old_webhooks[i].is_object() ? old_webhooks[i].as_object().if_contains("matchConditions") : nullptr;
    options.ignore_match_conditions = (now ? *now : json::value()) == (before ? *before : json::value());
  }
  return validate_configuration(configuration, kind, options);
}

ErrorList validate_admission_policy(const json::object& policy) {
  ErrorList errors;
  const json::object& spec = object_or_empty(policy, "spec");
  const Path path("spec");
  if (!present(spec, "failurePolicy")) errors.push_back(validation::required(path.child("failurePolicy")));
  else if (!contains(kFailurePolicies, string_at(spec, "failurePolicy")))
    errors.push_back(validation::not_supported(path.child("failurePolicy"), string_at(spec, "failurePolicy"), kFailurePolicies));
  if (const json::object* param_kind = object_at(spec, "paramKind"))
    append(errors, validate_param_kind(*param_kind, path.child("paramKind")));
  if (const json::object* constraints = object_at(spec, "matchConstraints")) {
    append(errors, validate_match_resources(*constraints, path.child("matchConstraints")));
    // At least one resource rule, for the type information the expressions are checked against.
    if (array_or_empty(*constraints, "resourceRules").empty())
      errors.push_back(validation::required(path.child("matchConstraints").child("resourceRules")));
  } else {
    errors.push_back(validation::required(path.child("matchConstraints")));
  }
  append(errors, validate_match_conditions(spec, path.child("matchConditions")));
  const json::array& variables = array_or_empty(spec, "variables");
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const json::object& variable = variables[i].is_object() ? variables[i].as_object() : kNotAnObject;
    const Path at = path.child("variables").index(i);
    const std::string_view name = string_at(variable, "name");
    if (trimmed(name).empty()) errors.push_back(validation::required(at.child("name"), "name is not specified"));
    else if (!is_cel_identifier(name))
      errors.push_back(validation::invalid(at.child("name"), name, "name is not a valid CEL identifier"));
    if (trimmed(string_at(variable, "expression")).empty())
      errors.push_back(validation::required(at.child("expression"), "expression is not specified"));
  }
  const json::array& validations = array_or_empty(spec, "validations");
  const json::array& audit_annotations = array_or_empty(spec, "auditAnnotations");
  if (validations.empty() && audit_annotations.empty()) {
    const std::string message = "validations or auditAnnotations must contain at least one item";
    errors.push_back(validation::required(path.child("validations"), message));
    errors.push_back(validation::required(path.child("auditAnnotations"), message));
    return errors;
  }
  for (std::size_t i = 0; i < validations.size(); ++i)
    if (validations[i].is_object()) append(errors, validate_validation(validations[i].as_object(), path.child("validations").index(i)));
  if (audit_annotations.size() > 20)
    errors.push_back(validation::invalid_value(path.child("auditAnnotations"), "[]admissionregistration.AuditAnnotation{...}",
                                               "must not have more than 20 auditAnnotations"));
  std::set<std::string> keys;
  const std::string_view policy_name = registry::fields::string_at(object_or_empty(policy, "metadata"), "name");
  for (std::size_t i = 0; i < audit_annotations.size(); ++i) {
    if (!audit_annotations[i].is_object()) continue;
    const json::object& annotation = audit_annotations[i].as_object();
    const Path at = path.child("auditAnnotations").index(i);
    append(errors, validate_audit_annotation(policy_name, annotation, at));
    const std::string_view key = string_at(annotation, "key");
    if (!keys.insert(std::string(key)).second) errors.push_back(validation::duplicate(at.child("key"), key));
  }
  return errors;
}

ErrorList validate_admission_policy_status(const json::object& policy) {
  ErrorList errors;
  const json::object& status = object_or_empty(policy, "status");
  const Path path("status");
  if (const json::object* type_checking = object_at(status, "typeChecking")) {
    const json::array& warnings = array_or_empty(*type_checking, "expressionWarnings");
    for (std::size_t i = 0; i < warnings.size(); ++i) {
      const json::object& warning = warnings[i].is_object() ? warnings[i].as_object() : kNotAnObject;
      const Path at = path.child("typeChecking").child("expressionWarnings").index(i);
      if (string_at(warning, "warning").empty()) errors.push_back(validation::required(at.child("warning")));
      // The fieldRef's JSONPath syntax is not parsed (kube: jsonpath.Parse).
      if (trimmed(string_at(warning, "fieldRef")).empty()) errors.push_back(validation::required(at.child("fieldRef")));
    }
  }
  append(errors, validation::validate_conditions(array_or_empty(status, "conditions"), path.child("conditions")));
  return errors;
}

ErrorList validate_policy_binding(const json::object& binding) {
  ErrorList errors;
  const json::object& spec = object_or_empty(binding, "spec");
  const Path path("spec");
  const std::string_view policy_name = string_at(spec, "policyName");
  if (policy_name.empty()) errors.push_back(validation::required(path.child("policyName")));
  else
    for (auto& message : validation::is_dns1123_subdomain(policy_name))
      errors.push_back(validation::invalid(path.child("policyName"), policy_name, message));
  if (const json::object* param_ref = object_at(spec, "paramRef")) {
    const Path at = path.child("paramRef");
    const std::string_view name = string_at(*param_ref, "name");
    const json::object* selector = object_at(*param_ref, "selector");
    if (!name.empty()) {
      for (auto& message : validation::is_valid_path_segment_name(name))
        errors.push_back(validation::invalid(at.child("name"), name, message));
      if (selector) errors.push_back(validation::forbidden(at.child("name"), "name and selector are mutually exclusive"));
    }
    if (selector) {
      append(errors, validation::validate_label_selector(*selector, at.child("selector")));
      if (!name.empty()) errors.push_back(validation::forbidden(at.child("selector"), "name and selector are mutually exclusive"));
    }
    if (name.empty() && !selector) errors.push_back(validation::required(at, "one of name or selector must be specified"));
    const std::string_view action = string_at(*param_ref, "parameterNotFoundAction");
    if (action.empty()) errors.push_back(validation::required(at.child("parameterNotFoundAction")));
    else if (action != "Deny" && action != "Allow")
      errors.push_back(validation::not_supported(at.child("parameterNotFoundAction"), action, {"Deny", "Allow"}));
  }
  // kube's path spells it "matchResouces".
  if (const json::object* match = object_at(spec, "matchResources"))
    append(errors, validate_match_resources(*match, path.child("matchResouces")));
  const std::vector<std::string> actions = strings_of(spec, "validationActions");
  const Path actions_path = path.child("validationActions");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (!contains(kValidationActions, actions[i]))
      errors.push_back(validation::not_supported(actions_path.index(i), actions[i], kValidationActions));
    if (!seen.insert(actions[i]).second) errors.push_back(validation::duplicate(actions_path.index(i), actions[i]));
  }
  if (seen.contains("Deny") && seen.contains("Warn"))
    errors.push_back(validation::invalid_value(
        actions_path, go_typed_slice("admissionregistration.ValidationAction", actions),
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response "
        "and headers serves no purpose)"));
  if (seen.empty()) errors.push_back(validation::required(actions_path, "at least one validation action is required"));
  return errors;
}

}  // namespace kapi::apis::admissionregistration

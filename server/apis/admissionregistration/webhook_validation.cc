#include "server/apis/admissionregistration/admission_validation.h"

#include "server/apis/admissionregistration/admission_rules.h"

#include "base/go_regexp.h"
#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/metav1_validation.h"

#include <boost/json.hpp>

#include <algorithm>
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

const std::vector<std::string> kSideEffectClasses{"None", "NoneOnDryRun", "Some", "Unknown"};
const std::vector<std::string> kNoSideEffectClasses{"None", "NoneOnDryRun"};
const std::vector<std::string> kReinvocationPolicies{"IfNeeded", "Never"};
// The AdmissionReview versions this server and the one before it understand.
const std::vector<std::string> kAdmissionReviewVersions{"v1", "v1beta1"};

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
  ExpressionSet preexisting_match_conditions;  // findValidatingPreexistingExpressions / findMutating...
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
  if (!options.ignore_match_conditions)
    append(errors, validate_match_conditions(webhook, path.child("matchConditions"), false,
                                              options.preexisting_match_conditions));
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
  static const RE2 scheme_pattern("([a-zA-Z][a-zA-Z0-9+.-]*):", base::go_regexp_options());  // Consume anchors it
  if (re2::StringPiece after(rest.data(), rest.size()); RE2::Consume(&after, scheme_pattern, &scheme)) {
    rest.remove_prefix(rest.size() - after.size());
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
    const json::object& webhook = value.is_object() ? value.as_object() : not_an_object();
    if (!present(webhook, "sideEffects") || !contains(kNoSideEffectClasses, string_at(webhook, "sideEffects")))
      options.require_no_side_effects = false;
    const std::vector<std::string> versions = strings_of(webhook, "admissionReviewVersions");
    if (!versions.empty() && std::none_of(versions.begin(), versions.end(),
                                          [](const std::string& v) { return contains(kAdmissionReviewVersions, v); }))
      options.require_recognized_admission_review_version = false;
    if (!names.insert(std::string(string_at(webhook, "name"))).second) options.require_unique_webhook_names = false;
    for (const json::value& condition : array_or_empty(webhook, "matchConditions"))
      if (condition.is_object()) options.preexisting_match_conditions.emplace(string_at(condition.as_object(), "expression"));
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

}  // namespace kapi::apis::admissionregistration

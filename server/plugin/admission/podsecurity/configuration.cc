// PodSecurityConfiguration as k8s.io/pod-security-admission/admission/api decodes (load/load.go: a strict decoder
// over v1alpha1, v1beta1 and v1), defaults (v1*/defaults.go), converts (helpers.go ToPolicy) and validates
// (validation/validation.go) it, and as the plugin reports a bad one (ValidateInitialization).
#include "server/plugin/admission/podsecurity/configuration.h"

#include "base/name_validation.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>

namespace kapi::admission::podsecurity {
namespace {

namespace json = boost::json;

constexpr std::string_view kGroup = "pod-security.admission.config.k8s.io";
constexpr std::array<std::string_view, 6> kDefaultsFields{"enforce", "enforce-version", "audit",
                                                         "audit-version", "warn", "warn-version"};
constexpr std::array<std::string_view, 3> kExemptionsFields{"usernames", "namespaces", "runtimeClasses"};

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

// The strict decoder's refusal of a field the type does not have.
void refuse_unknown_fields(const json::object& object, std::string_view prefix,
                           std::span<const std::string_view> known) {
  for (const auto& [key, value] : object) {
    if (std::ranges::find(known, std::string_view(key)) == known.end()) fail("strict decoding error: unknown field \"" + std::string(prefix) + std::string(key) + "\"");
  }
}

std::string string_member(const json::object& object, std::string_view key, std::string_view path) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return "";
  if (!value->is_string())
    fail("json: cannot unmarshal " + std::string(value->is_object() ? "object" : value->is_array() ? "array" : "number") +
         " into Go struct field " + std::string(path) + " of type string");
  return std::string(value->as_string());
}

std::vector<std::string> string_list(const json::object& object, std::string_view key, std::string_view path) {
  std::vector<std::string> items;
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return items;
  if (!value->is_array()) fail("json: cannot unmarshal into Go struct field " + std::string(path) + " of type []string");
  for (const auto& item : value->as_array()) {
    if (!item.is_string()) fail("json: cannot unmarshal into Go struct field " + std::string(path) + " of type string");
    items.emplace_back(item.as_string());
  }
  return items;
}

struct Defaults {
  std::array<std::string, 6> values;  // in kDefaultsFields order
};

// ToPolicy: each default parsed, every failure named by its field.
Policy to_policy(const Defaults& defaults) {
  std::vector<std::string> errors;
  Policy policy;
  std::array<LevelVersion*, 3> modes{&policy.enforce, &policy.audit, &policy.warn};
  for (std::size_t mode = 0; mode < 3; ++mode) {
    const std::string& level = defaults.values[mode * 2];
    const std::string& version = defaults.values[mode * 2 + 1];
    const std::string level_field(kDefaultsFields[mode * 2]);
    const std::string version_field(kDefaultsFields[mode * 2 + 1]);
    if (level.empty()) errors.push_back(level_field + ": required");
    else if (auto parsed = parse_level(level)) modes[mode]->level = *parsed;
    else errors.push_back(level_field + ": " + std::string(kLevelError));
    if (version.empty()) errors.push_back(version_field + ": required");
    else if (auto parsed = parse_version(version)) modes[mode]->version = *parsed;
    else errors.push_back(version_field + ": " + std::string(kVersionError));
  }
  if (errors.size() == 1) fail("PodSecurity configuration error: " + errors.front());
  if (!errors.empty()) {
    std::string text;
    for (const std::string& error : errors) text += (text.empty() ? "" : ", ") + error;
    fail("PodSecurity configuration error: [" + text + "]");
  }
  return policy;
}

void validate_names(validation::ErrorList& errors, const std::vector<std::string>& names, std::string_view field,
                    std::vector<std::string> (*name_errors)(std::string_view)) {
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const validation::Path path = validation::Path("exemptions").child(field).index(i);
    std::vector<std::string> problems = name_errors(names[i]);
    if (!problems.empty()) {
      std::string detail;
      for (const std::string& problem : problems) detail += (detail.empty() ? "" : ", ") + problem;
      errors.push_back(validation::invalid(path, names[i], detail));
      continue;
    }
    if (std::ranges::find(seen, names[i]) != seen.end()) {
      errors.push_back(validation::duplicate(path, names[i]));
      continue;
    }
    seen.push_back(names[i]);
  }
}

std::vector<std::string> username_errors(std::string_view name) {
  if (name.empty()) return {"username must not be empty"};
  return {};
}

}  // namespace

Configuration load_configuration(const json::value* configuration) {
  Defaults defaults;
  Configuration result;
  if (configuration && !configuration->is_null()) {
    const json::object* object = configuration->if_object();
    if (!object) fail("couldn't get version/kind; json parse error: expected an object");
    const std::string api_version = string_member(*object, "apiVersion", "apiVersion");
    const std::string kind = string_member(*object, "kind", "kind");
    if (kind.empty()) fail("Object 'Kind' is missing in '" + json::serialize(*object) + "'");
    const bool known_version = api_version == std::string(kGroup) + "/v1" ||
                               api_version == std::string(kGroup) + "/v1beta1" ||
                               api_version == std::string(kGroup) + "/v1alpha1";
    if (!known_version || kind != "PodSecurityConfiguration")
      fail("no kind \"" + kind + "\" is registered for version \"" + api_version + "\" in scheme");
    static constexpr std::array<std::string_view, 4> kTopFields{"apiVersion", "kind", "defaults", "exemptions"};
    refuse_unknown_fields(*object, "", kTopFields);
    if (const json::object* given = object->contains("defaults") ? object->at("defaults").if_object() : nullptr) {
      refuse_unknown_fields(*given, "defaults.", kDefaultsFields);
      for (std::size_t i = 0; i < kDefaultsFields.size(); ++i)
        defaults.values[i] = string_member(*given, kDefaultsFields[i],
                                           "PodSecurityConfiguration.defaults." + std::string(kDefaultsFields[i]));
    }
    if (const json::object* given = object->contains("exemptions") ? object->at("exemptions").if_object() : nullptr) {
      refuse_unknown_fields(*given, "exemptions.", kExemptionsFields);
      result.exempt_usernames = string_list(*given, "usernames", "PodSecurityConfiguration.exemptions.usernames");
      result.exempt_namespaces = string_list(*given, "namespaces", "PodSecurityConfiguration.exemptions.namespaces");
      result.exempt_runtime_classes =
          string_list(*given, "runtimeClasses", "PodSecurityConfiguration.exemptions.runtimeClasses");
    }
  }
  // SetDefaults_PodSecurityDefaults: privileged, latest.
  for (std::size_t i = 0; i < defaults.values.size(); ++i)
    if (defaults.values[i].empty()) defaults.values[i] = i % 2 == 0 ? "privileged" : "latest";
  result.defaults = to_policy(defaults);

  validation::ErrorList errors;
  validate_names(errors, result.exempt_namespaces, "namespaces", validation::is_dns1123_label);
  validate_names(errors, result.exempt_runtime_classes, "runtimeClasses", validation::is_dns1123_subdomain);
  validate_names(errors, result.exempt_usernames, "usernames", username_errors);
  if (!errors.empty()) fail("PodSecurity invalid: " + aggregate_text(errors));
  return result;
}

}  // namespace kapi::admission::podsecurity

// Levels, versions and namespace policies (k8s.io/pod-security-admission/api/helpers.go), the aggregation of check
// results (policy/checks.go) and the choice of checks per level and version (policy/registry.go), release-1.32.
#include "server/plugin/admission/podsecurity/policy.h"

#include "server/plugin/admission/podsecurity/checks.h"

#include <algorithm>
#include <charconv>

namespace kapi::admission::podsecurity {

std::string_view to_string(Level level) {
  switch (level) {
    case Level::Privileged: return "privileged";
    case Level::Baseline: return "baseline";
    case Level::Restricted: return "restricted";
  }
  return "";
}

int compare_levels(Level a, Level b) {
  return static_cast<int>(a) < static_cast<int>(b) ? -1 : static_cast<int>(a) > static_cast<int>(b) ? 1 : 0;
}

std::string Version::str() const {
  if (latest) return "latest";
  return "v" + std::to_string(major) + "." + std::to_string(minor);
}

bool Version::older_than(const Version& other) const {
  if (latest) return false;
  if (other.latest) return true;
  if (major != other.major) return major < other.major;
  return minor < other.minor;
}

std::string LevelVersion::str() const { return std::string(to_string(level)) + ":" + version.str(); }

bool LevelVersion::equivalent(const LevelVersion& other) const {
  return (level == Level::Privileged && other.level == Level::Privileged) || *this == other;
}

bool Policy::fully_privileged() const {
  return enforce.level == Level::Privileged && audit.level == Level::Privileged && warn.level == Level::Privileged;
}

bool Policy::equivalent(const Policy& other) const {
  return enforce.equivalent(other.enforce) && audit.equivalent(other.audit) && warn.equivalent(other.warn);
}

std::optional<Level> parse_level(std::string_view text) {
  if (text == "privileged") return Level::Privileged;
  if (text == "baseline") return Level::Baseline;
  if (text == "restricted") return Level::Restricted;
  return std::nullopt;
}

// `^v1\.([0-9]|[1-9][0-9]*)$`, the number fitting Go's int.
std::optional<Version> parse_version(std::string_view text) {
  if (text == "latest") return Version::newest();
  if (!text.starts_with("v1.")) return std::nullopt;
  const std::string_view digits = text.substr(3);
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  if (!std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  std::int64_t minor = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), minor);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return Version::numbered(1, minor);
}

namespace {

const boost::json::value* label(const boost::json::object* labels, std::string_view key) {
  return labels ? labels->if_contains(key) : nullptr;
}

std::string_view label_text(const boost::json::value* value) {
  return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}

void invalid_label(validation::ErrorList& errors, std::string_view key, std::string_view value,
                   std::string_view detail) {
  errors.push_back(validation::invalid(validation::Path("metadata").child("labels").key(key), value,
                                       std::string(detail)));
}

}  // namespace

PolicyEvaluation policy_to_evaluate(const boost::json::object* labels, const Policy& defaults) {
  PolicyEvaluation result{defaults, {}};
  Policy& policy = result.policy;
  if (!labels || labels->empty()) return result;
  bool has_enforce_level = false;
  if (const auto* value = label(labels, kEnforceLevelLabel)) {
    const std::optional<Level> level = parse_level(label_text(value));
    policy.enforce.level = level.value_or(Level::Restricted);  // fail closed
    has_enforce_level = level.has_value();  // an invalid level gives warn no default
    if (!level) invalid_label(result.errors, kEnforceLevelLabel, label_text(value), kLevelError);
  }
  if (const auto* value = label(labels, kEnforceVersionLabel)) {
    const std::optional<Version> version = parse_version(label_text(value));
    policy.enforce.version = version.value_or(Version::newest());
    if (!version) invalid_label(result.errors, kEnforceVersionLabel, label_text(value), kVersionError);
  }
  if (const auto* value = label(labels, kAuditLevelLabel)) {
    const std::optional<Level> level = parse_level(label_text(value));
    policy.audit.level = level.value_or(Level::Privileged);  // fail open
    if (!level) invalid_label(result.errors, kAuditLevelLabel, label_text(value), kLevelError);
  }
  if (const auto* value = label(labels, kAuditVersionLabel)) {
    const std::optional<Version> version = parse_version(label_text(value));
    policy.audit.version = version.value_or(Version::newest());
    if (!version) invalid_label(result.errors, kAuditVersionLabel, label_text(value), kVersionError);
  }
  const auto* warn_level = label(labels, kWarnLevelLabel);
  if (warn_level) {
    const std::optional<Level> level = parse_level(label_text(warn_level));
    policy.warn.level = level.value_or(Level::Privileged);  // fail open
    if (!level) invalid_label(result.errors, kWarnLevelLabel, label_text(warn_level), kLevelError);
  }
  const auto* warn_version = label(labels, kWarnVersionLabel);
  if (warn_version) {
    const std::optional<Version> version = parse_version(label_text(warn_version));
    policy.warn.version = version.value_or(Version::newest());
    if (!version) invalid_label(result.errors, kWarnVersionLabel, label_text(warn_version), kVersionError);
  }
  // Warn at least at the enforced level unless warn is labelled itself.
  if (!warn_level && has_enforce_level && compare_levels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!warn_version) policy.warn.version = policy.enforce.version;
  }
  return result;
}

std::string aggregate_text(const validation::ErrorList& errors) {
  if (errors.size() == 1) return errors.front().text();
  std::string text;
  for (const auto& error : errors) text += (text.empty() ? "" : ", ") + error.text();
  return "[" + text + "]";
}

std::string AggregateCheckResult::forbidden_reason() const { return join(reasons, ", "); }

std::string AggregateCheckResult::forbidden_detail() const {
  std::string text;
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) text += ", ";
    text += reasons[i];
    if (!details[i].empty()) text += " (" + details[i] + ")";
  }
  return text;
}

AggregateCheckResult aggregate(const std::vector<CheckResult>& results) {
  AggregateCheckResult aggregated;
  for (const CheckResult& result : results) {
    if (result.allowed) continue;
    aggregated.reasons.push_back(result.reason.empty() ? "unknown forbidden reason" : result.reason);
    aggregated.details.push_back(result.detail);
  }
  aggregated.allowed = aggregated.reasons.empty();
  return aggregated;
}

namespace {

struct Registry {
  std::vector<Check> baseline;    // by id
  std::vector<Check> restricted;  // by id
  Version newest;
};

const Registry& registry() {
  static const Registry instance = [] {
    Registry built{baseline_checks(), restricted_checks(), Version::numbered(1, 0)};
    auto by_id = [](const Check& a, const Check& b) { return a.id < b.id; };
    std::ranges::sort(built.baseline, by_id);
    std::ranges::sort(built.restricted, by_id);
    for (const auto* checks : {&built.baseline, &built.restricted})
      for (const Check& check : *checks)
        if (built.newest.older_than(check.versions.back().minimum)) built.newest = check.versions.back().minimum;
    return built;
  }();
  return instance;
}

// The version of `check` in force at `version`, null before its first one.
const VersionedCheck* at_version(const Check& check, const Version& version) {
  const VersionedCheck* found = nullptr;
  for (const VersionedCheck& versioned : check.versions)
    if (!version.older_than(versioned.minimum)) found = &versioned;
  return found;
}

}  // namespace

Version newest_check_version() { return registry().newest; }

std::vector<CheckResult> evaluate_pod(const LevelVersion& level_version, const PodView& pod) {
  std::vector<CheckResult> results;
  if (level_version.level == Level::Privileged) return results;
  const Registry& checks = registry();
  Version version = level_version.version;
  if (checks.newest.older_than(version)) version = checks.newest;

  std::vector<std::string_view> overridden;
  std::vector<CheckFunction> restricted;
  if (level_version.level == Level::Restricted) {
    for (const Check& check : checks.restricted) {
      if (const VersionedCheck* versioned = at_version(check, version)) {
        restricted.push_back(versioned->check);
        overridden.insert(overridden.end(), versioned->overrides.begin(), versioned->overrides.end());
      }
    }
  }
  for (const Check& check : checks.baseline) {
    if (std::ranges::find(overridden, check.id) != overridden.end()) continue;
    if (const VersionedCheck* versioned = at_version(check, version)) results.push_back(versioned->check(pod));
  }
  for (CheckFunction check : restricted) results.push_back(check(pod));
  return results;
}

// Helpers the checks share (checks.h).

namespace json_view {

const boost::json::object* object_at(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  return value ? value->if_object() : nullptr;
}

const boost::json::array* array_at(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  return value ? value->if_array() : nullptr;
}

std::optional<bool> bool_at(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  if (!value || !value->is_bool()) return std::nullopt;
  return value->as_bool();
}

std::optional<std::int64_t> int_at(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->as_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->as_uint64());
  if (value->is_double()) return static_cast<std::int64_t>(value->as_double());
  return std::nullopt;
}

std::string_view string_at(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}

bool has(const boost::json::object* object, std::string_view key) {
  const boost::json::value* value = object ? object->if_contains(key) : nullptr;
  return value && !value->is_null();
}

}  // namespace json_view

void visit_containers(const boost::json::object* spec, const std::function<void(const boost::json::object&)>& visit) {
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const boost::json::array* containers = json_view::array_at(spec, list))
      for (const auto& container : *containers)
        if (const boost::json::object* fields = container.if_object()) visit(*fields);
  }
}

std::string container_name(const boost::json::object& container) {
  return std::string(json_view::string_at(&container, "name"));
}

bool is_windows_pod(const PodView& pod) {
  return json_view::string_at(json_view::object_at(pod.spec, "os"), "name") == "windows";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i > 0 ? std::string(separator) : "") + items[i];
  return text;
}

std::string join(const std::set<std::string>& items, std::string_view separator) {
  return join(std::vector<std::string>(items.begin(), items.end()), separator);
}

std::string join_quote(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  return "\"" + join(items, "\", \"") + "\"";
}

std::string join_quote(const std::set<std::string>& items) {
  return join_quote(std::vector<std::string>(items.begin(), items.end()));
}

std::string containers_phrase(const std::vector<std::string>& names) {
  return std::string(pluralize("container", "containers", names.size())) + " " + join_quote(names);
}

}  // namespace kapi::admission::podsecurity

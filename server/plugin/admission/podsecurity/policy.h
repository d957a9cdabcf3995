#pragma once
// The Pod Security Standards as k8s.io/pod-security-admission defines them (api/helpers.go, api/constants.go,
// policy/checks.go, policy/registry.go): levels and versions, the policy a namespace's labels select, and the
// evaluation of a pod (its metadata and spec, as stored JSON) against one level and version.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission::podsecurity {

enum class Level { Privileged, Baseline, Restricted };

std::string_view to_string(Level level);
// api.CompareLevels: <0 when a is less strict than b.
int compare_levels(Level a, Level b);

// "v1.N" or "latest"; latest is newer than every numbered version, even future ones.
struct Version {
  std::int64_t major = 0;
  std::int64_t minor = 0;
  bool latest = false;

  static Version numbered(std::int64_t major, std::int64_t minor) { return {major, minor, false}; }
  static Version newest() { return {0, 0, true}; }
  std::string str() const;
  bool older_than(const Version& other) const;
  bool operator==(const Version&) const = default;
};

struct LevelVersion {
  Level level = Level::Privileged;
  Version version = Version::newest();

  std::string str() const;  // "restricted:latest"
  bool operator==(const LevelVersion&) const = default;
  // Two privileged levels are alike whatever their versions.
  bool equivalent(const LevelVersion& other) const;
};

struct Policy {
  LevelVersion enforce;
  LevelVersion audit;
  LevelVersion warn;

  bool fully_privileged() const;
  bool equivalent(const Policy& other) const;
};

inline constexpr std::string_view kLabelPrefix = "pod-security.kubernetes.io/";
inline constexpr std::string_view kEnforceLevelLabel = "pod-security.kubernetes.io/enforce";
inline constexpr std::string_view kEnforceVersionLabel = "pod-security.kubernetes.io/enforce-version";
inline constexpr std::string_view kAuditLevelLabel = "pod-security.kubernetes.io/audit";
inline constexpr std::string_view kAuditVersionLabel = "pod-security.kubernetes.io/audit-version";
inline constexpr std::string_view kWarnLevelLabel = "pod-security.kubernetes.io/warn";
inline constexpr std::string_view kWarnVersionLabel = "pod-security.kubernetes.io/warn-version";

// api.ParseLevel / api.ParseVersion: the value, or the error text kube reports for it.
std::optional<Level> parse_level(std::string_view text);
std::optional<Version> parse_version(std::string_view text);
inline constexpr std::string_view kLevelError = "must be one of privileged, baseline, restricted";
inline constexpr std::string_view kVersionError = "must be \"latest\" or \"v1.x\"";

struct PolicyEvaluation {
  Policy policy;
  validation::ErrorList errors;  // one per invalid label, at metadata.labels[<label>]
};

// api.PolicyToEvaluate: the policy a namespace's labels (null: none) select over the defaults. An invalid enforce
// level fails closed (restricted), invalid audit and warn levels fail open (privileged), an invalid version is
// latest; warn follows a stricter enforce level unless warn is labelled itself.
PolicyEvaluation policy_to_evaluate(const boost::json::object* labels, const Policy& defaults);

// field.ErrorList.ToAggregate().Error(): one error as itself, several as "[a, b]".
std::string aggregate_text(const validation::ErrorList& errors);

struct CheckResult {
  bool allowed = true;
  std::string reason;
  std::string detail;
};

struct AggregateCheckResult {
  bool allowed = true;
  std::vector<std::string> reasons;
  std::vector<std::string> details;

  std::string forbidden_reason() const;  // "a, b"
  std::string forbidden_detail() const;  // "a (detail), b (detail)"
};

AggregateCheckResult aggregate(const std::vector<CheckResult>& results);

// What the checks read of a pod or a pod template: metadata (annotations) and spec. Either may be null.
struct PodView {
  const boost::json::object* metadata = nullptr;
  const boost::json::object* spec = nullptr;
};

// The newest version any check changes at: later versions and "latest" evaluate as this one.
Version newest_check_version();

// The checks of `level_version` in kube's order (baseline checks by id, then restricted ones by id), run on the
// pod. Privileged runs none.
std::vector<CheckResult> evaluate_pod(const LevelVersion& level_version, const PodView& pod);

inline AggregateCheckResult evaluate(const LevelVersion& level_version, const PodView& pod) {
  return aggregate(evaluate_pod(level_version, pod));
}

}  // namespace kapi::admission::podsecurity

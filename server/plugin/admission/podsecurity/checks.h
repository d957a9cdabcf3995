#pragma once
// The Pod Security Standards checks (k8s.io/pod-security-admission/policy/check_*.go), each version of each check
// a function of the pod, and the helpers they share (policy/helpers.go, policy/visitor.go) over stored JSON.
#include "server/plugin/admission/podsecurity/policy.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission::podsecurity {

using CheckFunction = CheckResult (*)(const PodView& pod);

struct VersionedCheck {
  Version minimum;
  CheckFunction check;
  // Baseline checks this restricted check replaces from this version on.
  std::vector<std::string_view> overrides;
};

struct Check {
  std::string_view id;
  Level level;
  std::vector<VersionedCheck> versions;  // by increasing minimum version
};

// Every check kube 1.32 registers (DefaultChecks), baseline then restricted.
std::vector<Check> baseline_checks();
std::vector<Check> restricted_checks();

namespace json_view {

// The field as the type a Go struct would hold; null and missing fields are nil.
const boost::json::object* object_at(const boost::json::object* object, std::string_view key);
const boost::json::array* array_at(const boost::json::object* object, std::string_view key);
std::optional<bool> bool_at(const boost::json::object* object, std::string_view key);
std::optional<std::int64_t> int_at(const boost::json::object* object, std::string_view key);
// "" when missing.
std::string_view string_at(const boost::json::object* object, std::string_view key);
bool has(const boost::json::object* object, std::string_view key);

}  // namespace json_view

// visitContainers: init containers, containers, then ephemeral containers.
void visit_containers(const boost::json::object* spec, const std::function<void(const boost::json::object&)>& visit);
std::string container_name(const boost::json::object& container);
// spec.os.name == "windows"
bool is_windows_pod(const PodView& pod);

// joinQuote: "a", "b"
std::string join_quote(const std::vector<std::string>& items);
std::string join_quote(const std::set<std::string>& items);
std::string join(const std::vector<std::string>& items, std::string_view separator);
std::string join(const std::set<std::string>& items, std::string_view separator);
inline std::string_view pluralize(std::string_view singular, std::string_view plural, std::size_t count) {
  return count == 1 ? singular : plural;
}
// "containers \"a\", \"b\"" with the right number.
std::string containers_phrase(const std::vector<std::string>& names);

inline const boost::json::object* security_context(const boost::json::object& container) {
  return json_view::object_at(&container, "securityContext");
}
inline const boost::json::object* pod_security_context(const PodView& pod) {
  return json_view::object_at(pod.spec, "securityContext");
}
// A check's failure.
inline CheckResult forbidden(std::string reason, std::string detail) {
  return {false, std::move(reason), std::move(detail)};
}

}  // namespace kapi::admission::podsecurity

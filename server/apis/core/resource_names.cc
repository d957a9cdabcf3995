#include "server/apis/core/resource_names.h"

#include "base/name_validation.h"

#include <algorithm>
#include <array>

namespace kapi::apis::core {
namespace {

using validation::ErrorList;
using validation::Path;

template <std::size_t N>
bool one_of(std::string_view name, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_huge_pages(std::string_view name) { return name.starts_with("hugepages-"); }
bool is_quota_huge_pages(std::string_view name) {
  return is_huge_pages(name) || name.starts_with("requests.hugepages-");
}

constexpr std::array<std::string_view, 20> kStandardResources{
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services",
    "replicationcontrollers", "resourcequotas", "secrets", "persistentvolumeclaims", "configmaps", "storage",
    "requests.storage", "services.nodeports", "services.loadbalancers"};

constexpr std::array<std::string_view, 19> kStandardQuotaResources{
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services",
    "replicationcontrollers", "resourcequotas", "secrets", "persistentvolumeclaims", "configmaps",
    "services.nodeports", "services.loadbalancers"};

constexpr std::array<std::string_view, 9> kIntegerResources{
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"};

bool is_native(std::string_view name) {
  return name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
}

// helper.IsExtendedResourceName: a domain-qualified name outside kubernetes.io, not "requests."-prefixed, whose
// "requests." form is still a qualified name.
bool is_extended(std::string_view name) {
  if (is_native(name) || name.starts_with("requests.")) return false;
  return validation::is_qualified_name("requests." + std::string(name)).empty();
}

}  // namespace

bool is_standard_resource_name(std::string_view name) {
  return one_of(name, kStandardResources) || is_quota_huge_pages(name);
}

bool is_standard_container_resource_name(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || is_huge_pages(name);
}

bool is_standard_quota_resource_name(std::string_view name) {
  return one_of(name, kStandardQuotaResources) || is_quota_huge_pages(name);
}

bool is_integer_resource_name(std::string_view name) { return one_of(name, kIntegerResources) || is_extended(name); }

bool is_overcommit_allowed(std::string_view name) { return is_native(name) && !is_huge_pages(name); }

ErrorList resource_name_errors(std::string_view name, const Path& path) {
  ErrorList errors;
  for (auto& message : validation::is_qualified_name(name)) errors.push_back(validation::invalid(path, name, message));
  if (!errors.empty()) return errors;
  if (name.find('/') == std::string_view::npos && !is_standard_resource_name(name))
    errors.push_back(validation::invalid(path, name, "must be a standard resource type or fully qualified"));
  return errors;
}

ErrorList container_resource_name_errors(std::string_view name, const Path& path) {
  ErrorList errors = resource_name_errors(name, path);
  if (name.find('/') == std::string_view::npos) {
    if (!is_standard_container_resource_name(name))
      errors.push_back(validation::invalid(path, name, "must be a standard resource for containers"));
  } else if (!is_native(name) && !is_extended(name)) {
    errors.push_back(validation::invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

ErrorList quota_resource_name_errors(std::string_view name, const Path& path) {
  ErrorList errors = resource_name_errors(name, path);
  if (name.find('/') == std::string_view::npos && !is_standard_quota_resource_name(name))
    errors.push_back(validation::invalid(path, name, "must be a standard resource for quota"));
  return errors;
}

ErrorList quantity_value_errors(std::string_view resource, std::string_view value, const Path& path) {
  ErrorList errors;
  const std::optional<QuantityNanos> amount = parse_quantity(value);
  if (!amount) return errors;  // the decoder refuses what is not a quantity
  if (*amount < 0) errors.push_back(validation::invalid(path, value, "must be greater than or equal to 0"));
  constexpr QuantityNanos kNanosPerMilli = 1'000'000;
  constexpr QuantityNanos kNanosPerUnit = 1'000'000'000;
  // MilliValue() rounds up to a milli before the whole-number test.
  const QuantityNanos millis = (*amount + kNanosPerMilli - 1) / kNanosPerMilli * kNanosPerMilli;
  if (is_integer_resource_name(resource) && millis % kNanosPerUnit != 0)
    errors.push_back(validation::invalid(path, value, "must be an integer"));
  return errors;
}

}  // namespace kapi::apis::core

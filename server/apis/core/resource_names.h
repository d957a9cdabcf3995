#pragma once
// The resource names and quantities of core/v1's resource lists (pkg/apis/core/helper and the validators of
// pkg/apis/core/validation that LimitRange, ResourceQuota and the persistent volumes share): which names are
// standard where, and the checks on a quantity's value, with kube's messages.
#include "base/quantity.h"
#include "server/validation/field_error.h"

#include <string_view>

namespace kapi::apis::core {

// helper.IsStandardResourceName, IsStandardContainerResourceName, IsStandardQuotaResourceName.
bool is_standard_resource_name(std::string_view name);
bool is_standard_container_resource_name(std::string_view name);
bool is_standard_quota_resource_name(std::string_view name);
// helper.IsIntegerResourceName: object counts such as "pods" and "services", and extended resources.
bool is_integer_resource_name(std::string_view name);
// helper.IsOvercommitAllowed: a native resource that is not huge pages.
bool is_overcommit_allowed(std::string_view name);

// validateResourceName: a qualified name, standard unless it has a domain.
validation::ErrorList resource_name_errors(std::string_view name, const validation::Path& path);
// validateContainerResourceName: also a resource containers may request, or an extended resource.
validation::ErrorList container_resource_name_errors(std::string_view name, const validation::Path& path);
// ValidateResourceQuotaResourceName.
validation::ErrorList quota_resource_name_errors(std::string_view name, const validation::Path& path);
// ValidateResourceQuantityValue: not negative, and whole for an integer resource. `value` is the quantity's text.
validation::ErrorList quantity_value_errors(std::string_view resource, std::string_view value,
                                            const validation::Path& path);

}  // namespace kapi::apis::core

#pragma once
// ValidateObjectMeta (k8s.io/apimachinery/pkg/api/validation/objectmeta.go): the checks every object's metadata
// passes on create and update, whatever its kind.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::validation {

// Total size of all annotations (keys and values), as kube bounds it.
inline constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;

// How a kind's metadata.name is checked: most take DNS-1123 subdomains, namespaces and services DNS-1123 labels,
// RBAC roles and bindings anything that can travel as a URL path segment (kube's ValidateRBACName).
enum class NameRule { Dns1123Subdomain, Dns1123Label, PathSegment };

ErrorList validate_object_meta(const boost::json::object& object, bool namespaced, NameRule name_rule);
inline ErrorList validate_object_meta(const boost::json::object& object, bool namespaced, bool name_is_dns_label) {
  return validate_object_meta(object, namespaced, name_is_dns_label ? NameRule::Dns1123Label : NameRule::Dns1123Subdomain);
}
ErrorList validate_labels(const boost::json::object& labels, const Path& path);
ErrorList validate_annotations(const boost::json::object& annotations, const Path& path);

}  // namespace kapi::validation

#pragma once
// ValidateObjectMeta (k8s.io/apimachinery/pkg/api/validation/objectmeta.go): the checks every object's metadata
// passes on create and update, whatever its kind.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::validation {

// Total size of all annotations (keys and values), as kube bounds it.
inline constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;

ErrorList validate_object_meta(const boost::json::object& object, bool namespaced, bool name_is_dns_label);
ErrorList validate_labels(const boost::json::object& labels, const Path& path);
ErrorList validate_annotations(const boost::json::object& annotations, const Path& path);

}  // namespace kapi::validation

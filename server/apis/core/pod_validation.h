#pragma once
// ValidatePod and ValidatePodUpdate (pkg/apis/core/validation): the essentials of a pod's spec with kube's field
// paths and messages, and the rule that a running pod's spec changes only in its images, activeDeadlineSeconds,
// added tolerations and removed scheduling gates.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apis::core {

// ValidateTolerations on the "tolerations" of `owner` (a pod spec; a RuntimeClass's scheduling), at `path`.
validation::ErrorList tolerations_errors(const boost::json::object& owner, const validation::Path& path);
// ValidateResourceRequirements on the "resources" of `owner` (a container), at `path`.
validation::ErrorList resource_requirements_errors(const boost::json::object& owner, const validation::Path& path);

validation::ErrorList validate_pod_spec(const boost::json::object& spec, const validation::Path& path);
validation::ErrorList validate_pod(const boost::json::object& pod);
// ValidatePodTemplateSpec: a template's labels and annotations, its PodSpec (images may be left to fill in), and no
// ephemeral containers. `path` is the template's ("template", "spec.template").
validation::ErrorList validate_pod_template_spec(const boost::json::object& template_, const validation::Path& path);
// ValidatePodEphemeralContainersUpdate's own rules (pods/ephemeralcontainers): existing ephemeral containers may be
// neither removed nor changed; validate_pod checks the new ones.
validation::ErrorList validate_ephemeral_containers_update(const boost::json::object& pod, const boost::json::object& old);
// The update rules only; the strategy also runs validate_pod on the new object, as kube does.
validation::ErrorList validate_pod_update(const boost::json::object& pod, const boost::json::object& old);

}  // namespace kapi::apis::core

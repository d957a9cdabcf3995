#pragma once
// What the four authorization.k8s.io/v1 reviews share (pkg/registry/authorization/util and the API's validation):
// the authorizer Attributes a spec describes, the spec's checks, and the status an authorizer's answer becomes.
#include "server/authorization/authorizer.h"
#include "server/registry/json_fields.h"
#include "server/registry/resource.h"
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apis::authorization_reviews {

// A review resource of authorization.k8s.io/v1 that only creates.
registry::ResourceDefinition review_definition(std::string resource, std::string kind, bool namespaced);

// The spec's resourceAttributes or nonResourceAttributes as Attributes for `user` (ResourceAttributesFrom: an
// empty version means every version).
authorization::Attributes attributes_from(const boost::json::object& spec, request::UserInfo user);

// ValidateSelfSubjectAccessReviewSpec's checks, which every access review makes: exactly one of resourceAttributes
// and nonResourceAttributes.
validation::ErrorList validate_attributes(const boost::json::object& spec);

// What ValidateSubjectAccessReview and its self and local kinds check of metadata: it must be empty (managed fields
// aside, and a local review's namespace), as an Invalid "metadata" error printing it as Go does.
validation::ErrorList validate_empty_metadata(const boost::json::object& review, bool namespaced = false);

// ValidateSubjectAccessReviewSpec: the attributes, and a user or group to ask about.
validation::ErrorList validate_subject_spec(const boost::json::object& spec);
// The user a SubjectAccessReviewSpec names, exactly as given (no system:authenticated added).
request::UserInfo subject_of(const boost::json::object& spec);

// The SubjectAccessReviewStatus of an authorizer's answer.
boost::json::object access_status(const authorization::Result& result);

// The object at a key, or an empty one, as the reviews read their spec.
using registry::fields::object_or_empty;

}  // namespace kapi::apis::authorization_reviews

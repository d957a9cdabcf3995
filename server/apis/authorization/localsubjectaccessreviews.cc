// authorization.k8s.io/v1 LocalSubjectAccessReview (pkg/registry/authorization/localsubjectaccessreview): a
// SubjectAccessReview confined to the namespace it is posted in, so it can be granted per namespace.
#include "server/apis/authorization/access_review.h"
#include "server/apis/resource_storage.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
registry::Creater localsubjectaccessreviews(std::shared_ptr<const authorization::Authorizer> authorizer) {
  using namespace authorization_reviews;
  registry::ResourceDefinition definition =
      review_definition("localsubjectaccessreviews", "LocalSubjectAccessReview", true);
  auto create = [authorizer](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    boost::json::object& metadata = request.object["metadata"].is_object() ? request.object["metadata"].as_object()
                                                                           : request.object["metadata"].emplace_object();
    // The create handler's EnsureObjectNamespaceMatchesRequestNamespace.
    const std::string_view namespace_ = registry::string_field(metadata, "namespace");
    if (namespace_.empty()) metadata["namespace"] = request.namespace_;
    else if (namespace_ != request.namespace_)
      throw apierrors::ApiError(apierrors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request"));
    const boost::json::object& spec = object_or_empty(request.object, "spec");
    validation::ErrorList errors = validate_subject_spec(spec);
    const validation::Path path("spec");
    if (const auto* resource = spec.if_contains("resourceAttributes"); resource && resource->is_object()) {
      const std::string_view asked = registry::string_field(resource->as_object(), "namespace");
      if (asked != request.namespace_)
        errors.push_back(validation::invalid(path.child("resourceAttributes").child("namespace"), asked,
                                             "must match metadata.namespace"));
    }
    if (const auto* non_resource = spec.if_contains("nonResourceAttributes"); non_resource && non_resource->is_object())
      errors.push_back(validation::invalid_value(
          path.child("nonResourceAttributes"),
          "authorization.NonResourceAttributes{Path:" +
              validation::quoted(registry::string_field(non_resource->as_object(), "path")) +
              ", Verb:" + validation::quoted(registry::string_field(non_resource->as_object(), "verb")) + "}",
          "disallowed on this kind of request"));
    for (auto& error : validate_empty_metadata(request.object, true)) errors.push_back(std::move(error));
    if (!errors.empty())
      throw apierrors::ApiError(apierrors::invalid("authorization.k8s.io", "LocalSubjectAccessReview", "", errors));
    const authorization::Attributes attributes = attributes_from(spec, subject_of(spec));
    auto deciding = authorizer->authorize_async(attributes);
    const authorization::Result decision = co_await std::move(deciding);
    request.object["status"] = access_status(decision);
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

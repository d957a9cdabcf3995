// authorization.k8s.io/v1 SubjectAccessReview (pkg/registry/authorization/subjectaccessreview): may the user the
// spec names do this? How webhooks and aggregated servers delegate their authorization.
#include "server/apis/authorization/access_review.h"
#include "server/apis/resource_storage.h"
#include "server/apierrors/errors.h"

#include <boost/json.hpp>

namespace kapi::apis {
registry::Creater subjectaccessreviews(std::shared_ptr<const authorization::Authorizer> authorizer) {
  using namespace authorization_reviews;
  registry::ResourceDefinition definition = review_definition("subjectaccessreviews", "SubjectAccessReview", false);
  auto create = [authorizer](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    const boost::json::object& spec = object_or_empty(request.object, "spec");
    validation::ErrorList errors = validate_subject_spec(spec);
    for (auto& error : validate_empty_metadata(request.object)) errors.push_back(std::move(error));
    if (!errors.empty())
      throw apierrors::ApiError(apierrors::invalid("authorization.k8s.io", "SubjectAccessReview", "", errors));
    const authorization::Attributes attributes = attributes_from(spec, subject_of(spec));
    auto deciding = authorizer->authorize_async(attributes);
    const authorization::Result decision = co_await std::move(deciding);
    request.object["status"] = access_status(decision);
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

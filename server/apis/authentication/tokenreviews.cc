// authentication.k8s.io/v1 TokenReview (pkg/registry/authentication/tokenreview): who this server takes a bearer
// token's holder to be, for webhooks and aggregated servers that accept the cluster's tokens.
#include "server/apierrors/errors.h"
#include "server/apis/authentication/user_info.h"
#include "server/apis/resource_storage.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::apis {

registry::Creater tokenreviews(std::shared_ptr<const authentication::RequestAuthenticator> authenticator) {
  registry::ResourceDefinition definition{.group = "authentication.k8s.io", .version = "v1",
                                          .resource = "tokenreviews", .kind = "TokenReview",
                                          .singular = "tokenreview", .namespaced = false, .verbs = {"create"}};
  auto create = [authenticator](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    boost::json::object spec;
    if (auto* given = request.object.if_contains("spec"); given && given->is_object()) spec = given->as_object();
    const auto* token = spec.if_contains("token");
    if (!token || !token->is_string() || token->as_string().empty())
      throw apierrors::ApiError(apierrors::bad_request("token is required for TokenReview in authentication"));
    authentication::Audiences audiences;
    if (const auto* given = spec.if_contains("audiences"); given && given->is_array())
      for (const auto& audience : given->as_array())
        if (audience.is_string()) audiences.emplace_back(audience.as_string());

    authentication::Result result = co_await authenticator->review_token(token->as_string(), audiences);
    boost::json::object status;
    const bool authenticated = result.outcome == authentication::Result::Outcome::Authenticated;
    status["authenticated"] = authenticated;
    if (authenticated) {
      auto& user = result.user;
      // As the request authenticator's AuthenticatedGroupAdder does for a token used on a request.
      if (std::find(user.groups.begin(), user.groups.end(), "system:authenticated") == user.groups.end())
        user.groups.push_back("system:authenticated");
      status["user"] = user_info_json(user);
      if (!result.audiences.empty()) status["audiences"] = boost::json::value_from(result.audiences);
    } else {
      status["error"] = result.outcome == authentication::Result::Outcome::Failed ? result.error : "invalid bearer token";
    }
    request.object["status"] = std::move(status);
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

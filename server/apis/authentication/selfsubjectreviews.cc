// authentication.k8s.io/v1 SelfSubjectReview (pkg/registry/authentication/selfsubjectreview): who the server takes
// the requester to be, after authentication and impersonation. What `kubectl auth whoami` asks.
#include "server/apis/resource_storage.h"

#include <boost/json.hpp>

namespace kapi::apis {

registry::Creater selfsubjectreviews() {
  registry::ResourceDefinition definition{.group = "authentication.k8s.io", .version = "v1",
                                          .resource = "selfsubjectreviews", .kind = "SelfSubjectReview",
                                          .singular = "selfsubjectreview", .namespaced = false, .verbs = {"create"}};
  auto create = [](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    boost::json::object user_info{{"username", request.user.name}};
    if (!request.user.uid.empty()) user_info["uid"] = request.user.uid;
    if (!request.user.groups.empty()) user_info["groups"] = boost::json::value_from(request.user.groups);
    if (!request.user.extra.empty()) user_info["extra"] = boost::json::value_from(request.user.extra);
    request.object["status"] = boost::json::object{{"userInfo", std::move(user_info)}};
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

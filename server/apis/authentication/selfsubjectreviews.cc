// authentication.k8s.io/v1 SelfSubjectReview (pkg/registry/authentication/selfsubjectreview): who the server takes
// the requester to be, after authentication and impersonation. What `kubectl auth whoami` asks.
#include "server/apis/authentication/user_info.h"
#include "server/apis/resource_storage.h"

#include <boost/json.hpp>

namespace kapi::apis {

registry::Creater selfsubjectreviews() {
  registry::ResourceDefinition definition{.group = "authentication.k8s.io", .version = "v1",
                                          .resource = "selfsubjectreviews", .kind = "SelfSubjectReview",
                                          .singular = "selfsubjectreview", .namespaced = false, .verbs = {"create"}};
  auto create = [](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    request.object["status"] = boost::json::object{{"userInfo", user_info_json(request.user)}};
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

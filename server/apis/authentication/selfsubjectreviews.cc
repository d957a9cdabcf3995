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
    boost::json::array groups;
    for (const auto& group : request.user.groups) groups.emplace_back(group);
    if (!groups.empty()) user_info["groups"] = std::move(groups);
    boost::json::object extra;
    for (const auto& [key, values] : request.user.extra) {
      boost::json::array list;
      for (const auto& value : values) list.emplace_back(value);
      extra[key] = std::move(list);
    }
    if (!extra.empty()) user_info["extra"] = std::move(extra);
    request.object["status"] = boost::json::object{{"userInfo", std::move(user_info)}};
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis

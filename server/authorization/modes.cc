#include "server/authorization/modes.h"

#include <algorithm>

namespace kapi::authorization {

Result PrivilegedGroupsAuthorizer::authorize(const Attributes& attributes) const {
  for (const auto& group : attributes.user.groups)
    if (std::find(groups_.begin(), groups_.end(), group) != groups_.end()) return {Decision::Allow, ""};
  return {};
}

std::shared_ptr<const Authorizer> build_authorizer(const std::vector<std::string>& modes,
                                                   std::shared_ptr<const Authorizer> rbac,
                                                   std::shared_ptr<const Authorizer> node,
                                                   std::shared_ptr<const Authorizer> webhook) {
  if (modes.empty()) throw AuthorizationModeError("at least one authorization-mode must be passed");
  std::vector<std::shared_ptr<const Authorizer>> authorizers;
  authorizers.push_back(std::make_shared<PrivilegedGroupsAuthorizer>(std::vector<std::string>{"system:masters"}));
  std::vector<std::string> seen;
  for (const auto& mode : modes) {
    if (std::find(seen.begin(), seen.end(), mode) != seen.end())
      throw AuthorizationModeError("authorization-mode \"" + mode + "\" has mode specified more than once");
    seen.push_back(mode);
    if (mode == "AlwaysAllow") {
      authorizers.push_back(std::make_shared<AlwaysAllowAuthorizer>());
    } else if (mode == "AlwaysDeny") {
      authorizers.push_back(std::make_shared<AlwaysDenyAuthorizer>());
    } else if (mode == "RBAC" && rbac) {
      authorizers.push_back(rbac);
    } else if (mode == "Node" && node) {
      authorizers.push_back(node);
    } else if (mode == "Webhook" && webhook) {
      authorizers.push_back(webhook);
    } else {
      throw AuthorizationModeError("authorization-mode \"" + mode + "\" is not a valid mode (kapi has AlwaysAllow, "
                                   "AlwaysDeny" + std::string(node ? ", Node" : "") +
                                   std::string(rbac ? ", RBAC" : "") + std::string(webhook ? ", Webhook" : "") + ")");
    }
  }
  return std::make_shared<UnionAuthorizer>(std::move(authorizers));
}

}  // namespace kapi::authorization

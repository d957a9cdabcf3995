#include "server/authorization/modes.h"

#include "server/authorization/instrumented_authorizer.h"

#include <algorithm>
#include <cctype>

namespace kapi::authorization {

Result PrivilegedGroupsAuthorizer::authorize(const Attributes& attributes) const {
  for (const auto& group : attributes.user.groups)
    if (std::find(groups_.begin(), groups_.end(), group) != groups_.end()) return {Decision::Allow, ""};
  return {};
}

std::shared_ptr<const Authorizer> build_authorizer(const std::vector<std::string>& modes,
                                                   std::shared_ptr<const Authorizer> rbac,
                                                   std::shared_ptr<const Authorizer> node,
                                                   std::shared_ptr<const Authorizer> webhook,
                                                   metrics::AuthorizationFamilies* metrics) {
  if (modes.empty()) throw AuthorizationModeError("at least one authorization-mode must be passed");
  std::vector<std::shared_ptr<const Authorizer>> authorizers;
  authorizers.push_back(std::make_shared<PrivilegedGroupsAuthorizer>(std::vector<std::string>{"system:masters"}));
  std::vector<std::string> seen;
  for (const auto& mode : modes) {
    if (std::find(seen.begin(), seen.end(), mode) != seen.end())
      throw AuthorizationModeError("authorization-mode \"" + mode + "\" has mode specified more than once");
    seen.push_back(mode);
    // kube's GetNameForAuthorizerMode, and its defaultWebhookName.
    std::string name = mode == "Webhook" ? "default" : mode;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::shared_ptr<const Authorizer> authorizer;
    if (mode == "AlwaysAllow") {
      authorizer = std::make_shared<AlwaysAllowAuthorizer>();
    } else if (mode == "AlwaysDeny") {
      authorizer = std::make_shared<AlwaysDenyAuthorizer>();
    } else if (mode == "RBAC" && rbac) {
      authorizer = rbac;
    } else if (mode == "Node" && node) {
      authorizer = node;
    } else if (mode == "Webhook" && webhook) {
      authorizer = webhook;
    } else {
      throw AuthorizationModeError("authorization-mode \"" + mode + "\" is not a valid mode (kapi has AlwaysAllow, "
                                   "AlwaysDeny" + std::string(node ? ", Node" : "") +
                                   std::string(rbac ? ", RBAC" : "") + std::string(webhook ? ", Webhook" : "") + ")");
    }
    authorizers.push_back(instrumented(mode, std::move(name), std::move(authorizer), metrics));
  }
  return std::make_shared<UnionAuthorizer>(std::move(authorizers));
}

}  // namespace kapi::authorization

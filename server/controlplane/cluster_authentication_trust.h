#pragma once
// kube's clusterauthenticationtrust controller: the ConfigMap kube-system/extension-apiserver-authentication
// tells extension API servers how to authenticate the requests this server (or its front proxy) sends them —
// the client CA, and with request-header authentication its CA, allowed names and headers, the lists as JSON.
// Every server of a cluster merges its own into what is there (lists joined, CA bundles joined without
// duplicates or expired certificates), so none removes another's.
#include "server/lifecycle.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::controlplane {

inline constexpr std::string_view kAuthenticationConfigMapNamespace = "kube-system";
inline constexpr std::string_view kAuthenticationConfigMapName = "extension-apiserver-authentication";

// kube's ClusterAuthenticationInfo, CA bundles as PEM text.
struct ClusterAuthenticationInfo {
  std::string client_ca;          // --client-ca-file
  std::string request_header_ca;  // --requestheader-client-ca-file; empty: no requestheader-* keys
  std::vector<std::string> request_header_username_headers;
  std::vector<std::string> request_header_uid_headers;
  std::vector<std::string> request_header_group_headers;
  std::vector<std::string> request_header_extra_header_prefixes;
  std::vector<std::string> request_header_allowed_names;
};

// The ConfigMap's data: `ours` merged into the `existing` data (null when there is none). Throws
// std::runtime_error when the existing data does not parse (a list that is not JSON, a bundle that is not PEM).
boost::json::object authentication_configmap_data(const ClusterAuthenticationInfo& ours,
                                                  const boost::json::object* existing);

// Writes the ConfigMap when it is missing or lacks what `ours` holds, retrying each second until it could
// (kube-system may not exist yet), then checks again each minute, as kube's controller does, until shutdown.
asio::awaitable<void> maintain_authentication_configmap(registry::Store& configmaps, ClusterAuthenticationInfo ours,
                                                        const server::Lifecycle& lifecycle, base::Logger& logger);

}  // namespace kapi::controlplane

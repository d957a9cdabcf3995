#pragma once
// The APIResourceList a group version's web service answers at its root path (kube's endpoints/discovery
// APIVersionHandler), and the pieces /api, /apis and aggregated discovery share with it: the storage version hash,
// what a subresource answers with, and the ETag'd writing of a discovery document.
#include "request/exchange.h"
#include "server/endpoints/installer.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/array.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::endpoints {

// storageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>").
std::string storage_version_hash(std::string_view group, std::string_view version, std::string_view kind);

// The APIResourceList of one group version.
std::string resource_list(std::string_view group, std::string_view version,
                          const std::vector<GroupVersionService::Served>& served);

// A definition's verbs, short names or categories as discovery lists them.
boost::json::array json_strings(const std::vector<std::string>& values);

// What a subresource answers with and to: scale is an autoscaling/v1 Scale, the others the object itself.
struct SubresourceInfo {
  std::string group, version, kind;
  boost::json::array verbs;
};
SubresourceInfo subresource_info(const registry::Store& store, std::string_view subresource);

// Writes a discovery document with its ETag, or 304 when If-None-Match names it.
asio::awaitable<void> write_document(request::Exchange& exchange, std::string body,
                                     std::string content_type = "application/json");

}  // namespace kapi::endpoints

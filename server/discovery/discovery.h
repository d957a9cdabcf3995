#pragma once
// API discovery (k8s.io/apiserver/pkg/endpoints/discovery): /api and /apis, legacy (APIVersions, APIGroupList,
// APIGroup, APIResourceList) and aggregated (apidiscovery.k8s.io/v2 and v2beta1 APIGroupDiscoveryList, chosen
// by Accept), each with an ETag so clients revalidate with If-None-Match and get 304.
#include "filters/filter.h"
#include "server/endpoints/installer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapi::discovery {

// storageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>").
std::string storage_version_hash(std::string_view group, std::string_view version, std::string_view kind);

// The APIResourceList of one group version.
std::string resource_list(std::string_view group, std::string_view version,
                          const std::vector<endpoints::GroupVersionService::Served>& served);

// Writes a discovery document with its ETag, or 304 when If-None-Match names it.
asio::awaitable<void> write_document(filters::Exchange& exchange, std::string body,
                                     std::string content_type = "application/json");

// Group versions that come and go at run time (the API extensions server's custom resources), as served at one
// moment: `keep_alive` holds them while a document is written.
struct DynamicServices {
  std::shared_ptr<const void> keep_alive;
  std::vector<const endpoints::GroupVersionService*> services;
};
using DynamicSource = std::function<DynamicServices()>;

// /api, /apis and /apis/<group> over the installed group versions (in preference order within each group).
class DiscoveryService {
 public:
  explicit DiscoveryService(std::vector<const endpoints::GroupVersionService*> services)
      : services_(std::move(services)) {}
  // Later servers' group versions, listed after the installed ones in /apis.
  void add_dynamic_source(DynamicSource source) { dynamic_sources_.push_back(std::move(source)); }

  asio::awaitable<void> serve_legacy_root(filters::Exchange& exchange) const;  // /api
  asio::awaitable<void> serve_groups(filters::Exchange& exchange) const;       // /apis
  asio::awaitable<void> serve_group(filters::Exchange& exchange, std::string_view group) const;  // /apis/<group>
  // The installed groups under /apis, in order (the dynamic ones are not included).
  std::vector<std::string> groups() const;

 private:
  // The installed services and those of every dynamic source now; `held` keeps the dynamic ones alive.
  std::vector<const endpoints::GroupVersionService*> all_services(std::vector<DynamicServices>& held) const;

  std::vector<const endpoints::GroupVersionService*> services_;
  std::vector<DynamicSource> dynamic_sources_;
};

}  // namespace kapi::discovery

#pragma once
// API discovery (k8s.io/apiserver/pkg/endpoints/discovery): /api and /apis, legacy (APIVersions, APIGroupList,
// APIGroup, APIResourceList) and aggregated (apidiscovery.k8s.io/v2 and v2beta1 APIGroupDiscoveryList, chosen
// by Accept), each with an ETag so clients revalidate with If-None-Match and get 304.
#include "request/exchange.h"
#include "server/endpoints/installer.h"

#include <boost/json/array.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapi::discovery {

// Group versions that come and go at run time (the API extensions server's custom resources), as served at one
// moment: `keep_alive` holds them while a document is written.
struct DynamicServices {
  std::shared_ptr<const void> keep_alive;
  std::vector<const endpoints::GroupVersionService*> services;
};
using DynamicSource = std::function<DynamicServices()>;

// A group version an extension API server serves behind the aggregator, as its APIService and the backend's last
// discovery answer describe it.
struct RemoteGroupVersion {
  std::string group, version;
  int group_priority = 0, version_priority = 0;  // the APIService's groupPriorityMinimum and versionPriority
  boost::json::array resources;  // the backend's APIResourceList resources, when it answered
  bool available = false;        // false: still listed, but "Stale" in aggregated discovery
};
using RemoteSource = std::function<std::vector<RemoteGroupVersion>()>;

// A group version this server answers itself; `dynamic` when it comes from a dynamic source (a CRD's).
struct LocalGroupVersion {
  std::string group, version;
  bool dynamic = false;
};

// /api, /apis and /apis/<group> over the installed group versions (in preference order within each group).
class DiscoveryService {
 public:
  explicit DiscoveryService(std::vector<const endpoints::GroupVersionService*> services)
      : services_(std::move(services)) {}
  // Later servers' group versions, listed after the installed ones in /apis.
  void add_dynamic_source(DynamicSource source) { dynamic_sources_.push_back(std::move(source)); }
  // The aggregator's own group, which kube-aggregator always lists first.
  void add_leading_service(const endpoints::GroupVersionService* service) {
    services_.insert(services_.begin(), service);
  }
  // Group versions served through the aggregator, listed after every local group (kapi's own groups all have a
  // higher priority than a remote group may sensibly claim), in kube-aggregator's order: groupPriorityMinimum
  // first, then the group name; versions by versionPriority.
  void set_remote_source(RemoteSource source) { remote_source_ = std::move(source); }

  asio::awaitable<void> serve_legacy_root(request::Exchange& exchange) const;  // /api
  asio::awaitable<void> serve_groups(request::Exchange& exchange) const;       // /apis
  asio::awaitable<void> serve_group(request::Exchange& exchange, std::string_view group) const;  // /apis/<group>
  // The installed groups under /apis, in order (the dynamic ones are not included).
  std::vector<std::string> groups() const;
  // Every local group version now, installed and dynamic, in discovery order ("" for the core group): what the
  // aggregator registers local APIServices for.
  std::vector<LocalGroupVersion> local_group_versions() const;

 private:
  // The installed services and those of every dynamic source now; `held` keeps the dynamic ones alive.
  std::vector<const endpoints::GroupVersionService*> all_services(std::vector<DynamicServices>& held) const;

  std::vector<const endpoints::GroupVersionService*> services_;
  // The remote group versions now, sorted as listed.
  std::vector<RemoteGroupVersion> remote_group_versions() const;

  std::vector<DynamicSource> dynamic_sources_;
  RemoteSource remote_source_;
};

}  // namespace kapi::discovery

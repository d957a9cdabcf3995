#include "server/discovery/discovery.h"

#include "server/endpoints/resource_list.h"
#include "server/http/status_response.h"

#include <boost/json.hpp>

#include <algorithm>
#include <map>

namespace kapi::discovery {
namespace {

namespace json = boost::json;
using endpoints::subresource_info;
using endpoints::SubresourceInfo;
using endpoints::write_document;

constexpr std::string_view kAggregatedV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr std::string_view kAggregatedV2Beta1 =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

// The aggregated discovery version the client accepts first ("v2", "v2beta1"), or "" for the legacy documents.
std::string aggregated_version(const http::Request& request) {
  std::string_view accept = request.headers.get("Accept").value_or("");
  std::size_t start = 0;
  while (start < accept.size()) {
    auto comma = accept.find(',', start);
    std::string_view item = accept.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string compact;
    for (char c : item)
      if (c != ' ') compact += c;
    if (compact.find("as=APIGroupDiscoveryList") != std::string::npos &&
        compact.find("g=apidiscovery.k8s.io") != std::string::npos) {
      if (compact.find("v=v2beta1") != std::string::npos) return "v2beta1";
      if (compact.find("v=v2") != std::string::npos) return "v2";
    }
    if (compact.starts_with("application/json") || compact.starts_with("*/*")) return "";
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return "";
}

json::object aggregated_version_entry(const endpoints::GroupVersionService& service) {
  json::array resources;
  for (const auto& [definition, store] : service.resources()) {
    const auto& d = *definition;
    json::object resource{{"resource", d.resource},
                          {"responseKind", json::object{{"group", ""}, {"version", ""}, {"kind", d.kind}}},
                          {"scope", d.namespaced ? "Namespaced" : "Cluster"},
                          {"singularResource", d.singular},
                          {"verbs", endpoints::json_strings(d.verbs)}};
    if (!d.short_names.empty()) resource["shortNames"] = endpoints::json_strings(d.short_names);
    if (!d.categories.empty()) resource["categories"] = endpoints::json_strings(d.categories);
    json::array subresources;
    for (const auto& name : d.subresources) {
      SubresourceInfo info = subresource_info(*store, name);  // only Stores have subresources
      subresources.push_back(json::object{
          {"subresource", name},
          {"responseKind", json::object{{"group", info.group}, {"version", info.version}, {"kind", info.kind}}},
          {"verbs", std::move(info.verbs)}});
    }
    if (!subresources.empty()) resource["subresources"] = std::move(subresources);
    resources.push_back(std::move(resource));
  }
  return {{"version", service.version()}, {"resources", std::move(resources)}, {"freshness", "Current"}};
}

// A backend's APIResourceList entries in aggregated form: "<resource>/<sub>" entries become subresources.
json::object aggregated_remote_entry(const RemoteGroupVersion& remote) {
  auto text = [](const json::object& entry, std::string_view key) -> std::string {
    const json::value* value = entry.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
  };
  auto list = [](const json::object& entry, std::string_view key) -> json::array {
    const json::value* value = entry.if_contains(key);
    return value && value->is_array() ? value->as_array() : json::array();
  };
  auto response_kind = [&](const json::object& entry) {
    return json::object{{"group", text(entry, "group")}, {"version", text(entry, "version")},
                        {"kind", text(entry, "kind")}};
  };
  json::array resources;
  std::map<std::string, json::array> subresources;
  for (const auto& item : remote.resources) {
    if (!item.is_object()) continue;
    const json::object& entry = item.as_object();
    const std::string name = text(entry, "name");
    if (auto slash = name.find('/'); slash != std::string::npos) {
      subresources[name.substr(0, slash)].push_back(json::object{
          {"subresource", name.substr(slash + 1)}, {"responseKind", response_kind(entry)}, {"verbs", list(entry, "verbs")}});
      continue;
    }
    const json::value* namespaced = entry.if_contains("namespaced");
    json::object resource{{"resource", name},
                          {"responseKind", response_kind(entry)},
                          {"scope", namespaced && namespaced->is_bool() && namespaced->as_bool() ? "Namespaced" : "Cluster"},
                          {"singularResource", text(entry, "singularName")},
                          {"verbs", list(entry, "verbs")}};
    if (json::array short_names = list(entry, "shortNames"); !short_names.empty())
      resource["shortNames"] = std::move(short_names);
    if (json::array categories = list(entry, "categories"); !categories.empty())
      resource["categories"] = std::move(categories);
    resources.push_back(std::move(resource));
  }
  for (auto& resource : resources) {
    auto found = subresources.find(std::string(resource.as_object().at("resource").as_string()));
    if (found != subresources.end()) resource.as_object()["subresources"] = std::move(found->second);
  }
  return {{"version", remote.version},
          {"resources", std::move(resources)},
          {"freshness", remote.available ? "Current" : "Stale"}};
}

json::object group_version(std::string_view group, std::string_view version) {
  return {{"groupVersion", std::string(group) + "/" + std::string(version)}, {"version", version}};
}

std::vector<std::string> groups_of(const std::vector<const endpoints::GroupVersionService*>& services) {
  std::vector<std::string> out;
  for (const auto* service : services)
    if (!service->group().empty() && std::find(out.begin(), out.end(), service->group()) == out.end())
      out.push_back(service->group());
  return out;
}

}  // namespace

std::vector<std::string> DiscoveryService::groups() const { return groups_of(services_); }

std::vector<LocalGroupVersion> DiscoveryService::local_group_versions() const {
  std::vector<DynamicServices> held;
  std::vector<LocalGroupVersion> out;
  for (const auto* service : services_) out.push_back({service->group(), service->version(), false});
  for (const auto& source : dynamic_sources_)
    for (const auto* service : held.emplace_back(source()).services)
      out.push_back({service->group(), service->version(), true});
  return out;
}

std::vector<RemoteGroupVersion> DiscoveryService::remote_group_versions() const {
  if (!remote_source_) return {};
  std::vector<RemoteGroupVersion> remote = remote_source_();
  // Each group sorts by the highest groupPriorityMinimum of its versions, as kube-aggregator's group list does.
  std::map<std::string, int> group_priority;
  for (const auto& entry : remote) group_priority[entry.group] = std::max(group_priority[entry.group], entry.group_priority);
  std::stable_sort(remote.begin(), remote.end(), [&](const RemoteGroupVersion& a, const RemoteGroupVersion& b) {
    const int pa = group_priority[a.group], pb = group_priority[b.group];
    if (pa != pb) return pa > pb;
    if (a.group != b.group) return a.group < b.group;
    if (a.version_priority != b.version_priority) return a.version_priority > b.version_priority;
    return a.version < b.version;
  });
  return remote;
}

std::vector<const endpoints::GroupVersionService*> DiscoveryService::all_services(
    std::vector<DynamicServices>& held) const {
  std::vector<const endpoints::GroupVersionService*> out = services_;
  for (const auto& source : dynamic_sources_) {
    DynamicServices& dynamic = held.emplace_back(source());
    out.insert(out.end(), dynamic.services.begin(), dynamic.services.end());
  }
  return out;
}

asio::awaitable<void> DiscoveryService::serve_legacy_root(request::Exchange& exchange) const {
  std::string aggregated = aggregated_version(exchange.request);
  if (!aggregated.empty()) {
    json::array versions;
    for (const auto* service : services_)
      if (service->group().empty()) versions.push_back(aggregated_version_entry(*service));
    json::object item{{"metadata", json::object{{"creationTimestamp", nullptr}}}, {"versions", std::move(versions)}};
    json::object list{{"kind", "APIGroupDiscoveryList"},
                      {"apiVersion", "apidiscovery.k8s.io/" + aggregated},
                      {"metadata", json::object()},
                      {"items", json::array{std::move(item)}}};
    co_await write_document(exchange, json::serialize(list),
                            std::string(aggregated == "v2" ? kAggregatedV2 : kAggregatedV2Beta1));
    co_return;
  }
  json::array versions;
  for (const auto* service : services_)
    if (service->group().empty()) versions.emplace_back(service->version());
  std::string host(exchange.request.headers.get("Host").value_or(""));
  json::object out{{"kind", "APIVersions"},
                   {"versions", std::move(versions)},
                   {"serverAddressByClientCIDRs",
                    json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", host}}}}};
  co_await write_document(exchange, json::serialize(out));
}

asio::awaitable<void> DiscoveryService::serve_groups(request::Exchange& exchange) const {
  std::vector<DynamicServices> held;
  const std::vector<const endpoints::GroupVersionService*> services = all_services(held);
  const std::vector<RemoteGroupVersion> remote = remote_group_versions();
  const bool aggregated_form = !aggregated_version(exchange.request).empty();
  // Groups in order, each with its versions in the form asked for.
  std::vector<std::pair<std::string, json::array>> groups;
  auto versions_of = [&groups](const std::string& group) -> json::array& {
    for (auto& [name, versions] : groups)
      if (name == group) return versions;
    return groups.emplace_back(group, json::array()).second;
  };
  for (const auto* service : services) {
    if (service->group().empty()) continue;
    json::array& versions = versions_of(service->group());
    if (aggregated_form) versions.push_back(aggregated_version_entry(*service));
    else versions.push_back(group_version(service->group(), service->version()));
  }
  for (const auto& entry : remote) {
    json::array& versions = versions_of(entry.group);
    if (aggregated_form) versions.push_back(aggregated_remote_entry(entry));
    else versions.push_back(group_version(entry.group, entry.version));
  }
  if (aggregated_form) {
    const std::string aggregated = aggregated_version(exchange.request);
    json::array items;
    for (auto& [group, versions] : groups)
      items.push_back(json::object{{"metadata", json::object{{"name", group}, {"creationTimestamp", nullptr}}},
                                   {"versions", std::move(versions)}});
    json::object list{{"kind", "APIGroupDiscoveryList"},
                      {"apiVersion", "apidiscovery.k8s.io/" + aggregated},
                      {"metadata", json::object()},
                      {"items", std::move(items)}};
    co_await write_document(exchange, json::serialize(list),
                            std::string(aggregated == "v2" ? kAggregatedV2 : kAggregatedV2Beta1));
    co_return;
  }
  json::array groups_json;
  for (auto& [group, versions] : groups) {
    json::value preferred = versions.front();
    groups_json.push_back(
        json::object{{"name", group}, {"versions", std::move(versions)}, {"preferredVersion", std::move(preferred)}});
  }
  json::object out{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups_json)}};
  co_await write_document(exchange, json::serialize(out));
}

asio::awaitable<void> DiscoveryService::serve_group(request::Exchange& exchange, std::string_view group) const {
  std::vector<DynamicServices> held;
  const std::vector<const endpoints::GroupVersionService*> services = all_services(held);
  json::array versions;
  for (const auto* service : services)
    if (service->group() == group) versions.push_back(group_version(group, service->version()));
  for (const auto& entry : remote_group_versions())
    if (entry.group == group) versions.push_back(group_version(group, entry.version));
  if (versions.empty()) {
    co_await http::write_status(*exchange.response, apierrors::path_not_found());
    co_return;
  }
  json::value preferred = versions.front();
  json::object out{{"kind", "APIGroup"},
                   {"apiVersion", "v1"},
                   {"name", group},
                   {"versions", std::move(versions)},
                   {"preferredVersion", std::move(preferred)}};
  co_await write_document(exchange, json::serialize(out));
}

}  // namespace kapi::discovery

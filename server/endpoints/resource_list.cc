#include "server/endpoints/resource_list.h"

#include "base/base64.h"

#include <openssl/sha.h>

#include <boost/json.hpp>

namespace kapi::endpoints {

namespace json = boost::json;

json::array json_strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& value : values) out.emplace_back(value);
  return out;
}

SubresourceInfo subresource_info(const registry::Store& store, std::string_view subresource) {
  const auto& d = store.definition();
  for (const auto& created : store.strategy().create_subresources())
    if (created.name == subresource) {
      // Named only when it differs from the resource's own group version, as kube lists pods/eviction.
      if (created.group == d.group && created.version == d.version) return {"", "", created.kind, {"create"}};
      return {created.group, created.version, created.kind, {"create"}};
    }
  for (const auto& connected : store.strategy().connect_subresources())
    if (connected.name == subresource) {
      json::array verbs;
      for (const auto& verb : connected.verbs) verbs.emplace_back(verb);
      return {"", "", connected.kind, std::move(verbs)};
    }
  if (subresource == "scale") return {"autoscaling", "v1", "Scale", {"get", "patch", "update"}};
  if (subresource == "finalize") return {"", "", d.kind, {"update"}};
  return {"", "", d.kind, {"get", "patch", "update"}};
}

std::string storage_version_hash(std::string_view group, std::string_view version, std::string_view kind) {
  std::string gvk = std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return base::base64_encode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

std::string resource_list(std::string_view group, std::string_view version,
                          const std::vector<GroupVersionService::Served>& served) {
  json::array resources;
  for (const auto& [definition, store] : served) {
    const auto& d = *definition;
    json::object resource{{"name", d.resource},       {"singularName", d.singular}, {"namespaced", d.namespaced},
                          {"kind", d.kind},           {"verbs", json_strings(d.verbs)},
                          {"storageVersionHash", storage_version_hash(group, version, d.kind)}};
    if (!d.short_names.empty()) resource["shortNames"] = json_strings(d.short_names);
    if (!d.categories.empty()) resource["categories"] = json_strings(d.categories);
    resources.push_back(std::move(resource));
    for (const auto& name : d.subresources) {
      SubresourceInfo info = subresource_info(*store, name);
      json::object entry{{"name", d.resource + "/" + name}, {"singularName", ""}, {"namespaced", d.namespaced}};
      if (!info.group.empty()) entry["group"] = info.group;
      if (!info.version.empty()) entry["version"] = info.version;
      entry["kind"] = info.kind;
      entry["verbs"] = std::move(info.verbs);
      resources.push_back(std::move(entry));
    }
  }
  std::string group_version_text = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  json::object list{{"kind", "APIResourceList"},
                    {"apiVersion", "v1"},
                    {"groupVersion", group_version_text},
                    {"resources", std::move(resources)}};
  return json::serialize(list);
}

asio::awaitable<void> write_document(request::Exchange& exchange, std::string body, std::string content_type) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string etag = "\"";
  for (unsigned char b : digest) {
    etag += kHex[b >> 4];
    etag += kHex[b & 0x0f];
  }
  etag += "\"";
  auto& headers = exchange.response->headers();
  headers.set("ETag", etag);
  headers.set("Vary", "Accept");
  headers.set("Content-Type", content_type);
  if (exchange.request.headers.get("If-None-Match").value_or("") == etag) {
    co_await exchange.response->write(304, "");
    co_return;
  }
  co_await exchange.response->write(200, std::move(body));
}

}  // namespace kapi::endpoints

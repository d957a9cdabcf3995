#include "server/plugin/admission/object_lookup.h"

#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

namespace kapi::admission {

namespace {

asio::awaitable<std::optional<boost::json::object>> read_object(registry::Store& store, const std::string& namespace_,
                                                         const std::string& name, std::string resource_version) {
  bool missing = false;
  registry::ReadObject found;
  try {
    found = co_await store.get(namespace_, name, std::move(resource_version));
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw;
    missing = true;
  }
  if (missing) co_return std::nullopt;
  co_return registry::parse_json_object(found.json);
}

}  // namespace

asio::awaitable<std::optional<boost::json::object>> find_object(registry::Store& store, std::string namespace_,
                                                                std::string name) {
  std::optional<boost::json::object> cached = co_await read_object(store, namespace_, name, "0");
  if (cached) co_return cached;
  co_return co_await read_object(store, namespace_, name, "");
}

asio::awaitable<std::vector<boost::json::object>> list_objects(registry::Store& store, std::string namespace_) {
  registry::ListRequest request;
  request.resource_version = "0";
  registry::ObjectList list = co_await store.list(std::move(namespace_), std::move(request));
  std::vector<boost::json::object> objects;
  for (const registry::ReadObject& item : list.items)
    if (auto object = registry::parse_json_object(item.json)) objects.push_back(std::move(*object));
  co_return objects;
}

}  // namespace kapi::admission

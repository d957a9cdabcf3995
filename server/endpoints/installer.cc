#include "server/endpoints/installer.h"

#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/subresources.h"
#include "server/endpoints/resource_list.h"
#include "server/http/status_response.h"

#include <algorithm>

namespace kapi::endpoints {

std::vector<GroupVersionService::Served> GroupVersionService::resources() const {
  std::map<std::string_view, Served> by_name;
  for (const auto& [name, store] : stores_) by_name.emplace(name, Served{&store->definition(), store});
  for (const auto& [name, creater] : creaters_) by_name.emplace(name, Served{&creater->definition, nullptr});
  std::vector<Served> out;
  for (const auto& [name, served] : by_name) out.push_back(served);
  return out;
}

asio::awaitable<void> GroupVersionService::serve(request::Exchange& exchange) const {
  std::optional<apierrors::Status> failure;
  try {
    const auto& info = exchange.context.request_info;
    if (!info || !info->is_resource_request) {
      if (exchange.request.path == root_path() && (exchange.request.method == "GET" || exchange.request.method == "HEAD")) {
        std::string document = resource_list(group_, version_, resources());
        co_await write_document(exchange, std::move(document));
        co_return;
      }
      failure = apierrors::path_not_found();
    } else {
      co_await dispatch(exchange, *info);
    }
  } catch (const apierrors::ApiError& error) {
    failure = error.status();
  }
  if (failure && !exchange.response->committed()) co_await handlers::write_status(exchange, catalog_, *failure);
}

asio::awaitable<void> GroupVersionService::dispatch(request::Exchange& exchange, const request::RequestInfo& info) const {
  if (auto creater = creaters_.find(info.resource); creater != creaters_.end()) {
    const auto& definition = creater->second->definition;
    // kube installs a Creater's POST on its collection path alone: a name or subresource is no route.
    if (!info.name.empty() || !info.subresource.empty() || info.namespace_.empty() == definition.namespaced)
      throw apierrors::ApiError(apierrors::path_not_found());
    if (info.verb != "create")
      throw apierrors::ApiError(apierrors::method_not_supported(definition.group, definition.resource, info.verb));
    co_return co_await handlers::create_computed(exchange, catalog_, *creater->second);
  }
  auto found = stores_.find(info.resource);
  if (found == stores_.end()) throw apierrors::ApiError(apierrors::path_not_found());
  registry::Store& store = *found->second;
  const auto& definition = store.definition();
  for (auto& warning : store.strategy().request_warnings()) exchange.context.warnings.push_back(std::move(warning));
  const bool served_subresource =
      info.subresource.empty() || std::find(definition.subresources.begin(), definition.subresources.end(),
                                            info.subresource) != definition.subresources.end();
  if (!served_subresource) throw apierrors::ApiError(apierrors::path_not_found());
  // A namespaced resource is addressed in a namespace except to list or watch across all of them; a
  // cluster-scoped one never is (a namespace's own path names it as the request's namespace, as in kube).
  const bool collection_verb = info.verb == "list" || info.verb == "watch";
  if ((definition.namespaced && info.namespace_.empty() && !collection_verb) ||
      (!definition.namespaced && !info.namespace_.empty() && info.resource != "namespaces"))
    throw apierrors::ApiError(apierrors::path_not_found());

  // A resource that serves fewer verbs than a Store's eight (componentstatuses: get and list; a namespace has no
  // deletecollection) answers the others as kube answers a storage without them.
  if (info.subresource.empty() &&
      std::find(definition.verbs.begin(), definition.verbs.end(), info.verb) == definition.verbs.end())
    throw apierrors::ApiError(apierrors::method_not_supported(definition.group, definition.resource, info.verb));
  auto managers = field_managers_.find(info.resource);
  const FieldManagers* field_managers =
      managers != field_managers_.end() && !managers->second.by_subresource.empty() ? &managers->second : nullptr;
  handlers::Scope scope{exchange,       store,          info,       lifecycle_,       catalog_,
                        patch_schemas_, field_managers, admission_, object_interfaces_};
  if (!info.subresource.empty()) {
    for (const auto& subresource : store.strategy().connect_subresources()) {
      if (subresource.name != info.subresource) continue;
      if (std::find(subresource.verbs.begin(), subresource.verbs.end(), info.verb) == subresource.verbs.end())
        throw apierrors::ApiError(apierrors::method_not_supported(
            definition.group, definition.resource + "/" + info.subresource, info.verb));
      // The rest of the path after the subresource (the "/{path:*}" route kube adds for proxies).
      std::string rest;
      for (std::size_t i = 3; i < info.parts.size(); ++i) rest.append("/").append(info.parts[i]);
      auto connecting = handlers::connect(scope, subresource, std::move(rest));
      co_return co_await std::move(connecting);
    }
    // Subresources answer get, update and patch on one named object. (One co_await per statement: g++ 12
    // miscompiles a conditional between two awaitables.)
    for (const auto& subresource : store.strategy().create_subresources()) {
      if (subresource.name != info.subresource) continue;
      if (info.verb == "create") co_return co_await handlers::create_subresource(scope, subresource);
      throw apierrors::ApiError(apierrors::method_not_supported(
          definition.group, definition.resource + "/" + info.subresource, info.verb));
    }
    if (info.subresource == "scale") {
      if (info.verb == "get") co_return co_await handlers::get_scale(scope);
      if (info.verb == "update") co_return co_await handlers::update_scale(scope);
      if (info.verb == "patch") co_return co_await handlers::patch_scale(scope);
    } else {
      if (info.verb == "get") co_return co_await handlers::get(scope);
      if (info.verb == "update") co_return co_await handlers::update(scope);
      if (info.verb == "patch") co_return co_await handlers::patch(scope);
    }
    throw apierrors::ApiError(apierrors::method_not_supported(definition.group,
                                                              definition.resource + "/" + info.subresource, info.verb));
  }
  if (info.verb == "get") co_return co_await handlers::get(scope);
  if (info.verb == "list") co_return co_await handlers::list(scope);
  if (info.verb == "watch") co_return co_await handlers::watch(scope);
  if (info.verb == "create") co_return co_await handlers::create(scope);
  if (info.verb == "update") co_return co_await handlers::update(scope);
  if (info.verb == "patch") co_return co_await handlers::patch(scope);
  if (info.verb == "delete") co_return co_await handlers::remove(scope);
  if (info.verb == "deletecollection") co_return co_await handlers::remove_collection(scope);
  throw apierrors::ApiError(apierrors::method_not_supported(definition.group, definition.resource, info.verb));
}

}  // namespace kapi::endpoints

// GET of one object and LIST (handlers/get.go).
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/response.h"

namespace kapi::endpoints::handlers {

asio::awaitable<void> get(Scope scope) {
  std::string resource_version(scope.query().get("resourceVersion").value_or(""));
  registry::ReadObject object = co_await scope.store.get(scope.info.namespace_, scope.info.name, std::move(resource_version));
  co_await write_object(scope, 200, std::move(object));
}

asio::awaitable<void> list(Scope scope) {
  registry::ListRequest request = list_request(scope);
  storage::SharedListResult list = co_await scope.store.list_shared(scope.info.namespace_, std::move(request));
  co_await write_list(scope, list);
}

}  // namespace kapi::endpoints::handlers

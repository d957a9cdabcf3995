// POST (handlers/create.go).
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"

namespace kapi::endpoints::handlers {

asio::awaitable<void> create(Scope scope) {
  boost::json::object object = decode_body(scope);
  conform_body(scope, object);
  registry::WriteOptions options{.dry_run = dry_run(scope.query())};
  std::string created = co_await scope.store.create(scope.info.namespace_, std::move(object), options);
  co_await write_object(scope, 201, created);
}

}  // namespace kapi::endpoints::handlers

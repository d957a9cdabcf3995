// POST (handlers/create.go).
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/managed_fields.h"
#include "server/endpoints/handlers/response.h"

namespace kapi::endpoints::handlers {

asio::awaitable<void> create(Scope scope) {
  const std::string manager = write_manager(scope, WriteOptionsKind::Create);
  DecodedBody body = decode_body(scope.body_target());
  conform_decoded(scope.body_target(), body);
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .user = scope.exchange.context.user,
                                 .record_managed_fields = managed_fields_recorder(scope, manager)};
  add_admission(scope, options, manager);
  std::string created = co_await scope.store.create(scope.info.namespace_, std::move(body.object), options);
  co_await write_object(scope, 201, std::move(created));
}

}  // namespace kapi::endpoints::handlers

// POST to a subresource that takes another kind than its resource's (a pod's /binding or /eviction, a service
// account's /token): the body is decoded as that kind and conformed to its schema, the resource's strategy applies
// it, and the answer is the object it makes or else a Success Status, both with code 201, as kube's create
// handler answers what a rest.Creater returns.
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/schema/decoding.h"

namespace kapi::endpoints::handlers {

asio::awaitable<void> create_subresource(Scope scope, const registry::CreateSubresource& subresource) {
  const std::string api_version =
      subresource.group.empty() ? subresource.version : subresource.group + "/" + subresource.version;
  schema::TypeMeta expected{api_version, subresource.kind};
  boost::json::object body = decode_body_as(scope, expected);
  if (const auto* kind = scope.catalog.kind(subresource.group, subresource.version, subresource.kind)) {
    const auto validation = schema::parse_field_validation(scope.query().get("fieldValidation").value_or(""));
    for (auto& warning : schema::report_unknown_fields(validation, schema::conform(scope.catalog, kind, body)))
      scope.exchange.context.warnings.push_back(std::move(warning));
  }
  co_await admit_subresource_create(scope, subresource, body);
  registry::SubresourceAnswer answer = co_await subresource.create(
      scope.store, scope.info.namespace_, scope.info.name, std::move(body), dry_run(scope.query()));
  if (answer) {
    registry::ResourceDefinition kind{.group = subresource.group, .version = subresource.version,
                                      .kind = subresource.kind};
    co_return co_await write_made_object(scope.exchange, scope.catalog, kind, 201, std::move(*answer));
  }
  apierrors::Status success{201, "", "", std::nullopt};
  co_await write_status(scope.exchange, scope.catalog, success);
}

}  // namespace kapi::endpoints::handlers

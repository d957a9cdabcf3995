// The decoding step kube's handlers run on every body (handlers/rest.go, the serializer's strict mode): the
// body is conformed to its kind's schema, and fieldValidation decides what unknown fields do.
#include "server/endpoints/handlers/response.h"
#include "server/schema/decoding.h"

namespace kapi::endpoints::handlers {

void conform_body(Scope& scope, boost::json::object& object) {
  const auto& definition = scope.store.definition();
  const auto* kind = scope.catalog.kind(definition.group, definition.version, definition.kind);
  if (!kind) return;  // a resource without a type schema keeps its body as sent
  const auto validation = schema::parse_field_validation(scope.query().get("fieldValidation").value_or(""));
  const auto unknown = schema::conform(scope.catalog, kind, object);
  for (auto& warning : schema::report_unknown_fields(validation, unknown))
    scope.exchange.context.warnings.push_back(std::move(warning));
}

}  // namespace kapi::endpoints::handlers

// The decoding step kube's handlers run on every body (handlers/rest.go, the serializer's strict mode): the
// body is conformed to its kind's schema, and fieldValidation decides what unknown fields do.
#include "server/endpoints/handlers/response.h"
#include "server/schema/decoding.h"

namespace kapi::endpoints::handlers {
namespace {

void conform_to_kind(Scope& scope, boost::json::object& object) {
  const auto& definition = scope.store.definition();
  const auto* kind = scope.catalog.kind(definition.group, definition.version, definition.kind);
  const auto validation = schema::parse_field_validation(scope.query().get("fieldValidation").value_or(""));
  if (!kind) {
    // A resource without a type schema keeps its body as sent, unless it conforms bodies itself.
    if (auto unknown = scope.store.strategy().conform(object))
      for (auto& warning : schema::report_unknown_fields(validation, *unknown))
        scope.exchange.context.warnings.push_back(std::move(warning));
    return;
  }
  const auto unknown = schema::conform(scope.catalog, kind, object);
  for (auto& warning : schema::report_unknown_fields(validation, unknown))
    scope.exchange.context.warnings.push_back(std::move(warning));
}

}  // namespace

void conform_body(Scope& scope, boost::json::object& object) {
  conform_to_kind(scope, object);
  for (auto& warning : scope.store.strategy().write_warnings(object))
    scope.exchange.context.warnings.push_back(std::move(warning));
}

}  // namespace kapi::endpoints::handlers

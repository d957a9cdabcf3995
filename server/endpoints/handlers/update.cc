// PUT (handlers/update.go) and PATCH (handlers/patch.go): both are a read-modify-write through Store::update,
// so a patch is re-applied to the fresh object when a concurrent writer wins.
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/managed_fields.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/endpoints/handlers/subresources.h"
#include "server/patch/json_patch.h"
#include "server/patch/merge_patch.h"
#include "server/patch/strategic_merge_patch.h"

#include <boost/json.hpp>

namespace kapi::endpoints::handlers {

BodyFormat patch_format(const Scope& scope) {
  const auto content_type = scope.request().headers.get("Content-Type");
  const std::string_view type = content_type ? content_type->substr(0, content_type->find(';')) : "";
  // The patch types the resource lists (kube compares the media type as sent, without parameters).
  const bool strategic = scope.store.strategy().strategic_merge_patch();
  if (type != "application/json-patch+json" && type != "application/merge-patch+json" &&
      type != "application/apply-patch+yaml" && (!strategic || type != "application/strategic-merge-patch+json"))
    throw apierrors::ApiError(apierrors::unsupported_media_type(accepted_patch_types(scope.store.strategy())));
  return body_format(scope.request(), true);
}

asio::awaitable<void> update(Scope scope) {
  const std::string manager = write_manager(scope, WriteOptionsKind::Update);
  DecodedBody body = decode_body(scope.body_target());
  conform_decoded(scope.body_target(), body);
  auto object = std::make_shared<boost::json::object>(std::move(body.object));
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .subresource = scope.info.subresource,
                                 .user = scope.exchange.context.user,
                                 .warnings = &scope.exchange.context.warnings,
                                 .record_managed_fields = managed_fields_recorder(scope, manager)};
  add_admission(scope, options, manager);
  // Named, not a temporary in the co_await expression: g++ 12 destroys such temporaries twice.
  registry::UpdateFunction replace =
      split_status(scope, [object](const boost::json::object*) { return *object; });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, scope.info.name, replace, options);
  co_await write_object(scope, created ? 201 : 200, std::move(stored));
}

asio::awaitable<void> patch(Scope scope) {
  const BodyFormat format = patch_format(scope);
  if (format == BodyFormat::ApplyPatch) co_return co_await apply_patch(std::move(scope));
  const std::string manager = write_manager(scope, WriteOptionsKind::Patch);
  const std::string& body = scope.request().body;
  const auto& definition = scope.store.definition();
  // The kind's schema when the catalog has it; otherwise the strategy's (metadata only).
  const patch::PatchSchema* schema =
      scope.patch_schemas.of(scope.catalog.kind(definition.group, definition.version, definition.kind));
  const patch::PatchSchema& patch_schema = schema ? *schema : scope.store.strategy().patch_schema();
  const std::string name = scope.info.name;
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .subresource = scope.info.subresource,
                                 .user = scope.exchange.context.user,
                                 .warnings = &scope.exchange.context.warnings,
                                 .record_managed_fields = managed_fields_recorder(scope, manager)};
  add_admission(scope, options, manager);
  registry::UpdateFunction apply = split_status(scope, [&](const boost::json::object* current) -> boost::json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found(definition.group, definition.resource, name));
    boost::json::value document = *current;
    switch (format) {
      case BodyFormat::JsonPatch: document = patch::apply_json_patch(std::move(document), body); break;
      case BodyFormat::MergePatch: document = patch::apply_merge_patch(std::move(document), body); break;
      default: document = patch::apply_strategic_merge_patch(std::move(document), body, patch_schema); break;
    }
    if (!document.is_object()) throw apierrors::ApiError(apierrors::bad_request("the patched object is not an object"));
    conform_body(scope, document.as_object());
    return std::move(document.as_object());
  });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, name, apply, options);
  co_await write_object(scope, created ? 201 : 200, std::move(stored));
}

}  // namespace kapi::endpoints::handlers

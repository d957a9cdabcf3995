// PATCH with application/apply-patch+yaml (handlers/patch.go's applyPatcher): the body is an applied configuration
// in YAML (JSON being YAML), merged into the live object by the resource's FieldManager as the request's manager;
// a missing object is created through apply (201). Runs inside Store::update, so a lost race applies again.
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/managed_fields.h"
#include "server/endpoints/handlers/response.h"
#include "server/endpoints/handlers/subresources.h"
#include "server/fieldmanager/field_manager.h"
#include "server/registry/object_meta.h"
#include "server/schema/decoding.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>

#include <algorithm>
#include <memory>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

// fieldValidation of an apply: yaml.UnmarshalStrict into a map refuses repeated keys only (unknown fields are the
// FieldManager's: the configuration must fit the type). Strict fails the request, Warn warns once.
void check_strict(Scope& scope, const ApplyConfiguration& configuration, bool& warned) {
  if (configuration.duplicate_keys.empty()) return;
  const auto validation = schema::parse_field_validation(scope.query().get("fieldValidation").value_or(""));
  if (validation == schema::FieldValidation::kIgnore) return;
  const std::string error =
      "error converting YAML to JSON: " + schema::yaml_unmarshal_errors(configuration.duplicate_keys);
  if (validation == schema::FieldValidation::kStrict)
    throw apierrors::ApiError(apierrors::bad_request("error strict decoding YAML: " + error));
  if (warned) return;
  warned = true;
  // Go's HTTP server writes a header value's line breaks as spaces.
  std::string warning = error;
  std::replace(warning.begin(), warning.end(), '\n', ' ');
  scope.exchange.context.warnings.push_back(std::move(warning));
}

const fieldmanager::FieldManager& field_manager_of(const Scope& scope, std::string_view subresource) {
  const fieldmanager::FieldManager* manager = scope.field_managers ? scope.field_managers->of(subresource) : nullptr;
  if (!manager) {
    // A resource without types to apply with takes the other patch types only.
    std::string accepted = accepted_patch_types(scope.store.strategy());
    accepted.erase(accepted.rfind(", application/apply-patch+yaml"));
    throw apierrors::ApiError(apierrors::unsupported_media_type(accepted));
  }
  return *manager;
}

}  // namespace

asio::awaitable<void> apply_patch(Scope scope) {
  const std::string manager = write_manager(scope, WriteOptionsKind::Apply);
  const bool force = apply_force(scope);
  const fieldmanager::FieldManager& field_manager = field_manager_of(scope, scope.info.subresource);
  auto configuration = std::make_shared<ApplyConfiguration>(decode_apply_configuration(scope.request().body));
  const std::string name = scope.info.name;
  // Only the main resource creates through apply (the status and scale storages never create).
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .subresource = scope.info.subresource,
                                 .force_allow_create = scope.info.subresource.empty(),
                                 .user = scope.exchange.context.user,
                                 .warnings = &scope.exchange.context.warnings};
  add_admission(scope, options, manager);
  bool warned = false;
  registry::UpdateFunction apply =
      split_status(scope, [&, configuration](const json::object* current) -> json::object {
        json::object applied = field_manager.apply(current, configuration->object, manager, force);
        check_strict(scope, *configuration, warned);
        // checkName: the configuration names the object it applies to (the Store fills in a missing name for
        // other writes, which kube does not do here).
        const std::string_view applied_name = registry::meta_string(applied, "name");
        if (applied_name != name)
          throw apierrors::ApiError(apierrors::bad_request("the name of the object (" + std::string(applied_name) +
                                                           ") does not match the name on the URL (" + name + ")"));
        return applied;
      });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, name, apply, options);
  co_await write_object(scope, created ? 201 : 200, std::move(stored));
}

asio::awaitable<void> apply_scale_patch(Scope scope) {
  const std::string manager = write_manager(scope, WriteOptionsKind::Apply);
  const bool force = apply_force(scope);
  const fieldmanager::FieldManager& field_manager = field_manager_of(scope, "scale");
  auto configuration = std::make_shared<ApplyConfiguration>(decode_apply_configuration(scope.request().body));
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .warnings = &scope.exchange.context.warnings};
  add_admission(scope, options, manager);
  bool warned = false;
  registry::UpdateFunction update =
      scale_update(scope, [&, configuration](json::object scale) -> json::object {
        json::object applied = field_manager.apply(&scale, configuration->object, manager, force);
        check_strict(scope, *configuration, warned);
        return applied;
      });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, scope.info.name, update, options);
  json::object scale = scale_of(registry::parse_json(stored).as_object(), scope.store.strategy().scale_paths());
  co_await write_scale(scope, 200, scale);
}

}  // namespace kapi::endpoints::handlers

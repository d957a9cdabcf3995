#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/subresources.h"

#include "server/endpoints/handlers/managed_fields.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/fieldmanager/field_manager.h"
#include "server/fieldmanager/managed_fields.h"
#include "server/fieldmanager/scale_handler.h"
#include "server/patch/json_patch.h"
#include "server/patch/merge_patch.h"
#include "server/patch/strategic_merge_patch.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/selectors/metav1_label_selector.h"

#include <boost/json.hpp>

#include <algorithm>
#include <map>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;
using registry::fields::object_at;

bool has_subresource(const registry::ResourceDefinition& definition, std::string_view name) {
  return std::find(definition.subresources.begin(), definition.subresources.end(), name) !=
         definition.subresources.end();
}

// metav1.LabelSelectorAsSelector(...).String(); stored selectors were validated, so one that does not convert is "".
std::string selector_string(const json::object* selector) {
  if (!selector) return "";
  std::optional<selectors::LabelSelector> parsed = selectors::label_selector_from_metav1(*selector);
  return parsed ? parsed->to_string() : "";
}

// labels.SelectorFromSet(...).String(): "a=b,c=d", sorted by key.
std::string label_map_selector(const json::object& labels) {
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : labels)
    if (value.is_string()) sorted.emplace(std::string(key), std::string(value.as_string()));
  std::string out;
  for (const auto& [key, value] : sorted) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

std::int64_t replicas_of(const json::object* holder) {
  if (!holder) return 0;
  auto it = holder->find("replicas");
  return it != holder->end() && it->value().is_int64() ? it->value().as_int64() : 0;
}

std::int64_t int_at(const json::object& object, const std::vector<std::string>& path) {
  const json::value* value = registry::value_at(object, path);
  return value && value->is_int64() ? value->as_int64() : 0;
}

asio::awaitable<void> write_json(Scope& scope, int status, const json::object& object) {
  scope.exchange.response->headers().set("Content-Type", "application/json");
  co_await scope.exchange.response->write(status, json::serialize(object));
}

// kube's printScale (pkg/printers/internalversion): a built-in kind's ScaleREST converts its Scale to a Table with
// the kind's store, whose printers know autoscaling.Scale; this is what `kubectl get --subresource=scale` prints.
class ScalePrinter final : public registry::Strategy {
 public:
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Desired", "integer", "", "replicas is the desired number of instances for the scaled object.", 0},
            {"Available", "integer", "", "replicas is the actual number of observed instances of the scaled object.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& scale) const override {
    return {json::string(registry::meta_string(scale, "name")), replicas_of(object_at(scale, "spec")),
            replicas_of(object_at(scale, "status")), json::string(registry::age_of(scale))};
  }
};

// What the status strategies keep of the request's metadata (ResetObjectMetaForStatus leaves managedFields): the
// managedFields the write's manager recorded.
void keep_managed_fields(const json::object& wanted, json::object& result) {
  const json::object* meta = object_at(wanted, "metadata");
  const json::value* entries = meta ? meta->if_contains("managedFields") : nullptr;
  if (entries) result["metadata"].as_object()["managedFields"] = *entries;
}

}  // namespace

// The update function of a scale write: `desired` turns the current Scale (with the managedFields the Scale's
// manager sees, ScaleHandler.ToSubresource) into the wanted one, whose managedFields go back onto the parent's.
registry::UpdateFunction scale_update(const Scope& scope, std::function<json::object(json::object)> desired) {
  const auto& definition = scope.store.definition();
  const std::string name = scope.info.name;
  auto paths = scope.store.strategy().scale_paths();
  const FieldManagers* managers = scope.field_managers;
  const bool tracked = managers && managers->of("scale");
  return [&definition, name, paths, managers, tracked,
          desired = std::move(desired)](const json::object* current) -> json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found(definition.group, definition.resource, name));
    json::object old_scale = scale_of(*current, paths);
    std::optional<fieldmanager::ScaleHandler> handler;
    if (tracked) {
      const json::array* entries = fieldmanager::managed_fields_of(*current);
      handler.emplace(entries ? *entries : json::array{}, managers->api_version, managers->replicas_paths);
      json::array scale_entries = handler->to_subresource();
      if (!scale_entries.empty()) old_scale["metadata"].as_object()["managedFields"] = std::move(scale_entries);
    }
    json::object scale = desired(std::move(old_scale));
    const json::object* spec = object_at(scale, "spec");
    auto replicas = spec ? spec->find("replicas") : nullptr;
    std::int64_t wanted = 0;
    if (replicas && replicas != spec->end()) {
      if (!replicas->value().is_int64())
        throw apierrors::ApiError(apierrors::bad_request("Scale.spec.replicas must be an integer"));
      wanted = replicas->value().as_int64();
    }
    if (wanted < 0) {
      validation::ErrorList errors{validation::invalid_value(validation::Path("spec").child("replicas"),
                                                             std::to_string(wanted),
                                                             "must be greater than or equal to 0")};
      throw apierrors::ApiError(apierrors::invalid("autoscaling", "Scale", name, errors));
    }
    json::object object = *current;
    std::vector<std::string> path{"spec", "replicas"};
    if (paths) path = paths->spec_replicas;
    json::object* holder = &object;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      json::value& next = (*holder)[path[i]];
      holder = next.is_object() ? &next.as_object() : &next.emplace_object();
    }
    (*holder)[path.back()] = wanted;
    // The Scale's resourceVersion, when given, is the write's precondition.
    std::string_view version = registry::meta_string(scale, "resourceVersion");
    json::object& meta = object["metadata"].as_object();
    if (version.empty()) meta.erase("resourceVersion");
    else meta["resourceVersion"] = version;
    if (handler) {
      const json::array* scale_entries = fieldmanager::managed_fields_of(scale);
      json::array parent_entries = handler->to_parent(scale_entries ? *scale_entries : json::array{});
      if (parent_entries.empty()) meta.erase("managedFields");
      else meta["managedFields"] = std::move(parent_entries);
    }
    return object;
  };
}

// The Scale a write made, as `manager`'s Update of the Scale it started from.
json::object track_scale_update(const Scope& scope, const json::object& old_scale, json::object scale,
                                const std::string& manager) {
  const fieldmanager::FieldManager* field_manager = scope.field_managers ? scope.field_managers->of("scale") : nullptr;
  if (!field_manager) return scale;
  scale["apiVersion"] = "autoscaling/v1";
  scale["kind"] = "Scale";
  return field_manager->update(&old_scale, std::move(scale), manager);
}

json::object scale_of(const json::object& object, const std::optional<registry::ScalePaths>& paths) {
  const json::object* meta = object_at(object, "metadata");
  json::object scale_meta;
  for (std::string_view key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (meta)
      if (auto it = meta->find(key); it != meta->end()) scale_meta[key] = it->value();
  std::int64_t spec_replicas = 0, status_replicas = 0;
  std::string selector;
  if (paths) {
    // A custom resource's (scaleFromCustomResource): replicas absent are 0, the selector is a string.
    spec_replicas = int_at(object, paths->spec_replicas);
    status_replicas = int_at(object, paths->status_replicas);
    const json::value* value = registry::value_at(object, paths->label_selector);
    if (value && value->is_string()) selector = value->as_string();
    // A map of labels (a ReplicationController's spec.selector; a CRD's selector path always holds a string).
    if (value && value->is_object()) selector = label_map_selector(value->as_object());
  } else {
    const json::object* spec = object_at(object, "spec");
    spec_replicas = replicas_of(spec);
    status_replicas = replicas_of(object_at(object, "status"));
    selector = selector_string(spec ? object_at(*spec, "selector") : nullptr);
  }
  json::object scale_status{{"replicas", status_replicas}};
  if (!selector.empty()) scale_status["selector"] = selector;
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", std::move(scale_meta)},
          {"spec", json::object{{"replicas", spec_replicas}}},
          {"status", std::move(scale_status)}};
}

asio::awaitable<void> write_scale(Scope& scope, int status, const json::object& scale) {
  // A Scale is a built-in kind whatever it scales: a custom resource's too has a protobuf form (kube serves it with
  // the autoscaling scheme's codecs) but is printed by its CRD's columns (its scaleREST converts with the custom
  // resource store's table convertor).
  const bool custom = scope.store.strategy().scale_paths().has_value();
  const Output output = negotiate(scope.request());
  switch (output.representation) {
    case Representation::Object:
      if (output.encoding == Encoding::Protobuf)
        co_return co_await write_protobuf_value(scope.exchange, scope.catalog, status, scale);
      co_return co_await write_json(scope, status, scale);
    case Representation::PartialObjectMetadata:
      if (output.encoding == Encoding::Protobuf)
        co_return co_await write_protobuf_value(scope.exchange, scope.catalog, status, partial_object_metadata(scale));
      co_return co_await write_json(scope, status, partial_object_metadata(scale));
    case Representation::Table: {
      static const ScalePrinter kScalePrinter;
      const registry::Strategy& printer = custom ? scope.store.strategy() : kScalePrinter;
      json::object table = to_table(printer, {scale}, true);
      table["metadata"] = json::object{{"resourceVersion", registry::meta_string(scale, "resourceVersion")}};
      co_return co_await write_json(scope, status, table);
    }
  }
}

registry::UpdateFunction split_status(const Scope& scope, registry::UpdateFunction update) {
  if (scope.info.subresource == "finalize") {
    // A namespace's finalize writes spec.finalizers only (namespaceFinalizeStrategy).
    return [update = std::move(update)](const json::object* current) -> json::object {
      json::object wanted = update(current);
      if (!current) return wanted;
      json::object result = *current;
      json::object& spec = result["spec"].is_object() ? result["spec"].as_object() : result["spec"].emplace_object();
      const json::object* wanted_spec = object_at(wanted, "spec");
      if (wanted_spec && wanted_spec->contains("finalizers")) spec["finalizers"] = wanted_spec->at("finalizers");
      else spec.erase("finalizers");
      std::string_view version = registry::meta_string(wanted, "resourceVersion");
      json::object& meta = result["metadata"].as_object();
      if (version.empty()) meta.erase("resourceVersion");
      else meta["resourceVersion"] = version;
      keep_managed_fields(wanted, result);
      return result;
    };
  }
  if (scope.info.subresource == "ephemeralcontainers") {
    // A pod's ephemeral containers alone (kube's dropNonEphemeralContainerUpdates): the rest stays as stored, but
    // for the resourceVersion precondition the client sent.
    return [update = std::move(update)](const json::object* current) -> json::object {
      json::object wanted = update(current);
      if (!current) return wanted;
      json::object result = *current;
      json::value& spec = result["spec"];
      if (!spec.is_object()) spec.emplace_object();
      const json::object* wanted_spec = object_at(wanted, "spec");
      if (wanted_spec && wanted_spec->contains("ephemeralContainers"))
        spec.as_object()["ephemeralContainers"] = wanted_spec->at("ephemeralContainers");
      else spec.as_object().erase("ephemeralContainers");
      std::string_view version = registry::meta_string(wanted, "resourceVersion");
      json::object& meta = result["metadata"].as_object();
      if (version.empty()) meta.erase("resourceVersion");
      else meta["resourceVersion"] = version;
      keep_managed_fields(wanted, result);
      return result;
    };
  }
  // A CertificateSigningRequest's approval writes status too (its conditions; the strategy keeps the rest).
  const bool status_write = scope.info.subresource == "status" || scope.info.subresource == "approval";
  if (!status_write && !has_subresource(scope.store.definition(), "status")) return update;
  return [status_write, update = std::move(update)](const json::object* current) -> json::object {
    json::object wanted = update(current);
    if (!current) return wanted;  // a create through PUT: nothing stored to keep
    if (!status_write) {
      // A main-resource write cannot change status (kube's PrepareForUpdate: newObj.Status = oldObj.Status).
      if (auto it = current->find("status"); it != current->end()) wanted["status"] = it->value();
      else wanted.erase("status");
      return wanted;
    }
    // A status write changes status only; metadata and spec stay as stored (ResetObjectMetaForStatus), except
    // the resourceVersion precondition the client sent.
    json::object result = *current;
    if (auto it = wanted.find("status"); it != wanted.end()) result["status"] = it->value();
    else result.erase("status");
    std::string_view version = registry::meta_string(wanted, "resourceVersion");
    json::object& meta = result["metadata"].as_object();
    if (version.empty()) meta.erase("resourceVersion");
    else meta["resourceVersion"] = version;
    keep_managed_fields(wanted, result);
    return result;
  };
}

asio::awaitable<void> get_scale(Scope scope) {
  registry::ReadObject object = co_await scope.store.get(scope.info.namespace_, scope.info.name, "");
  json::object scale = scale_of(registry::parse_json(object.json).as_object(), scope.store.strategy().scale_paths());
  co_await write_scale(scope, 200, scale);
}

asio::awaitable<void> update_scale(Scope scope) {
  const std::string manager = write_manager(scope, WriteOptionsKind::Update);
  body_format(scope.request(), false);
  // A Scale body in protobuf too (kube decodes it with the autoscaling scheme's codecs, whatever is scaled).
  auto body = std::make_shared<json::object>(decode_body_as(scope, {"autoscaling/v1", "Scale"}));
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .warnings = &scope.exchange.context.warnings};
  add_admission(scope, options, manager);
  registry::UpdateFunction update = scale_update(scope, [&scope, body, &manager](json::object scale) {
    return track_scale_update(scope, scale, *body, manager);
  });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, scope.info.name, update, options);
  json::object scale = scale_of(registry::parse_json(stored).as_object(), scope.store.strategy().scale_paths());
  co_await write_scale(scope, 200, scale);
}

asio::awaitable<void> patch_scale(Scope scope) {
  const BodyFormat format = patch_format(scope);
  if (format == BodyFormat::ApplyPatch) co_return co_await apply_scale_patch(std::move(scope));
  const std::string manager = write_manager(scope, WriteOptionsKind::Patch);
  auto body = std::make_shared<std::string>(scope.request().body);
  const patch::PatchSchema* schema = scope.patch_schemas.of(scope.catalog.kind("autoscaling", "v1", "Scale"));
  registry::WriteOptions options{.dry_run = dry_run(scope.query()), .warnings = &scope.exchange.context.warnings};
  add_admission(scope, options, manager);
  registry::UpdateFunction update = scale_update(scope, [&scope, &manager, format, body, schema](json::object scale) {
    json::value document = scale;
    switch (format) {
      case BodyFormat::JsonPatch: document = patch::apply_json_patch(std::move(document), *body); break;
      case BodyFormat::MergePatch: document = patch::apply_merge_patch(std::move(document), *body); break;
      default:
        if (!schema) throw apierrors::ApiError(apierrors::unsupported_media_type("application/merge-patch+json"));
        document = patch::apply_strategic_merge_patch(std::move(document), *body, *schema);
        break;
    }
    if (!document.is_object()) throw apierrors::ApiError(apierrors::bad_request("the patched object is not an object"));
    return track_scale_update(scope, scale, std::move(document.as_object()), manager);
  });
  auto [stored, created] = co_await scope.store.update(scope.info.namespace_, scope.info.name, update, options);
  json::object scale = scale_of(registry::parse_json(stored).as_object(), scope.store.strategy().scale_paths());
  co_await write_scale(scope, 200, scale);
}

}  // namespace kapi::endpoints::handlers

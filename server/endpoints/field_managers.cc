#include "server/endpoints/field_managers.h"
#include "server/endpoints/field_managers_internal.h"

#include "server/fieldmanager/type_converter.h"
#include "server/schema/decoding.h"
#include "server/schema/transcoder.h"
#include "server/structured_merge/typed.h"

#include <boost/json.hpp>

#include <algorithm>
#include <functional>
#include <utility>

namespace kapi::endpoints {
namespace {

namespace json = boost::json;
namespace smd = structured_merge;

}  // namespace

smd::Set paths_set(const std::vector<std::vector<std::string>>& paths) {
  smd::Set set;
  for (const auto& names : paths) {
    smd::Path path;
    for (const auto& name : names) path.push_back(smd::PathElement::field(name));
    set.insert(path);
  }
  return set;
}

namespace {

bool has_subresource(const registry::ResourceDefinition& definition, std::string_view name) {
  return std::find(definition.subresources.begin(), definition.subresources.end(), name) !=
         definition.subresources.end();
}

// What a write through `subresource` resets: the strategy's word, else kube's usual status split.
std::vector<std::vector<std::string>> reset_paths(const registry::ResourceDefinition& definition,
                                                  const registry::Strategy& strategy, std::string_view subresource) {
  if (auto own = strategy.reset_fields(subresource)) return *own;
  if (!has_subresource(definition, "status")) return {};
  if (subresource == "status") return {{"spec"}};
  return {{"status"}};
}

// The subresources whose writes replace (part of) the object itself, each with its own manager entries.
std::vector<std::string> update_subresources(const registry::ResourceDefinition& definition) {
  std::vector<std::string> out{""};
  for (const auto& name : definition.subresources)
    if (name == "status" || name == "finalize" || name == "approval" || name == "ephemeralcontainers")
      out.push_back(name);
  return out;
}

}  // namespace

smd::Path replicas_path(std::string_view dotted) {
  smd::Path path;
  if (dotted.starts_with('.')) dotted.remove_prefix(1);
  while (!dotted.empty()) {
    const std::size_t dot = dotted.find('.');
    path.push_back(smd::PathElement::field(std::string(dotted.substr(0, dot))));
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return path;
}

namespace {

// kube's ObjectCreater.New(kind) as JSON: the empty message as kube serializes it.
json::object zero_object(const schema::Catalog& catalog, const google::protobuf::Descriptor* message) {
  if (!message) return {};
  json::value zero = schema::Transcoder(catalog).to_json(*message, "");
  return zero.is_object() ? std::move(zero.as_object()) : json::object{};
}

// kube's conversion of an applied object to its Go type, then its ObjectDefaulter: the +default markers, as
// decoding fills them, with an integer beyond its field's type converted as the unstructured converter does.
std::function<void(json::object&)> catalog_defaulter(const schema::Catalog& catalog,
                                                    const google::protobuf::Descriptor* message) {
  if (!message) return nullptr;
  return [&catalog, message](json::object& object) {
    schema::conform(catalog, message, object, schema::IntegerOverflow::kConvert);
  };
}

}  // namespace

// The manager of /scale: autoscaling/v1 Scale objects, nothing reset (ScaleREST is no ResetFieldsStrategy).
std::shared_ptr<const fieldmanager::FieldManager> scale_manager(std::shared_ptr<const smd::Schema> schema,
                                                                const schema::Catalog& catalog) {
  smd::TypeRef scale_type = fieldmanager::kind_type(*schema, catalog, "autoscaling", "v1", "Scale");
  if (!scale_type) return nullptr;
  const google::protobuf::Descriptor* message = catalog.kind("autoscaling", "v1", "Scale");
  fieldmanager::FieldManager::Options options;
  options.new_object = zero_object(catalog, message);
  options.defaulter = catalog_defaulter(catalog, message);
  options.schema = std::move(schema);
  options.types["autoscaling/v1"] = scale_type;
  options.api_version = "autoscaling/v1";
  options.kind = "Scale";
  options.subresource = "scale";
  return std::make_shared<const fieldmanager::FieldManager>(std::move(options));
}

const fieldmanager::FieldManager* FieldManagers::of(std::string_view subresource) const {
  auto it = by_subresource.find(subresource);
  return it == by_subresource.end() ? nullptr : it->second.get();
}

FieldManagers builtin_field_managers(const registry::ResourceDefinition& definition, const registry::Strategy& strategy,
                                     std::shared_ptr<const smd::Schema> schema, const schema::Catalog& catalog,
                                     const std::vector<PeerVersion>& peers) {
  FieldManagers managers;
  managers.api_version = definition.group_version();
  smd::TypeRef own = fieldmanager::kind_type(*schema, catalog, definition.group, definition.version, definition.kind);
  // A kind the catalog has no message for (CustomResourceDefinition) is tracked by the deduced type: granular
  // structs and maps, atomic lists, which is what kube's OpenAPI of it says everywhere but status.conditions.
  if (!own) own = schema->deduced();
  std::map<std::string, smd::TypeRef> types{{managers.api_version, own}};
  auto converter = std::make_shared<ObjectConverter>();
  converter->add_type(managers.api_version, {schema.get(), own});
  for (const auto& peer : peers) {
    smd::TypeRef type = fieldmanager::kind_type(*schema, catalog, peer.group, peer.version, peer.kind);
    if (!type || !peer.conversion) continue;
    const std::string peer_version = group_version(peer.group, peer.version);
    types[peer_version] = type;
    converter->add_type(peer_version, {schema.get(), type});
    auto conversion = peer.conversion;
    Conversion to_storage = [conversion](json::object o) { return conversion->to_storage(std::move(o)); };
    Conversion from_storage = [conversion](json::object o) { return conversion->from_storage(std::move(o)); };
    converter->add_conversion(managers.api_version, peer_version, peer.peer_is_storage ? to_storage : from_storage);
    converter->add_conversion(peer_version, managers.api_version, peer.peer_is_storage ? from_storage : to_storage);
  }
  const google::protobuf::Descriptor* message = catalog.kind(definition.group, definition.version, definition.kind);
  for (const auto& subresource : update_subresources(definition)) {
    fieldmanager::FieldManager::Options options;
    options.new_object = zero_object(catalog, message);
    options.defaulter = catalog_defaulter(catalog, message);
    options.schema = schema;
    options.types = types;
    options.api_version = managers.api_version;
    options.kind = definition.kind;
    options.subresource = subresource;
    const smd::Set reset = paths_set(reset_paths(definition, strategy, subresource));
    if (!reset.empty())
      for (const auto& [version, type] : types) options.reset_fields[version] = reset;
    if (types.size() > 1) options.converter = converter;
    managers.by_subresource[subresource] = std::make_shared<const fieldmanager::FieldManager>(std::move(options));
  }
  if (has_subresource(definition, "scale")) {
    managers.by_subresource["scale"] = scale_manager(schema, catalog);
    // Built-in scalable kinds keep replicas at spec.replicas at every version (replicasPathInDeployment, ...).
    for (const auto& [version, type] : types) managers.replicas_paths[version] = replicas_path("spec.replicas");
  }
  return managers;
}

}  // namespace kapi::endpoints

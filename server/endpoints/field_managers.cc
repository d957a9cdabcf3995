#include "server/endpoints/field_managers.h"

#include "server/apiextensions/crd_model.h"
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

using Conversion = std::function<json::object(json::object)>;

std::string group_version(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

// merge.Converter over kapi's conversions: an object reaches another version of its kind through the function
// registered for the pair; a version no function reaches is gone (its managers are dropped).
class ObjectConverter final : public smd::Converter {
 public:
  struct Typed {
    const smd::Schema* schema = nullptr;
    smd::TypeRef type = nullptr;
  };

  void add_type(const std::string& api_version, Typed typed) { types_[api_version] = typed; }
  void add_conversion(const std::string& from, const std::string& to, Conversion conversion) {
    conversions_[{from, to}] = std::move(conversion);
  }

  smd::TypedValue convert(const smd::TypedValue& object, const std::string& api_version) const override {
    auto typed = types_.find(api_version);
    if (typed == types_.end() || !object.value.is_object())
      throw MissingVersion("no conversion to " + api_version);
    const json::object& source = object.value.as_object();
    std::string from;
    if (auto it = source.find("apiVersion"); it != source.end() && it->value().is_string())
      from = it->value().as_string();
    if (from == api_version) return object;
    auto conversion = conversions_.find({from, api_version});
    if (conversion == conversions_.end()) throw MissingVersion("no conversion from " + from + " to " + api_version);
    json::object converted = conversion->second(source);
    return smd::as_typed(std::move(converted), *typed->second.schema, typed->second.type, true);
  }

 private:
  std::map<std::string, Typed> types_;
  std::map<std::pair<std::string, std::string>, Conversion> conversions_;
};

smd::Set paths_set(const std::vector<std::vector<std::string>>& paths) {
  smd::Set set;
  for (const auto& names : paths) {
    smd::Path path;
    for (const auto& name : names) path.push_back(smd::PathElement::field(name));
    set.insert(path);
  }
  return set;
}

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

// kube's ObjectCreater.New(kind) as JSON: the empty message as kube serializes it.
json::object zero_object(const schema::Catalog& catalog, const google::protobuf::Descriptor* message) {
  if (!message) return {};
  json::value zero = schema::Transcoder(catalog).to_json(*message, "");
  return zero.is_object() ? std::move(zero.as_object()) : json::object{};
}

// kube's ObjectDefaulter for a built-in kind: its +default markers, as decoding fills them.
std::function<void(json::object&)> catalog_defaulter(const schema::Catalog& catalog,
                                                    const google::protobuf::Descriptor* message) {
  if (!message) return nullptr;
  return [&catalog, message](json::object& object) { schema::conform(catalog, message, object); };
}

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

}  // namespace

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
  if (!own) return managers;
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

FieldManagers custom_resource_field_managers(const apiextensions::Crd& crd, const apiextensions::CrdVersion& version,
                                             std::shared_ptr<const registry::Strategy> strategy,
                                             const schema::Catalog& catalog,
                                             std::shared_ptr<const smd::Schema> builtin_types) {
  FieldManagers managers;
  managers.api_version = group_version(crd.group, version.name);
  // Every served version's types, each in its own schema: one handle keeps them all alive.
  struct Schemas {
    std::vector<std::shared_ptr<const smd::Schema>> held;
  };
  auto schemas = std::make_shared<Schemas>();
  std::map<std::string, smd::TypeRef> types;
  auto converter = std::make_shared<ObjectConverter>();
  const json::object preserve_unknown{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  for (const auto& served : crd.versions) {
    if (!served.served) continue;
    const std::string api_version = group_version(crd.group, served.name);
    fieldmanager::CustomResourceSchema made;
    try {
      made = fieldmanager::schema_from_structural(served.raw_schema.empty() ? preserve_unknown : served.raw_schema,
                                                  apiextensions::openapi_definition_name(crd.group, served.name,
                                                                                        crd.accepted_names.kind),
                                                  catalog);
    } catch (const std::invalid_argument&) {
      // kube serves such a version without managed fields only when it is not the request's; here every write of
      // the version then goes untracked.
      continue;
    }
    if (!made.schema || !made.root) continue;
    schemas->held.push_back(made.schema);
    types[api_version] = made.root;
    converter->add_type(api_version, {made.schema.get(), made.root});
    if (served.scale) managers.replicas_paths[api_version] = replicas_path(served.scale->spec_replicas_path);
    else managers.replicas_paths[api_version] = {};
  }
  if (!types.contains(managers.api_version)) return managers;
  // The None conversion: the same object with another apiVersion.
  for (const auto& [from, from_type] : types)
    for (const auto& [to, to_type] : types)
      if (from != to)
        converter->add_conversion(from, to, [to = to](json::object o) {
          o["apiVersion"] = to;
          return o;
        });
  // TypeRefs point into the Schema that made them: the request version's is the one that knows its root type.
  std::shared_ptr<const smd::Schema> schema;
  const smd::TypeRef root = types.at(managers.api_version);
  for (const auto& held : schemas->held)
    if (!schema && held->find(root->name) == root) schema = std::shared_ptr<const smd::Schema>(schemas, held.get());
  if (!schema) schema = std::shared_ptr<const smd::Schema>(schemas, schemas->held.front().get());
  std::vector<std::string> subresources{""};
  if (version.status_subresource) subresources.push_back("status");
  for (const auto& subresource : subresources) {
    fieldmanager::FieldManager::Options options;
    // A custom resource's zero object is empty; its defaults are its schema's, as its strategy conforms them.
    options.defaulter = [strategy](json::object& object) { strategy->conform(object); };
    options.schema = schema;
    options.types = types;
    options.api_version = managers.api_version;
    options.kind = crd.accepted_names.kind;
    options.subresource = subresource;
    // customResourceStrategy / statusStrategy GetResetFields, at the request's version only.
    if (version.status_subresource)
      options.reset_fields[managers.api_version] =
          subresource == "status" ? paths_set({{"apiVersion"}, {"kind"}, {"metadata"}, {"spec"}})
                                  : paths_set({{"status"}});
    if (types.size() > 1) options.converter = converter;
    managers.by_subresource[subresource] = std::make_shared<const fieldmanager::FieldManager>(std::move(options));
  }
  if (version.scale) {
    managers.by_subresource["scale"] = scale_manager(builtin_types, catalog);
  }
  return managers;
}

}  // namespace kapi::endpoints

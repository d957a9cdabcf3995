// The FieldManagers of a custom resource version (apiextensions-apiserver's crdHandler: one per served version and
// subresource, over the types of every served version, converted as the CRD's None conversion converts objects).
#include "server/apiextensions/custom_resource_field_managers.h"

#include "server/endpoints/field_managers_internal.h"
#include "server/fieldmanager/type_converter.h"

#include <boost/json.hpp>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;
namespace smd = structured_merge;

}  // namespace

endpoints::FieldManagers custom_resource_field_managers(const Crd& crd, const CrdVersion& version,
                                                       std::shared_ptr<const registry::Strategy> strategy,
                                                       const kapi::schema::Catalog& catalog,
                                                       std::shared_ptr<const smd::Schema> builtin_types) {
  endpoints::FieldManagers managers;
  managers.api_version = endpoints::group_version(crd.group, version.name);
  // Every served version's types, each in its own schema: one handle keeps them all alive.
  struct Schemas {
    std::vector<std::shared_ptr<const smd::Schema>> held;
  };
  auto schemas = std::make_shared<Schemas>();
  std::map<std::string, smd::TypeRef> types;
  auto converter = std::make_shared<endpoints::ObjectConverter>();
  const json::object preserve_unknown{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  for (const auto& served : crd.versions) {
    if (!served.served) continue;
    const std::string api_version = endpoints::group_version(crd.group, served.name);
    fieldmanager::CustomResourceSchema made;
    try {
      made = fieldmanager::schema_from_structural(served.raw_schema.empty() ? preserve_unknown : served.raw_schema,
                                                  openapi_definition_name(crd.group, served.name,
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
    if (served.scale) managers.replicas_paths[api_version] = endpoints::replicas_path(served.scale->spec_replicas_path);
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
          subresource == "status" ? endpoints::paths_set({{"apiVersion"}, {"kind"}, {"metadata"}, {"spec"}})
                                  : endpoints::paths_set({{"status"}});
    if (types.size() > 1) options.converter = converter;
    managers.by_subresource[subresource] = std::make_shared<const fieldmanager::FieldManager>(std::move(options));
  }
  if (version.scale) {
    managers.by_subresource["scale"] = endpoints::scale_manager(builtin_types, catalog);
  }
  return managers;
}

}  // namespace kapi::apiextensions

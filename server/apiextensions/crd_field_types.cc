// Custom resources: a CRD version's structural schema as kube's CRD handler converts it for apply. The handler
// builds the version's OpenAPI v3 definition (apiextensions-apiserver's builder.BuildOpenAPIV3 with default
// options: defaults, formats and value validations kept; the root's apiVersion, kind and metadata added, and those of
// every x-kubernetes-embedded-resource), merges it with the built-in definitions, and hands the lot to
// managedfields.NewTypeConverter, i.e. kube-openapi's schemaconv.ToSchemaFromOpenAPI. (It lives with apiextensions,
// whose structural schemas it reads, though fieldmanager/type_converter.h declares it: the layers keep fieldmanager
// below the handlers.)
#include "server/apiextensions/schema/structural.h"
#include "server/fieldmanager/type_converter.h"
#include "server/fieldmanager/type_converter_internal.h"

#include <utility>

namespace kapi::fieldmanager {
namespace {

namespace sm = structured_merge;
using apiextensions::schema::Schema;

constexpr std::string_view kObjectMeta = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

class StructuralConverter {
 public:
  StructuralConverter(internal::TypeBuilder& types, sm::TypeRef object_meta)
      : types_(types), object_meta_(object_meta) {}

  // The object type: the schema with the members kube's builder adds at the root.
  sm::TypeRef root(const Schema& schema, const std::string& name) {
    sm::TypeDef def = convert(schema, name, /*preserve_unknown_fields=*/false, /*type_meta=*/true);
    def.name = name;
    return &types_.add(std::move(def));
  }

 private:
  // schemaconv's visitSpec + parseSchema: the node's type decides what a value may be; x-kubernetes-preserve-
  // unknown-fields lets unknown members of this node's objects, and of every node below, be deduced.
  sm::TypeDef convert(const Schema& node, const std::string& where, bool preserve_unknown_fields, bool type_meta) {
    if (node.preserves_unknown_fields()) preserve_unknown_fields = true;
    // The builder adds apiVersion, kind and metadata at the root and at embedded resources.
    type_meta = type_meta || node.x_embedded_resource;
    sm::TypeDef def;
    if (node.type.empty()) {
      // Any JSON value (x-kubernetes-int-or-string, or preserve-unknown-fields without a type).
      def = object(node, where, preserve_unknown_fields, type_meta);
      def.scalar = true;
      def.scalar_kind = sm::ScalarKind::kUntyped;
      list(node, where, preserve_unknown_fields, def);
    } else if (node.type == "object") {
      def = object(node, where, preserve_unknown_fields, type_meta);
    } else if (node.type == "array") {
      list(node, where, preserve_unknown_fields, def);
    } else if (node.type == "integer" || node.type == "number") {
      def = *types_.scalar(sm::ScalarKind::kNumeric);
    } else if (node.type == "boolean") {
      def = *types_.scalar(sm::ScalarKind::kBoolean);
    } else if (node.type == "string") {
      // convertPrimitive: only a plain or "byte" string is a string; any other format (date-time, int-or-string,
      // uri, ...) is an untyped scalar.
      const bool plain = node.format.empty() || node.format == "byte";
      def = *types_.scalar(plain ? sm::ScalarKind::kString : sm::ScalarKind::kUntyped);
    } else {
      types_.report(where, "unrecognized type: '" + node.type + "'");
      def = *types_.scalar(sm::ScalarKind::kUntyped);
    }
    return def;
  }

  sm::TypeRef member(const Schema& node, const std::string& where, bool preserve_unknown_fields) {
    return &types_.add(convert(node, "inlined in " + where, preserve_unknown_fields, false));
  }

  // parseObject: properties are fields; other members follow additionalProperties, and without it are deduced
  // when unknown fields are preserved or when there are no properties (a free-form object), else not allowed.
  sm::TypeDef object(const Schema& node, const std::string& where, bool preserve_unknown_fields, bool type_meta) {
    sm::TypeDef def;
    def.map = true;
    for (const auto& property : node.properties) {
      if (type_meta && (property.name == "apiVersion" || property.name == "kind" || property.name == "metadata"))
        continue;  // replaced below, as the builder's SetProperty replaces them
      sm::StructField field{.name = property.name, .type = member(property.schema, where, preserve_unknown_fields)};
      if (property.schema.default_value) field.default_value = *property.schema.default_value;
      def.fields.push_back(std::move(field));
    }
    if (type_meta) {
      def.fields.push_back({.name = "apiVersion", .type = types_.scalar(sm::ScalarKind::kString)});
      def.fields.push_back({.name = "kind", .type = types_.scalar(sm::ScalarKind::kString)});
      def.fields.push_back({.name = "metadata", .type = object_meta_});
    }
    if (!node.additional_properties) {
      if (preserve_unknown_fields || def.fields.empty()) def.map_element = types_.deduced();
    } else if (const Schema* additional = node.additional_properties_schema()) {
      def.map_element = member(*additional, where, preserve_unknown_fields);
    } else if (node.additional_properties->allows) {
      def.map_element = types_.deduced();
    }
    if (node.x_map_type) {
      if (*node.x_map_type == "atomic") def.map_relationship = sm::ElementRelationship::kAtomic;
      else if (*node.x_map_type != "granular") types_.report(where, "unknown map type " + *node.x_map_type);
    }
    return def;
  }

  // parseList: x-kubernetes-list-type decides (a CRD has no patch strategy); a list without items holds untyped
  // atomic values.
  void list(const Schema& node, const std::string& where, bool preserve_unknown_fields, sm::TypeDef& def) {
    def.list = true;
    if (node.x_list_type) {
      const std::string& type = *node.x_list_type;
      if (type == "set") {
        def.list_relationship = sm::ElementRelationship::kAssociative;
      } else if (type == "map") {
        def.list_relationship = sm::ElementRelationship::kAssociative;
        if (node.x_list_map_keys.empty()) types_.report(where, "missing map keys");
        def.keys = node.x_list_map_keys;
      } else if (type != "atomic") {
        types_.report(where, "unknown list type " + type);
      }
    }
    if (node.items) {
      def.list_element = member(*node.items, where, preserve_unknown_fields);
    } else {
      if (!node.type.empty()) types_.report(where, "`items` must be specified on arrays");
      def.list_element = types_.untyped_atomic();
    }
  }

  internal::TypeBuilder& types_;
  sm::TypeRef object_meta_;
};

}  // namespace

CustomResourceSchema schema_from_structural(const boost::json::object& openapi_v3_schema, std::string root_name,
                                            const schema::Catalog& catalog) {
  auto schema = std::make_shared<sm::Schema>();
  internal::TypeBuilder types(*schema);
  internal::CatalogTypes messages(catalog, types);
  const google::protobuf::Descriptor* object_meta = catalog.message(kObjectMeta);
  if (!object_meta) throw std::invalid_argument("the catalog has no ObjectMeta");
  StructuralConverter converter(types, messages.named(object_meta));
  const Schema structural = apiextensions::schema::parse_schema(openapi_v3_schema);
  sm::TypeRef root = converter.root(structural, root_name);
  types.resolve_overrides();
  types.throw_if_errors();
  return {std::move(schema), root};
}

}  // namespace kapi::fieldmanager

#include "server/schema/openapi.h"

#include <boost/json.hpp>
#include <openssl/sha.h>

#include <set>

namespace kapi::schema {
namespace {

namespace json = boost::json;
namespace pb = google::protobuf;

// Swagger 2.0 and OpenAPI 3.0 differ in where schemas live, how parameters and bodies are described, and how a
// $ref takes siblings; everything else is shared.
enum class Dialect { kV2, kV3 };

std::string hex_sha512(std::string_view body) {
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 0x0f];
  }
  return out;
}

OpenApiDocument make_document(const json::value& document) {
  std::string body = json::serialize(document);
  std::string hash = hex_sha512(body);
  return {std::move(body), std::move(hash)};
}

// "" → "Core", "coordination.k8s.io" → "Coordination", "rbac.authorization.k8s.io" → "RbacAuthorization":
// how kube names groups in operation IDs.
std::string group_camel(std::string_view group) {
  if (group.empty()) return "Core";
  if (group.ends_with(".k8s.io")) group.remove_suffix(7);
  std::string out;
  bool upper = true;
  for (char c : group) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string capitalized(std::string_view text) {
  std::string out(text);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

json::object gvk_object(const registry::ResourceDefinition& resource, const std::string& kind) {
  return {{"group", resource.group}, {"kind", kind}, {"version", resource.version}};
}

// Turns messages into schema definitions, following every reference once.
class SchemaWriter {
 public:
  SchemaWriter(const Catalog& catalog, Dialect dialect) : catalog_(catalog), dialect_(dialect) {}

  // A reference to `message`'s definition, adding it (and what it references) when new.
  std::string ref(const pb::Descriptor* message) {
    std::string name = Catalog::openapi_name(message);
    if (!definitions_.contains(name)) {
      definitions_[name] = json::object{};  // placed first: recursive types end here
      definitions_[name] = message_schema(message);
    }
    return (dialect_ == Dialect::kV2 ? "#/definitions/" : "#/components/schemas/") + name;
  }

  // Marks `message`'s definition as the schema of a kind.
  void add_group_version_kind(const pb::Descriptor* message, json::object gvk) {
    ref(message);
    auto& definition = definitions_[Catalog::openapi_name(message)].as_object();
    auto& list = definition["x-kubernetes-group-version-kind"];
    if (!list.is_array()) list = json::array{};
    for (const auto& existing : list.as_array())
      if (existing == json::value(gvk)) return;
    list.as_array().push_back(std::move(gvk));
  }

  // A definition written as JSON rather than from a message (a custom resource's schema); returns its reference.
  std::string add_definition(const std::string& name, json::object schema) {
    definitions_[name] = std::move(schema);
    return (dialect_ == Dialect::kV2 ? "#/definitions/" : "#/components/schemas/") + name;
  }

  json::object take_definitions() {
    json::object out;
    for (auto& [name, schema] : definitions_) out[name] = std::move(schema);
    return out;
  }

 private:
  json::object message_schema(const pb::Descriptor* message) {
    const Markers& markers = catalog_.markers(message);
    json::object schema;
    if (!markers.description.empty()) schema["description"] = markers.description;
    switch (Catalog::special(message)) {
      case Special::kTime:
      case Special::kMicroTime:
        schema["type"] = "string";
        schema["format"] = "date-time";
        return schema;
      case Special::kDuration:
        schema["type"] = "string";
        return schema;
      case Special::kQuantity:
        if (dialect_ == Dialect::kV3) {
          schema["oneOf"] = json::array{json::object{{"type", "string"}}, json::object{{"type", "number"}}};
        } else {
          schema["type"] = "string";
        }
        return schema;
      case Special::kIntOrString:
        schema["type"] = "string";
        schema["format"] = "int-or-string";
        return schema;
      case Special::kRawExtension:
      case Special::kFieldsV1:
        schema["type"] = "object";
        return schema;
      case Special::kStringList:
        schema["type"] = "array";
        schema["items"] = json::object{{"type", "string"}, {"default", ""}};
        return schema;
      case Special::kNone: break;
    }
    schema["type"] = "object";
    std::map<std::string, json::value> properties;
    json::array required;
    if (Catalog::has_type_meta(message)) {
      properties["apiVersion"] = json::object{
          {"description", "The versioned schema of this representation of an object."}, {"type", "string"}};
      properties["kind"] =
          json::object{{"description", "The REST resource this object represents."}, {"type", "string"}};
    }
    for (const pb::FieldDescriptor* field : catalog_.json_fields(message)) {
      properties[field->name()] = field_schema(field);
      if (catalog_.markers(field).required) required.push_back(json::string(field->name()));
    }
    json::object props;
    for (auto& [name, value] : properties) props[name] = std::move(value);
    schema["properties"] = std::move(props);
    if (!required.empty()) schema["required"] = std::move(required);
    if (markers.struct_type == "atomic") schema["x-kubernetes-map-type"] = "atomic";
    return schema;
  }

  json::object field_schema(const pb::FieldDescriptor* field) {
    const Markers& markers = catalog_.markers(field);
    json::object schema;
    if (field->is_map()) {
      schema["type"] = "object";
      schema["additionalProperties"] = element_schema(field->message_type()->map_value());
      if (!markers.map_type.empty()) schema["x-kubernetes-map-type"] = markers.map_type;
    } else if (field->is_repeated()) {
      schema["type"] = "array";
      schema["items"] = element_schema(field);
      if (!markers.list_type.empty()) schema["x-kubernetes-list-type"] = markers.list_type;
      if (!markers.list_map_keys.empty()) {
        json::array keys;
        for (const auto& key : markers.list_map_keys) keys.push_back(json::string(key));
        schema["x-kubernetes-list-map-keys"] = std::move(keys);
      }
    } else if (field->message_type() && dialect_ == Dialect::kV3 &&
               (!markers.description.empty() || markers.default_json)) {
      // OpenAPI 3.0 ignores siblings of $ref: kube wraps the reference in allOf.
      schema["allOf"] = json::array{element_schema(field)};
    } else {
      schema = element_schema(field);
    }
    if (!markers.description.empty()) schema["description"] = markers.description;
    if (markers.default_json) {
      json::error_code ec;
      json::value value = json::parse(*markers.default_json, ec);
      if (!ec) schema["default"] = std::move(value);
    }
    if (!markers.patch_strategy.empty()) schema["x-kubernetes-patch-strategy"] = markers.patch_strategy;
    if (!markers.patch_merge_key.empty()) schema["x-kubernetes-patch-merge-key"] = markers.patch_merge_key;
    return schema;
  }

  // The schema of one value of `field` (an element of a list, a value of a map, or the field itself).
  json::object element_schema(const pb::FieldDescriptor* field) {
    switch (field->type()) {
      case pb::FieldDescriptor::TYPE_MESSAGE:
      case pb::FieldDescriptor::TYPE_GROUP: return {{"$ref", ref(field->message_type())}};
      case pb::FieldDescriptor::TYPE_STRING: return {{"type", "string"}};
      case pb::FieldDescriptor::TYPE_BYTES: return {{"type", "string"}, {"format", "byte"}};
      case pb::FieldDescriptor::TYPE_BOOL: return {{"type", "boolean"}};
      case pb::FieldDescriptor::TYPE_DOUBLE: return {{"type", "number"}, {"format", "double"}};
      case pb::FieldDescriptor::TYPE_FLOAT: return {{"type", "number"}, {"format", "float"}};
      case pb::FieldDescriptor::TYPE_INT64:
      case pb::FieldDescriptor::TYPE_SINT64:
      case pb::FieldDescriptor::TYPE_UINT64:
      case pb::FieldDescriptor::TYPE_FIXED64:
      case pb::FieldDescriptor::TYPE_SFIXED64: return {{"type", "integer"}, {"format", "int64"}};
      default: return {{"type", "integer"}, {"format", "int32"}};
    }
  }

  const Catalog& catalog_;
  Dialect dialect_;
  std::map<std::string, json::value> definitions_;
};

// The operations of one resource, in either dialect.
class PathWriter {
 public:
  PathWriter(const Catalog& catalog, SchemaWriter& schemas, Dialect dialect)
      : catalog_(catalog), schemas_(schemas), dialect_(dialect) {}

  // `object_ref` and `list_ref`: the references of the kind's and its list's schemas.
  void add(const registry::ResourceDefinition& resource, const std::string& object_ref, const std::string& list_ref,
           json::object& paths) {
    const std::string status_ref = schemas_.ref(meta("Status"));
    const std::string delete_options_ref = schemas_.ref(meta("DeleteOptions"));
    const std::string patch_ref = schemas_.ref(meta("Patch"));
    const json::object gvk = gvk_object(resource, resource.kind);
    const std::string root = resource.group.empty() ? "/api/" + resource.version
                                                    : "/apis/" + resource.group + "/" + resource.version;
    const std::string scope = resource.namespaced ? "Namespaced" : "";
    const std::string op_suffix = group_camel(resource.group) + capitalized(resource.version) + scope + resource.kind;
    const std::string tag = (resource.group.empty() ? "core" : group_camel(resource.group)) + "_" + resource.version;
    const std::string collection =
        root + (resource.namespaced ? "/namespaces/{namespace}/" : "/") + resource.resource;

    auto operation = [&](std::string verb, std::string action, std::vector<json::object> query,
                         std::optional<std::pair<std::string, std::vector<std::string>>> body,
                         std::vector<std::pair<std::string, std::string>> responses) {
      json::object op{{"operationId", verb + op_suffix},
                      {"tags", json::array{json::string(tag)}},
                      {"x-kubernetes-action", action},
                      {"x-kubernetes-group-version-kind", gvk}};
      json::array parameters;
      for (auto& parameter : query) parameters.push_back(std::move(parameter));
      if (body) {
        if (dialect_ == Dialect::kV3) {
          json::object content;
          for (const auto& type : body->second) content[type] = json::object{{"schema", ref_schema(body->first)}};
          op["requestBody"] = json::object{{"content", std::move(content)}, {"required", true}};
        } else {
          parameters.push_back(json::object{{"name", "body"}, {"in", "body"}, {"required", true},
                                            {"schema", ref_schema(body->first)}});
          json::array consumes;
          for (const auto& type : body->second) consumes.push_back(json::string(type));
          op["consumes"] = std::move(consumes);
        }
      }
      if (!parameters.empty()) op["parameters"] = std::move(parameters);
      json::object replies;
      for (const auto& [code, schema] : responses) {
        json::object reply{{"description", code == "201" ? "Created" : code == "202" ? "Accepted" : "OK"}};
        if (dialect_ == Dialect::kV3) {
          json::object content;
          for (const char* type : {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"})
            content[type] = json::object{{"schema", ref_schema(schema)}};
          reply["content"] = std::move(content);
        } else {
          reply["schema"] = ref_schema(schema);
        }
        replies[code] = std::move(reply);
      }
      replies["401"] = json::object{{"description", "Unauthorized"}};
      op["responses"] = std::move(replies);
      if (dialect_ == Dialect::kV2)
        op["produces"] = json::array{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
      return op;
    };

    const std::vector<std::string> json_body{"application/json", "application/yaml",
                                             "application/vnd.kubernetes.protobuf"};
    // Custom resources take no strategic merge patch (crd_handler.go's patch types, its OpenAPI builder's consumes).
    std::vector<std::string> patch_body{"application/apply-patch+yaml", "application/json-patch+json",
                                        "application/merge-patch+json"};
    if (!resource.unstructured) patch_body.push_back("application/strategic-merge-patch+json");
    auto list_query = [&] {
      return std::vector<json::object>{
          query("allowWatchBookmarks", "boolean"), query("continue", "string"), query("fieldSelector", "string"),
          query("labelSelector", "string"), query("limit", "integer"), query("resourceVersion", "string"),
          query("resourceVersionMatch", "string"), query("sendInitialEvents", "boolean"),
          query("timeoutSeconds", "integer"), query("watch", "boolean")};
    };
    auto write_query = [&](bool patch) {
      std::vector<json::object> out{query("dryRun", "string"), query("fieldManager", "string"),
                                    query("fieldValidation", "string")};
      if (patch) out.push_back(query("force", "boolean"));
      return out;
    };
    auto delete_query = [&] {
      return std::vector<json::object>{query("dryRun", "string"), query("gracePeriodSeconds", "integer"),
                                       query("orphanDependents", "boolean"), query("propagationPolicy", "string")};
    };

    const auto post = [&] {
      return operation("create", "post", write_query(false), std::pair{object_ref, json_body},
                       {{"200", object_ref}, {"201", object_ref}, {"202", object_ref}});
    };
    if (resource.verbs == std::vector<std::string>{"create"}) {  // a review: POST on its collection alone
      paths[collection] = json::object{{"post", post()}, {"parameters", path_parameters(resource.namespaced, false)}};
      return;
    }
    json::object collection_path{
        {"get", operation("list", "list", list_query(), std::nullopt, {{"200", list_ref}})},
        {"post", post()},
        {"delete", operation("deletecollection", "deletecollection", list_query(),
                             std::pair{delete_options_ref, std::vector<std::string>{"application/json"}},
                             {{"200", status_ref}})},
        {"parameters", path_parameters(resource.namespaced, false)}};
    paths[collection] = std::move(collection_path);

    auto item_path = [&](const std::string& subresource) {
      const std::string suffix = subresource.empty() ? "" : capitalized(subresource);
      auto named = [&](std::string verb) { return verb + suffix; };
      json::object item{
          {"get", operation(named("read"), "get", {}, std::nullopt, {{"200", object_ref}})},
          {"put", operation(named("replace"), "put", write_query(false), std::pair{object_ref, json_body},
                            {{"200", object_ref}, {"201", object_ref}})},
          {"patch", operation(named("patch"), "patch", write_query(true), std::pair{patch_ref, patch_body},
                              {{"200", object_ref}, {"201", object_ref}})},
          {"parameters", path_parameters(resource.namespaced, true)}};
      if (subresource.empty())
        item["delete"] = operation("delete", "delete", delete_query(),
                                   std::pair{delete_options_ref, std::vector<std::string>{"application/json"}},
                                   {{"200", status_ref}, {"202", status_ref}});
      return item;
    };
    paths[collection + "/{name}"] = item_path("");
    for (const auto& subresource : resource.subresources)
      if (subresource == "status") paths[collection + "/{name}/status"] = item_path("status");
    if (resource.namespaced) {
      json::object all{{"get", operation("list", "list", list_query(), std::nullopt, {{"200", list_ref}})}};
      all["get"].as_object()["operationId"] = "list" + group_camel(resource.group) + capitalized(resource.version) +
                                              resource.kind + "ForAllNamespaces";
      paths[root + "/" + resource.resource] = std::move(all);
    }
  }

 private:
  const pb::Descriptor* meta(std::string_view name) const {
    return catalog_.message("k8s.io.apimachinery.pkg.apis.meta.v1." + std::string(name));
  }

  json::object ref_schema(const std::string& ref) const { return {{"$ref", ref}}; }

  json::object query(std::string name, std::string type) const {
    json::object parameter{{"name", std::move(name)}, {"in", "query"}};
    if (dialect_ == Dialect::kV3) {
      parameter["schema"] = json::object{{"type", std::move(type)}, {"uniqueItems", true}};
    } else {
      parameter["type"] = std::move(type);
      parameter["uniqueItems"] = true;
    }
    return parameter;
  }

  json::array path_parameters(bool namespaced, bool named) const {
    json::array out;
    auto path_parameter = [&](const char* name) {
      json::object parameter{{"name", name}, {"in", "path"}, {"required", true}};
      if (dialect_ == Dialect::kV3) parameter["schema"] = json::object{{"type", "string"}, {"uniqueItems", true}};
      else {
        parameter["type"] = "string";
        parameter["uniqueItems"] = true;
      }
      out.push_back(std::move(parameter));
    };
    if (named) path_parameter("name");
    if (namespaced) path_parameter("namespace");
    out.push_back(query("pretty", "string"));
    return out;
  }

  const Catalog& catalog_;
  SchemaWriter& schemas_;
  Dialect dialect_;
};

json::object write_paths(const Catalog& catalog, SchemaWriter& schemas, Dialect dialect,
                         const std::vector<const registry::ResourceDefinition*>& resources) {
  PathWriter writer(catalog, schemas, dialect);
  json::object paths;
  for (const auto* resource : resources) {
    const pb::Descriptor* kind = catalog.kind(resource->group, resource->version, resource->kind);
    if (!kind) continue;  // a resource without a type schema is served but not described
    const pb::Descriptor* list = catalog.kind(resource->group, resource->version, resource->list_kind());
    const std::string object_ref = schemas.ref(kind);
    writer.add(*resource, object_ref, list ? schemas.ref(list) : object_ref, paths);
    schemas.add_group_version_kind(kind, gvk_object(*resource, resource->kind));
    if (list) schemas.add_group_version_kind(list, gvk_object(*resource, resource->list_kind()));
  }
  return paths;
}

json::object info(const std::string& version) { return {{"title", "Kubernetes"}, {"version", version}}; }

json::object security_schemes() {
  return {{"BearerToken", json::object{{"type", "apiKey"},
                                       {"description", "Bearer Token authentication"},
                                       {"name", "authorization"},
                                       {"in", "header"}}}};
}

json::object v3_document_of(std::string server_version, json::object paths, json::object schemas) {
  json::object components{{"schemas", std::move(schemas)}, {"securitySchemes", security_schemes()}};
  return {{"openapi", "3.0.0"},
          {"info", info(server_version)},
          {"paths", std::move(paths)},
          {"components", std::move(components)}};
}

constexpr std::string_view kApiVersionDescription =
    "APIVersion defines the versioned schema of this representation of an object. Servers should convert "
    "recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
constexpr std::string_view kKindDescription =
    "Kind is a string value representing the REST resource this object represents. Servers may infer this from "
    "the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

// kube's CRD OpenAPI builder: the object schema gains apiVersion, kind and metadata (a reference to `meta_ref`).
json::object with_type_meta(json::object schema, const std::string& meta_ref, std::string_view meta_description) {
  json::value& properties = schema["properties"];
  if (!properties.is_object()) properties.emplace_object();
  auto& members = properties.as_object();
  members["apiVersion"] = json::object{{"description", kApiVersionDescription}, {"type", "string"}};
  members["kind"] = json::object{{"description", kKindDescription}, {"type", "string"}};
  members["metadata"] = json::object{{"allOf", json::array{json::object{{"$ref", meta_ref}}}},
                                     {"description", meta_description}};
  if (!schema.contains("type")) schema["type"] = "object";
  return schema;
}

}  // namespace

std::string group_version_path(std::string_view group, std::string_view version) {
  return group.empty() ? "api/" + std::string(version) : "apis/" + std::string(group) + "/" + std::string(version);
}

OpenApiDocuments::OpenApiDocuments(const Catalog& catalog, std::vector<registry::ResourceDefinition> resources,
                                   std::string server_version)
    : catalog_(catalog), server_version_(std::move(server_version)), resources_(std::move(resources)) {}

const OpenApiDocuments::V3Documents& OpenApiDocuments::v3_documents() const {
  std::call_once(v3_made_, [this] {
    std::map<std::string, std::vector<const registry::ResourceDefinition*>> by_group_version;
    for (const auto& resource : resources_)
      by_group_version[group_version_path(resource.group, resource.version)].push_back(&resource);
    json::object root_paths;
    for (const auto& [path, members] : by_group_version) {
      SchemaWriter schemas(catalog_, Dialect::kV3);
      json::object paths = write_paths(catalog_, schemas, Dialect::kV3, members);
      json::object document = v3_document_of(server_version_, std::move(paths), schemas.take_definitions());
      OpenApiDocument made = make_document(document);
      root_paths[path] = json::object{{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + made.hash}};
      v3_.by_path.emplace(path, std::move(made));
    }
    v3_.root_paths = root_paths;
    v3_.root = make_document(json::object{{"paths", std::move(root_paths)}});
  });
  return v3_;
}

const OpenApiDocument& OpenApiDocuments::v2() const {
  std::call_once(v2_made_, [this] {
    SchemaWriter schemas(catalog_, Dialect::kV2);
    std::vector<const registry::ResourceDefinition*> all;
    for (const auto& resource : resources_) all.push_back(&resource);
    json::object paths = write_paths(catalog_, schemas, Dialect::kV2, all);
    v2_ = make_document(json::object{
        {"swagger", "2.0"},
        {"info", info(server_version_)},
        {"paths", std::move(paths)},
        {"definitions", schemas.take_definitions()},
        {"securityDefinitions", security_schemes()},
        {"security", json::array{json::object{{"BearerToken", json::array{}}}}}});
  });
  return v2_;
}

namespace {

// Swagger 2.0 has no nullable, oneOf, anyOf or not: kube leaves them out of a CRD's v2 schema. References move
// from components/schemas to definitions.
void drop_v3_only_keywords(json::value& schema) {
  if (schema.is_array()) {
    for (auto& item : schema.as_array()) drop_v3_only_keywords(item);
    return;
  }
  if (!schema.is_object()) return;
  auto& object = schema.as_object();
  for (const char* keyword : {"nullable", "oneOf", "anyOf", "not"}) object.erase(keyword);
  constexpr std::string_view kV3Refs = "#/components/schemas/";
  if (json::value* ref = object.if_contains("$ref"); ref && ref->is_string() && ref->as_string().starts_with(kV3Refs))
    *ref = "#/definitions/" + std::string(ref->as_string().subview(kV3Refs.size()));
  for (const char* nested : {"properties", "patternProperties"})
    if (json::value* members = object.if_contains(nested); members && members->is_object())
      for (auto& member : members->as_object()) drop_v3_only_keywords(member.value());
  for (const char* nested : {"items", "additionalProperties", "allOf"})
    if (json::value* child = object.if_contains(nested)) drop_v3_only_keywords(*child);
}

// The paths and schema definitions of resources described by JSON schemas, in either dialect.
json::object write_schema_resources(const Catalog& catalog, SchemaWriter& schemas, Dialect dialect,
                                    const std::vector<SchemaResource>& resources) {
  PathWriter writer(catalog, schemas, dialect);
  const std::string object_meta_ref =
      schemas.ref(catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  const std::string list_meta_ref = schemas.ref(catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta"));
  json::object paths;
  for (const auto& resource : resources) {
    const auto& definition = resource.definition;
    json::object object = with_type_meta(resource.schema, object_meta_ref,
                                         "Standard object's metadata. More info: https://git.k8s.io/community/"
                                         "contributors/devel/sig-architecture/api-conventions.md#metadata");
    object["x-kubernetes-group-version-kind"] = json::array{gvk_object(definition, definition.kind)};
    if (dialect == Dialect::kV2) {
      json::value converted = std::move(object);
      drop_v3_only_keywords(converted);
      object = std::move(converted.as_object());
    }
    const std::string object_ref = schemas.add_definition(resource.definition_name, std::move(object));
    for (const auto& [name, schema] : resource.definitions) {
      json::value converted = schema;
      if (dialect == Dialect::kV2) drop_v3_only_keywords(converted);
      schemas.add_definition(name, std::move(converted.as_object()));
    }
    json::object list{{"description", definition.list_kind() + " is a list of " + definition.kind},
                      {"required", json::array{"items"}},
                      {"properties", json::object{{"items", json::object{{"description", "List of " +
                                                                                             definition.resource + "."},
                                                                         {"items", json::object{{"$ref", object_ref}}},
                                                                         {"type", "array"}}}}}};
    list = with_type_meta(std::move(list), list_meta_ref,
                          "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/"
                          "sig-architecture/api-conventions.md#types-kinds");
    list["x-kubernetes-group-version-kind"] = json::array{gvk_object(definition, definition.list_kind())};
    const std::string list_ref = schemas.add_definition(resource.definition_name + "List", std::move(list));
    writer.add(definition, object_ref, list_ref, paths);
  }
  return paths;
}

}  // namespace

OpenApiDocument v3_document(const Catalog& catalog, const std::vector<SchemaResource>& resources,
                            std::string server_version) {
  SchemaWriter schemas(catalog, Dialect::kV3);
  json::object paths = write_schema_resources(catalog, schemas, Dialect::kV3, resources);
  return make_document(v3_document_of(std::move(server_version), std::move(paths), schemas.take_definitions()));
}

OpenApiDocument v2_document(const OpenApiDocuments& base, const std::vector<SchemaResource>& resources,
                            const std::vector<json::object>& documents) {
  SchemaWriter schemas(base.catalog(), Dialect::kV2);
  json::object paths = write_schema_resources(base.catalog(), schemas, Dialect::kV2, resources);
  json::value document = json::parse(base.v2().body);
  auto& merged = document.as_object();
  for (auto& [path, item] : paths) merged["paths"].as_object()[path] = std::move(item);
  for (auto& [name, schema] : schemas.take_definitions()) merged["definitions"].as_object()[name] = std::move(schema);
  for (const auto& other : documents)
    for (std::string_view section : {"paths", "definitions"}) {
      const json::value* entries = other.if_contains(section);
      if (!entries || !entries->is_object()) continue;
      json::object& into = merged[section].as_object();
      for (const auto& [name, entry] : entries->as_object())
        if (!into.contains(name)) into[name] = entry;
    }
  return make_document(document);
}

OpenApiDocument openapi_document(const boost::json::value& document) { return make_document(document); }

const OpenApiDocument* OpenApiDocuments::v3(std::string_view group_version_path) const {
  const auto& documents = v3_documents().by_path;
  auto found = documents.find(group_version_path);
  return found == documents.end() ? nullptr : &found->second;
}

}  // namespace kapi::schema

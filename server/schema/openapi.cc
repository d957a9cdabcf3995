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
    if (has_type_meta(message)) {
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

  // Kinds, lists and option kinds carry apiVersion and kind (Go's inline TypeMeta, which protobuf leaves out).
  static bool has_type_meta(const pb::Descriptor* message) {
    const pb::FieldDescriptor* metadata = message->FindFieldByName("metadata");
    if (metadata && metadata->message_type()) {
      std::string_view type = metadata->message_type()->full_name();
      if (type.ends_with("meta.v1.ObjectMeta") || type.ends_with("meta.v1.ListMeta")) return true;
    }
    return message->name() == "DeleteOptions";
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

  void add(const registry::ResourceDefinition& resource, const pb::Descriptor* kind, const pb::Descriptor* list,
           json::object& paths) {
    const std::string object_ref = schemas_.ref(kind);
    const std::string list_ref = list ? schemas_.ref(list) : object_ref;
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
    const std::vector<std::string> patch_body{"application/apply-patch+yaml", "application/json-patch+json",
                                              "application/merge-patch+json",
                                              "application/strategic-merge-patch+json"};
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
    writer.add(*resource, kind, list, paths);
    schemas.add_group_version_kind(kind, gvk_object(*resource, resource->kind));
    if (list) schemas.add_group_version_kind(list, gvk_object(*resource, resource->list_kind()));
  }
  return paths;
}

json::object info(const std::string& version) { return {{"title", "Kubernetes"}, {"version", version}}; }

}  // namespace

std::string group_version_path(std::string_view group, std::string_view version) {
  return group.empty() ? "api/" + std::string(version) : "apis/" + std::string(group) + "/" + std::string(version);
}

OpenApiDocuments::OpenApiDocuments(const Catalog& catalog, const std::vector<registry::ResourceDefinition>& resources,
                                   std::string server_version) {
  std::map<std::string, std::vector<const registry::ResourceDefinition*>> by_group_version;
  for (const auto& resource : resources)
    by_group_version[group_version_path(resource.group, resource.version)].push_back(&resource);

  json::object root_paths;
  for (const auto& [path, members] : by_group_version) {
    SchemaWriter schemas(catalog, Dialect::kV3);
    json::object paths = write_paths(catalog, schemas, Dialect::kV3, members);
    json::object components{
        {"schemas", schemas.take_definitions()},
        {"securitySchemes",
         json::object{{"BearerToken", json::object{{"type", "apiKey"},
                                                   {"description", "Bearer Token authentication"},
                                                   {"name", "authorization"},
                                                   {"in", "header"}}}}}};
    json::object document{{"openapi", "3.0.0"},
                          {"info", info(server_version)},
                          {"paths", std::move(paths)},
                          {"components", std::move(components)}};
    OpenApiDocument made = make_document(document);
    root_paths[path] = json::object{{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + made.hash}};
    v3_.emplace(path, std::move(made));
  }
  v3_root_ = make_document(json::object{{"paths", std::move(root_paths)}});

  SchemaWriter schemas(catalog, Dialect::kV2);
  std::vector<const registry::ResourceDefinition*> all;
  for (const auto& resource : resources) all.push_back(&resource);
  json::object paths = write_paths(catalog, schemas, Dialect::kV2, all);
  v2_ = make_document(json::object{
      {"swagger", "2.0"},
      {"info", info(server_version)},
      {"paths", std::move(paths)},
      {"definitions", schemas.take_definitions()},
      {"securityDefinitions",
       json::object{{"BearerToken", json::object{{"type", "apiKey"},
                                                 {"description", "Bearer Token authentication"},
                                                 {"name", "authorization"},
                                                 {"in", "header"}}}}},
      {"security", json::array{json::object{{"BearerToken", json::array{}}}}}});
}

const OpenApiDocument* OpenApiDocuments::v3(std::string_view group_version_path) const {
  auto found = v3_.find(group_version_path);
  return found == v3_.end() ? nullptr : &found->second;
}

}  // namespace kapi::schema

#include "tests/support/sample_apiserver/flunders.h"

#include "server/registry/table.h"
#include "server/schema/openapi.h"

#include <algorithm>

namespace kapi::sample_apiserver {
namespace {

namespace json = boost::json;

json::object make_flunder(std::string_view name, std::string_view uid, std::string_view resource_version,
                          json::object spec) {
  return {{"kind", "Flunder"},
          {"apiVersion", kGroupVersion},
          {"metadata", json::object{{"name", name},
                                    {"namespace", "default"},
                                    {"uid", uid},
                                    {"resourceVersion", resource_version},
                                    // Fixed, so every start (and a restart) serves byte-identical objects.
                                    {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec", std::move(spec)},
          {"status", json::object()}};
}

const json::array& verbs() {
  static const json::array value{"get", "list", "watch"};
  return value;
}

// One item of the comma-separated Accept header at a time, without spaces, until `visit` returns a result.
template <typename Visit>
std::string first_accepted(std::string_view accept, Visit visit) {
  std::size_t start = 0;
  while (start <= accept.size()) {
    const std::size_t comma = accept.find(',', start);
    const std::string_view item = accept.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                        : comma - start);
    std::string compact;
    for (char c : item)
      if (c != ' ') compact += c;
    if (std::optional<std::string> result = visit(compact)) return *result;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return "";
}

bool has_parameter(const std::string& media_type, std::string_view parameter) {
  // Parameters follow ';'; comparing whole "name=value" pieces keeps v=v2 from matching v=v2beta1.
  std::size_t start = media_type.find(';');
  while (start != std::string::npos) {
    const std::size_t end = media_type.find(';', start + 1);
    if (std::string_view(media_type).substr(start + 1, end == std::string::npos ? std::string::npos
                                                                                 : end - start - 1) == parameter)
      return true;
    start = end;
  }
  return false;
}

json::object flunder_schema() {
  json::object string_type{{"type", "string"}};
  return {{"description", "Flunder is an example type with a spec."},
          {"type", "object"},
          {"properties", json::object{{"apiVersion", string_type},
                                      {"kind", string_type},
                                      {"metadata", json::object{{"type", "object"}}},
                                      {"spec", json::object{{"type", "object"},
                                                            {"properties", json::object{{"reference", string_type},
                                                                                        {"referenceType", string_type}}}}},
                                      {"status", json::object{{"type", "object"}}}}},
          {"x-kubernetes-group-version-kind",
           json::array{json::object{{"group", kGroup}, {"version", kVersion}, {"kind", "Flunder"}}}}};
}

}  // namespace

const std::vector<json::object>& flunders() {
  static const std::vector<json::object> all{
      make_flunder("alpha", "6b9f7c1e-0a51-4c61-9a3e-7d0f0b7e0a01", "11",
                   json::object{{"reference", "beta"}, {"referenceType", "Flunder"}}),
      make_flunder("beta", "6b9f7c1e-0a51-4c61-9a3e-7d0f0b7e0a02", "12", json::object()),
  };
  return all;
}

std::string list_resource_version() { return "12"; }

std::vector<json::object> select(std::string_view namespace_, std::string_view name) {
  std::vector<json::object> out;
  for (const auto& flunder : flunders()) {
    const auto& metadata = flunder.at("metadata").as_object();
    if (!namespace_.empty() && metadata.at("namespace").as_string() != namespace_) continue;
    if (!name.empty() && metadata.at("name").as_string() != name) continue;
    out.push_back(flunder);
  }
  return out;
}

std::string group_list_document() {
  json::object version{{"groupVersion", kGroupVersion}, {"version", kVersion}};
  json::object group{{"name", kGroup}, {"versions", json::array{version}}, {"preferredVersion", version}};
  return json::serialize(json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", json::array{group}}});
}

std::string group_document() {
  json::object version{{"groupVersion", kGroupVersion}, {"version", kVersion}};
  return json::serialize(json::object{{"kind", "APIGroup"},
                                      {"apiVersion", "v1"},
                                      {"name", kGroup},
                                      {"versions", json::array{version}},
                                      {"preferredVersion", version}});
}

std::string resource_list_document() {
  json::object flunders_resource{{"name", kResource},    {"singularName", "flunder"}, {"namespaced", true},
                                 {"kind", "Flunder"},    {"verbs", verbs()},          {"shortNames", json::array{"fl"}}};
  return json::serialize(json::object{{"kind", "APIResourceList"},
                                      {"apiVersion", "v1"},
                                      {"groupVersion", kGroupVersion},
                                      {"resources", json::array{flunders_resource}}});
}

std::string aggregated_discovery_document(std::string_view discovery_version) {
  // responseKind with empty group and version, as kube-apiserver's installer fills it for a resource served in
  // its own group version.
  json::object resource{{"resource", kResource},
                        {"responseKind", json::object{{"group", ""}, {"version", ""}, {"kind", "Flunder"}}},
                        {"scope", "Namespaced"},
                        {"singularResource", "flunder"},
                        {"verbs", verbs()},
                        {"shortNames", json::array{"fl"}}};
  json::object version{{"version", kVersion}, {"resources", json::array{resource}}, {"freshness", "Current"}};
  json::object item{{"metadata", json::object{{"name", kGroup}, {"creationTimestamp", nullptr}}},
                    {"versions", json::array{version}}};
  return json::serialize(json::object{{"kind", "APIGroupDiscoveryList"},
                                      {"apiVersion", "apidiscovery.k8s.io/" + std::string(discovery_version)},
                                      {"metadata", json::object()},
                                      {"items", json::array{item}}});
}

std::string aggregated_discovery_version(std::string_view accept) {
  return first_accepted(accept, [](const std::string& type) -> std::optional<std::string> {
    if (has_parameter(type, "as=APIGroupDiscoveryList") && has_parameter(type, "g=apidiscovery.k8s.io")) {
      if (has_parameter(type, "v=v2")) return "v2";
      if (has_parameter(type, "v=v2beta1")) return "v2beta1";
    }
    // A plain JSON (or any) item before any aggregated one: the client prefers the legacy document.
    if (type.starts_with("application/json") || type.starts_with("*/*")) return "";
    return std::nullopt;
  });
}

std::string aggregated_discovery_content_type(std::string_view discovery_version) {
  return "application/json;g=apidiscovery.k8s.io;v=" + std::string(discovery_version) + ";as=APIGroupDiscoveryList";
}

std::string table_version(std::string_view accept) {
  return first_accepted(accept, [](const std::string& type) -> std::optional<std::string> {
    if (has_parameter(type, "as=Table") && has_parameter(type, "g=meta.k8s.io")) {
      if (has_parameter(type, "v=v1")) return "v1";
      if (has_parameter(type, "v=v1beta1")) return "v1beta1";
    }
    if (type == "application/json" || type.starts_with("*/*")) return "";
    return std::nullopt;
  });
}

json::object table(const std::vector<json::object>& objects, std::string_view table_version, bool headers) {
  json::array columns;
  if (headers) {
    for (const registry::TableColumn& column : {registry::name_column(), registry::age_column()})
      columns.push_back(json::object{{"name", column.name},
                                     {"type", column.type},
                                     {"format", column.format},
                                     {"description", column.description},
                                     {"priority", column.priority}});
  }
  json::array rows;
  for (const auto& object : objects) {
    const auto& metadata = object.at("metadata").as_object();
    rows.push_back(json::object{
        {"cells", json::array{metadata.at("name"), registry::age_of(object)}},
        {"object", json::object{{"kind", "PartialObjectMetadata"},
                                {"apiVersion", "meta.k8s.io/" + std::string(table_version)},
                                {"metadata", metadata}}}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/" + std::string(table_version)},
          {"metadata", json::object{{"resourceVersion", list_resource_version()}}},
          {"columnDefinitions", std::move(columns)},
          {"rows", std::move(rows)}};
}

json::object flunder_list(const std::vector<json::object>& items) {
  json::array out;
  for (const auto& item : items) {
    // List items go without kind and apiVersion, as kube writes them; copied field by field because
    // json::object::erase moves the last field into the hole, and kube's field order is what clients print.
    json::object kept;
    for (const auto& field : item)
      if (field.key() != "kind" && field.key() != "apiVersion") kept.emplace(field.key(), field.value());
    out.push_back(std::move(kept));
  }
  return {{"kind", "FlunderList"},
          {"apiVersion", kGroupVersion},
          {"metadata", json::object{{"resourceVersion", list_resource_version()}}},
          {"items", std::move(out)}};
}

std::string openapi_v2_document() {
  return json::serialize(json::object{
      {"swagger", "2.0"},
      {"info", json::object{{"title", "wardle"}, {"version", "v0.1.0"}}},
      {"paths", json::object()},
      {"definitions", json::object{{"com.example.wardle.v1alpha1.Flunder", flunder_schema()}}}});
}

namespace {

// The read operations' paths, as kube's OpenAPI builder writes them: `kubectl explain` finds a resource's kind
// through them.
json::object openapi_v3_paths() {
  const json::object gvk{{"group", "wardle.example.com"}, {"version", "v1alpha1"}, {"kind", "Flunder"}};
  auto operation = [&](std::string_view action, std::string_view schema) {
    return json::object{
        {"x-kubernetes-action", action},
        {"x-kubernetes-group-version-kind", gvk},
        {"responses",
         json::object{{"200", json::object{{"description", "OK"},
                                           {"content", json::object{{"application/json",
                                                                     json::object{{"schema", json::object{{"$ref", schema}}}}}}}}}}}};
  };
  const std::string prefix = "/apis/" + std::string(kGroupVersion) + "/namespaces/{namespace}/flunders";
  return {{prefix, json::object{{"get", operation("list", "#/components/schemas/com.example.wardle.v1alpha1.FlunderList")}}},
          {prefix + "/{name}",
           json::object{{"get", operation("get", "#/components/schemas/com.example.wardle.v1alpha1.Flunder")}}}};
}

}  // namespace

std::string openapi_v3_group_version_document() {
  json::object list_schema{{"type", "object"},
                           {"properties", json::object{{"items", json::object{{"type", "array"},
                                                                              {"items", json::object{{"$ref", "#/components/schemas/com.example.wardle.v1alpha1.Flunder"}}}}}}},
                           {"x-kubernetes-group-version-kind",
                            json::array{json::object{{"group", "wardle.example.com"}, {"version", "v1alpha1"}, {"kind", "FlunderList"}}}}};
  return json::serialize(json::object{
      {"openapi", "3.0.0"},
      {"info", json::object{{"title", "wardle"}, {"version", "v0.1.0"}}},
      {"paths", openapi_v3_paths()},
      {"components", json::object{{"schemas", json::object{{"com.example.wardle.v1alpha1.Flunder", flunder_schema()},
                                                            {"com.example.wardle.v1alpha1.FlunderList", list_schema}}}}}});
}

std::string openapi_v3_index() {
  // The hash is the document's, as kube's OpenAPI v3 service computes it, so a client cache keyed by it is right.
  const std::string url = "/openapi/v3/apis/" + std::string(kGroupVersion) +
                          "?hash=" + schema::openapi_document(json::parse(openapi_v3_group_version_document())).hash;
  return json::serialize(json::object{
      {"paths", json::object{{"apis/" + std::string(kGroupVersion), json::object{{"serverRelativeURL", url}}}}}});
}

}  // namespace kapi::sample_apiserver

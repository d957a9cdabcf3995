// /openapi/v2's protobuf form decoded back into gnostic's messages: what kubectl's client-side validation
// (definitions, their x-kubernetes-group-version-kind), apply (a PATCH operation's consumes and kind) and explain
// read from it.
#include "server/schema/openapi_v2_proto.h"

#include "protos/gnostic/openapiv2.pb.h"
#include "server/schema/openapi.h"

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <string>
#include <vector>

namespace kapi::schema::openapi_v2_proto_test {
namespace {

namespace json = boost::json;
namespace oa = openapi::v2;

template <typename Named>
const Named* named(const google::protobuf::RepeatedPtrField<Named>& entries, std::string_view name) {
  for (const auto& entry : entries)
    if (entry.name() == name) return &entry;
  return nullptr;
}

// The yaml of the vendor extension `name`, or "<absent>".
template <typename Message>
std::string extension(const Message& message, std::string_view name) {
  const oa::NamedAny* found = named(message.vendor_extension(), name);
  return found ? found->value().yaml() : "<absent>";
}

std::vector<std::string> types(const oa::Schema& schema) {
  return {schema.type().value().begin(), schema.type().value().end()};
}

class OpenApiV2ProtoTest : public ::testing::Test {
 protected:
  Catalog catalog = Catalog::builtin();
  OpenApiDocuments documents{
      catalog,
      {{.group = "", .version = "v1", .resource = "configmaps", .kind = "ConfigMap"},
       {.group = "", .version = "v1", .resource = "pods", .kind = "Pod", .subresources = {"status"}},
       {.group = "coordination.k8s.io", .version = "v1", .resource = "leases", .kind = "Lease"}},
      "v1.32.0"};

  static oa::Document decode(std::string_view json) {
    oa::Document document;
    EXPECT_TRUE(document.ParseFromString(openapi_v2_protobuf(json)));
    return document;
  }
  static const oa::Schema& definition(const oa::Document& document, std::string_view name) {
    const oa::NamedSchema* found = named(document.definitions().additional_properties(), name);
    EXPECT_NE(found, nullptr) << name;
    static const oa::Schema kNone;
    return found ? found->value() : kNone;
  }
  static const oa::Schema& property(const oa::Schema& schema, std::string_view name) {
    const oa::NamedSchema* found = named(schema.properties().additional_properties(), name);
    EXPECT_NE(found, nullptr) << name;
    static const oa::Schema kNone;
    return found ? found->value() : kNone;
  }
};

TEST_F(OpenApiV2ProtoTest, DefinitionsKeepTheirOrderTypesReferencesAndKinds) {
  const oa::Document document = decode(documents.v2().body);
  EXPECT_EQ(document.swagger(), "2.0");
  EXPECT_EQ(document.info().title(), "Kubernetes");
  EXPECT_EQ(document.info().version(), "v1.32.0");

  const json::object v2 = json::parse(documents.v2().body).as_object();
  std::vector<std::string> json_names, proto_names;
  for (const auto& member : v2.at("definitions").as_object()) json_names.emplace_back(member.key());
  for (const auto& entry : document.definitions().additional_properties()) proto_names.push_back(entry.name());
  EXPECT_EQ(proto_names, json_names);
  std::vector<std::string> json_paths, proto_paths;
  for (const auto& member : v2.at("paths").as_object()) json_paths.emplace_back(member.key());
  for (const auto& entry : document.paths().path()) proto_paths.push_back(entry.name());
  EXPECT_EQ(proto_paths, json_paths);

  const oa::Schema& configmap = definition(document, "io.k8s.api.core.v1.ConfigMap");
  EXPECT_FALSE(configmap.description().empty());
  EXPECT_EQ(types(configmap), std::vector<std::string>{"object"});
  // kubectl finds a kind's schema by this extension: yaml.v2 reads it back as a list of maps.
  EXPECT_EQ(extension(configmap, "x-kubernetes-group-version-kind"),
            "- group: \"\"\n  kind: ConfigMap\n  version: v1\n");
  const oa::Schema& data = property(configmap, "data");
  EXPECT_EQ(types(data), std::vector<std::string>{"object"});
  EXPECT_EQ(types(data.additional_properties().schema()), std::vector<std::string>{"string"});
  EXPECT_EQ(property(configmap, "metadata")._ref(), "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_FALSE(property(configmap, "metadata").description().empty());
  EXPECT_EQ(property(configmap, "immutable").type().value(0), "boolean");

  const oa::Schema& owners =
      property(definition(document, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), "ownerReferences");
  EXPECT_EQ(types(owners), std::vector<std::string>{"array"});
  ASSERT_EQ(owners.items().schema_size(), 1);
  EXPECT_EQ(owners.items().schema(0)._ref(), "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference");
  EXPECT_EQ(extension(owners, "x-kubernetes-patch-merge-key"), "uid\n");
  EXPECT_EQ(extension(owners, "x-kubernetes-patch-strategy"), "merge\n");
  EXPECT_EQ(extension(owners, "x-kubernetes-list-map-keys"), "- uid\n");

  const oa::Schema& owner = definition(document, "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference");
  EXPECT_EQ(std::vector<std::string>(owner.required().begin(), owner.required().end()),
            (std::vector<std::string>{"apiVersion", "kind", "name", "uid"}));
  EXPECT_EQ(extension(owner, "x-kubernetes-map-type"), "atomic\n");
  const oa::Schema& containers = property(definition(document, "io.k8s.api.core.v1.PodSpec"), "containers");
  EXPECT_EQ(extension(containers, "x-kubernetes-patch-merge-key"), "name\n");
  EXPECT_EQ(extension(containers, "x-kubernetes-list-type"), "map\n");
}

// kubectl's query-param verifier and apply's patch type read the PATCH operation (kubectl-wire.md 5.3, 5.4).
TEST_F(OpenApiV2ProtoTest, PatchOperationHasItsKindBodyAndQueryParameters) {
  const oa::Document document = decode(documents.v2().body);
  const oa::NamedPathItem* path = named(document.paths().path(), "/api/v1/namespaces/{namespace}/configmaps/{name}");
  ASSERT_NE(path, nullptr);
  const oa::Operation& patch = path->value().patch();
  EXPECT_EQ(patch.operation_id(), "patchCoreV1NamespacedConfigMap");
  EXPECT_EQ(extension(patch, "x-kubernetes-action"), "patch\n");
  EXPECT_EQ(extension(patch, "x-kubernetes-group-version-kind"), "group: \"\"\nkind: ConfigMap\nversion: v1\n");
  EXPECT_EQ(std::vector<std::string>(patch.consumes().begin(), patch.consumes().end()),
            (std::vector<std::string>{"application/apply-patch+yaml", "application/json-patch+json",
                                      "application/merge-patch+json", "application/strategic-merge-patch+json"}));
  EXPECT_EQ(patch.produces(0), "application/json");

  std::vector<std::string> query;
  const oa::BodyParameter* body = nullptr;
  for (const oa::ParametersItem& item : patch.parameters()) {
    ASSERT_TRUE(item.has_parameter());
    if (item.parameter().has_body_parameter()) {
      body = &item.parameter().body_parameter();
      continue;
    }
    const auto& parameter = item.parameter().non_body_parameter();
    ASSERT_TRUE(parameter.has_query_parameter_sub_schema());
    const oa::QueryParameterSubSchema& sub = parameter.query_parameter_sub_schema();
    EXPECT_EQ(sub.in(), "query");
    EXPECT_TRUE(sub.unique_items());
    query.push_back(sub.name() + ":" + sub.type());
  }
  EXPECT_EQ(query, (std::vector<std::string>{"dryRun:string", "fieldManager:string", "fieldValidation:string",
                                             "force:boolean"}));
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->name(), "body");
  EXPECT_EQ(body->in(), "body");
  EXPECT_TRUE(body->required());
  EXPECT_EQ(body->schema()._ref(), "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");

  const oa::NamedResponseValue* ok = named(patch.responses().response_code(), "200");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->value().response().description(), "OK");
  EXPECT_EQ(ok->value().response().schema().schema()._ref(), "#/definitions/io.k8s.api.core.v1.ConfigMap");
  EXPECT_EQ(named(patch.responses().response_code(), "401")->value().response().description(), "Unauthorized");

  // The path's own parameters: name and namespace in the path, pretty in the query.
  std::vector<std::string> shared;
  for (const oa::ParametersItem& item : path->value().parameters()) {
    const auto& parameter = item.parameter().non_body_parameter();
    if (parameter.has_path_parameter_sub_schema()) {
      EXPECT_TRUE(parameter.path_parameter_sub_schema().required());
      shared.push_back("path:" + parameter.path_parameter_sub_schema().name());
    } else {
      shared.push_back("query:" + parameter.query_parameter_sub_schema().name());
    }
  }
  EXPECT_EQ(shared, (std::vector<std::string>{"path:name", "path:namespace", "query:pretty"}));

  ASSERT_EQ(document.security_definitions().additional_properties_size(), 1);
  const auto& bearer = document.security_definitions().additional_properties(0);
  EXPECT_EQ(bearer.name(), "BearerToken");
  EXPECT_EQ(bearer.value().api_key_security().type(), "apiKey");
  EXPECT_EQ(bearer.value().api_key_security().name(), "authorization");
  EXPECT_EQ(bearer.value().api_key_security().in(), "header");
  ASSERT_EQ(document.security_size(), 1);
  EXPECT_EQ(document.security(0).additional_properties(0).name(), "BearerToken");
}

// What kapi's own documents rarely hold but extension API servers' (merged into /openapi/v2) and CRDs' do.
TEST_F(OpenApiV2ProtoTest, FreeFormValuesReferencesAndAlternativesAreGnostics) {
  const oa::Document document = decode(R"({"swagger":"2.0","info":{"title":"t","version":"1"},
    "paths":{"/w":{"x-path":1,"get":{"parameters":[{"$ref":"#/parameters/p"},
        {"name":"tags","in":"query","type":"array","items":{"type":"string"},"collectionFormat":"csv"},
        {"name":"X-Id","in":"header","type":"integer","format":"int64","maximum":9}],
      "responses":{"200":{"$ref":"#/responses/r"},"default":{"description":"file","schema":{"type":"file"}}}}}},
    "definitions":{"W":{"type":"object","required":["spec"],"additionalProperties":false,
      "properties":{"spec":{"allOf":[{"$ref":"#/definitions/S"}],"default":{}},
        "size":{"type":"string","enum":["small","large"],"default":"small","example":"true"},
        "n":{"type":["integer","null"],"minimum":0,"maxLength":5,"multipleOf":0.5},
        "any":{"x-kubernetes-preserve-unknown-fields":true,"additionalProperties":{"type":"string"}},
        "pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}},
      "x-kubernetes-validations":[{"rule":"self.size != 'x'","message":"no: x"}],
      "x-nested":{"a":{"b":[1,2.5,"yes"]},"c":[]},
      "nullable":true}},
    "parameters":{"p":{"name":"pretty","in":"query","type":"string","uniqueItems":true}},
    "responses":{"r":{"description":"OK"}},
    "securityDefinitions":{"basic":{"type":"basic"},"oauth":{"type":"oauth2","flow":"implicit",
      "authorizationUrl":"https://a","scopes":{"read":"Read"}}}})");

  const oa::Operation& get = document.paths().path(0).value().get();
  EXPECT_EQ(extension(document.paths().path(0).value(), "x-path"), "1\n");
  ASSERT_EQ(get.parameters_size(), 3);
  EXPECT_EQ(get.parameters(0).json_reference()._ref(), "#/parameters/p");
  const auto& tags = get.parameters(1).parameter().non_body_parameter().query_parameter_sub_schema();
  EXPECT_EQ(tags.items().type(), "string");
  EXPECT_EQ(tags.collection_format(), "csv");
  const auto& id = get.parameters(2).parameter().non_body_parameter().header_parameter_sub_schema();
  EXPECT_EQ(id.format(), "int64");
  EXPECT_EQ(id.maximum(), 9);
  EXPECT_EQ(get.responses().response_code(0).value().json_reference()._ref(), "#/responses/r");
  EXPECT_EQ(get.responses().response_code(1).name(), "default");
  EXPECT_EQ(get.responses().response_code(1).value().response().schema().file_schema().type(), "file");

  const oa::Schema& w = definition(document, "W");
  EXPECT_FALSE(w.additional_properties().boolean());
  EXPECT_EQ(w.additional_properties().oneof_case(), oa::AdditionalPropertiesItem::kBoolean);
  EXPECT_EQ(w.required(0), "spec");
  const oa::Schema& spec = property(w, "spec");
  ASSERT_EQ(spec.all_of_size(), 1);
  EXPECT_EQ(spec.all_of(0)._ref(), "#/definitions/S");
  EXPECT_EQ(spec.default_().yaml(), "{}\n");
  const oa::Schema& size = property(w, "size");
  ASSERT_EQ(size.enum__size(), 2);
  EXPECT_EQ(size.enum_(1).yaml(), "large\n");
  EXPECT_EQ(size.default_().yaml(), "small\n");
  EXPECT_EQ(size.example().yaml(), "\"true\"\n");  // a string yaml.v2 must not read as a boolean
  const oa::Schema& n = property(w, "n");
  EXPECT_EQ(types(n), (std::vector<std::string>{"integer", "null"}));
  EXPECT_EQ(n.max_length(), 5);
  EXPECT_EQ(n.multiple_of(), 0.5);
  EXPECT_EQ(extension(property(w, "any"), "x-kubernetes-preserve-unknown-fields"), "true\n");
  EXPECT_EQ(types(property(w, "any").additional_properties().schema()), std::vector<std::string>{"string"});
  EXPECT_EQ(property(w, "pair").items().schema_size(), 2);
  EXPECT_EQ(extension(w, "x-kubernetes-validations"), "- rule: \"self.size != 'x'\"\n  message: \"no: x\"\n");
  EXPECT_EQ(extension(w, "x-nested"), "a:\n    b:\n        - 1\n        - 2.5\n        - \"yes\"\nc: []\n");

  EXPECT_EQ(
      document.parameters().additional_properties(0).value().non_body_parameter().query_parameter_sub_schema().name(),
      "pretty");
  EXPECT_EQ(document.responses().additional_properties(0).value().description(), "OK");
  const auto& security = document.security_definitions().additional_properties();
  EXPECT_EQ(security.at(0).value().oneof_case(), oa::SecurityDefinitionsItem::kBasicAuthenticationSecurity);
  const auto& oauth = security.at(1).value().oauth2_implicit_security();
  EXPECT_EQ(oauth.authorization_url(), "https://a");
  EXPECT_EQ(oauth.scopes().additional_properties(0).value(), "Read");
}

TEST_F(OpenApiV2ProtoTest, YamlReadsBackAsTheSameValue) {
  EXPECT_EQ(gnostic_yaml(json::parse(R"("merge,retainKeys")")), "\"merge,retainKeys\"\n");
  EXPECT_EQ(gnostic_yaml(json::parse(R"("")")), "\"\"\n");
  EXPECT_EQ(gnostic_yaml(json::parse(R"("On")")), "\"On\"\n");
  EXPECT_EQ(gnostic_yaml(json::parse(R"("a\nb")")), "\"a\\nb\"\n");
  EXPECT_EQ(gnostic_yaml(json::parse("false")), "false\n");
  EXPECT_EQ(gnostic_yaml(json::parse("null")), "null\n");
  EXPECT_EQ(gnostic_yaml(json::parse("[]")), "[]\n");
  EXPECT_EQ(gnostic_yaml(json::parse(R"([["a"],{"b":{}}])")), "- - a\n- b: {}\n");
}

}  // namespace
}  // namespace kapi::schema::openapi_v2_proto_test

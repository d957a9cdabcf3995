// /openapi/v3 and /openapi/v2 over real HTTPS, with the caching headers kubectl relies on, and the request
// decoding the schemas drive: unknown fields under each fieldValidation directive, wrong types, defaults.
#include "tests/integration/kapi_suite.h"

namespace kapi::integration::openapi_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

class OpenApiServingTest : public KapiSuite<OpenApiServingTest> {
 protected:
  HttpResponse get(std::string_view target, Headers headers = {}) {
    return kapi().connect_admin().request("GET", target, headers);
  }
  HttpResponse post(std::string_view target, std::string_view body) {
    return kapi().connect_admin().request("POST", target, {{"Content-Type", "application/json"}}, body);
  }
};

TEST_F(OpenApiServingTest, V3RootLinksHashedDocumentsThatAreImmutable) {
  HttpResponse root = get("/openapi/v3");
  ASSERT_EQ(root.status, 200) << root.body;
  EXPECT_EQ(root.header("Content-Type"), "application/json");
  const std::string etag = root.header("ETag").value_or("");
  EXPECT_FALSE(etag.empty());
  EXPECT_EQ(get("/openapi/v3", {{"If-None-Match", etag}}).status, 304);

  auto paths = json_object(root.body)["paths"].as_object();
  ASSERT_TRUE(paths.contains("api/v1")) << root.body;
  ASSERT_TRUE(paths.contains("apis/coordination.k8s.io/v1")) << root.body;
  const std::string url(paths["api/v1"].as_object()["serverRelativeURL"].as_string());
  HttpResponse document = get(url);
  ASSERT_EQ(document.status, 200);
  EXPECT_EQ(document.header("Cache-Control"), "public, immutable");
  EXPECT_TRUE(document.has_header("Expires"));
  EXPECT_NE(document.body.find("\"x-kubernetes-group-version-kind\""), std::string::npos);

  HttpResponse unhashed = get("/openapi/v3/api/v1");
  EXPECT_EQ(unhashed.status, 200);
  EXPECT_EQ(unhashed.header("Cache-Control"), "no-cache, private");
  HttpResponse stale = get("/openapi/v3/api/v1?hash=0123");
  EXPECT_EQ(stale.status, 301);
  EXPECT_EQ(stale.header("Location"), url);
  EXPECT_EQ(get("/openapi/v3/apis/nope/v1").status, 404);
}

// kubectl asks for /openapi/v2 only as gnostic protobuf, under the deprecated name; kube-openapi's handler answers
// it, like JSON, with the JSON's ETag and Vary: Accept, and 406 when Accept names neither.
TEST_F(OpenApiServingTest, V2IsJsonOrGnosticProtobufAsAccepted) {
  HttpResponse json = get("/openapi/v2", {{"Accept", "application/json"}});
  ASSERT_EQ(json.status, 200);
  EXPECT_EQ(json_object(json.body)["swagger"], "2.0");
  EXPECT_EQ(json.header("Content-Type"), "application/json");
  EXPECT_EQ(json.header("Vary"), "Accept");
  const std::string etag = json.header("ETag").value_or("");
  EXPECT_EQ(etag.size(), 130u);  // the quoted SHA-512 of the JSON

  for (const char* accept : {"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                             "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                             "application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf"}) {
    HttpResponse proto = get("/openapi/v2", {{"Accept", accept}});
    ASSERT_EQ(proto.status, 200) << accept;
    EXPECT_EQ(proto.header("Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    EXPECT_EQ(proto.header("ETag"), etag);
    EXPECT_EQ(proto.header("Vary"), "Accept");
    // openapi.v2.Document: field 1 (swagger) "2.0" first, and no JSON.
    EXPECT_EQ(proto.body.substr(0, 5), std::string("\x0a\x03" "2.0", 5));
    EXPECT_EQ(proto.body.find("\"swagger\""), std::string::npos);
    EXPECT_NE(proto.body.find("io.k8s.api.core.v1.ConfigMap"), std::string::npos);
    EXPECT_EQ(get("/openapi/v2", {{"Accept", accept}, {"If-None-Match", etag}}).status, 304);
  }
  EXPECT_EQ(get("/openapi/v2", {{"Accept", "*/*"}}).header("Content-Type"), "application/json");
  EXPECT_EQ(get("/openapi/v2", {{"Accept", "text/html"}}).status, 406);
}

constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

TEST_F(OpenApiServingTest, FieldValidationDecidesWhatUnknownFieldsDo) {
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","bogus":1},"extra":{}})";
  auto named = [&](std::string name) { return body.substr(0, body.find("NAME")) + name + body.substr(body.find("NAME") + 4); };

  HttpResponse strict = post(std::string(kConfigMaps) + "?fieldValidation=Strict", named("strict"));
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(json_object(strict.body)["message"],
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field "
            "\"metadata.bogus\", unknown field \"extra\"");

  HttpResponse warned = post(kConfigMaps, named("warned"));  // Warn is the default
  EXPECT_EQ(warned.status, 201);
  auto warnings = warned.header_values("Warning");
  EXPECT_EQ(warnings, (std::vector<std::string>{"299 - \"unknown field \\\"metadata.bogus\\\"\"",
                                               "299 - \"unknown field \\\"extra\\\"\""}));
  EXPECT_EQ(warned.body.find("bogus"), std::string::npos) << warned.body;  // pruned before storing

  HttpResponse ignored = post(std::string(kConfigMaps) + "?fieldValidation=Ignore", named("ignored"));
  EXPECT_EQ(ignored.status, 201);
  EXPECT_FALSE(ignored.has_header("Warning"));

  EXPECT_EQ(post(std::string(kConfigMaps) + "?fieldValidation=Sometimes", named("bad")).status, 400);
}

TEST_F(OpenApiServingTest, WrongTypesAreBadRequestsAndDefaultsAreApplied) {
  HttpResponse wrong = post(kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w"},"data":{"k":1}})");
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(json_object(wrong.body)["reason"], "BadRequest");
  EXPECT_EQ(json_object(wrong.body)["message"],
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go "
            "struct field ConfigMap.data of type string");

  HttpResponse secret = post("/api/v1/namespaces/default/secrets",
                             R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"d"},"data":{"k":"dg=="}})");
  ASSERT_EQ(secret.status, 201) << secret.body;
  EXPECT_EQ(json_object(secret.body)["type"], "Opaque");
}

}  // namespace
}  // namespace kapi::integration::openapi_test

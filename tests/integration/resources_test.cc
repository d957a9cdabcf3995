// The built-in resources over real HTTPS: every verb on configmaps and namespaces through the registry Store,
// the Cacher and the embedded store, with kube-apiserver's status codes and Status bodies, plus discovery.
#include "tests/integration/kapi_suite.h"

#include <chrono>
#include <thread>

namespace kapi::integration::resources_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

class ResourcesTest : public KapiSuite<ResourcesTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    Headers headers = {{"Content-Type", "application/json"}}) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  static std::string configmap(std::string_view name, std::string_view data_value) {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
           R"(","labels":{"app":"demo"}},"data":{"a":")" + std::string(data_value) + R"("}})";
  }
  static std::string resource_version(const HttpResponse& response) {
    auto object = json_object(response.body);
    return std::string(object["metadata"].as_object()["resourceVersion"].as_string());
  }
};

constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

TEST_F(ResourcesTest, CreateGetListUpdateDeleteAConfigMap) {
  HttpResponse created = call("POST", kConfigMaps, configmap("crud", "1"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto object = json_object(created.body);
  auto metadata = object["metadata"].as_object();
  EXPECT_EQ(metadata["namespace"], "default");
  EXPECT_EQ(metadata["uid"].as_string().size(), 36u);
  EXPECT_TRUE(metadata.contains("creationTimestamp"));
  const std::string version = resource_version(created);

  HttpResponse got = call("GET", std::string(kConfigMaps) + "/crud");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(resource_version(got), version);

  HttpResponse listed = call("GET", std::string(kConfigMaps) + "?labelSelector=app%3Ddemo");
  ASSERT_EQ(listed.status, 200);
  auto list = json_object(listed.body);
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_FALSE(list["metadata"].as_object()["resourceVersion"].as_string().empty());
  bool found = false;
  for (const auto& item : list["items"].as_array())
    found = found || item.as_object().at("metadata").as_object().at("name") == "crud";
  EXPECT_TRUE(found) << listed.body;

  // A stale resourceVersion is a conflict, worded as kube words it.
  std::string stale = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"crud","resourceVersion":"1"},"data":{"a":"2"}})";
  HttpResponse conflict = call("PUT", std::string(kConfigMaps) + "/crud", stale);
  EXPECT_TRUE(is_status(conflict, 409, "Conflict"));
  EXPECT_EQ(status_message(conflict),
            "Operation cannot be fulfilled on configmaps \"crud\": the object has been modified; please apply your "
            "changes to the latest version and try again");

  std::string fresh = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"crud","resourceVersion":")" +
                      version + R"("},"data":{"a":"2"}})";
  HttpResponse updated = call("PUT", std::string(kConfigMaps) + "/crud", fresh);
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_NE(resource_version(updated), version);
  EXPECT_EQ(json_object(updated.body)["data"].as_object()["a"], "2");

  HttpResponse deleted = call("DELETE", std::string(kConfigMaps) + "/crud");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto status = json_object(deleted.body);
  EXPECT_EQ(status["status"], "Success");
  EXPECT_EQ(status["details"].as_object()["name"], "crud");
  EXPECT_TRUE(is_status(call("GET", std::string(kConfigMaps) + "/crud"), 404, "NotFound"));
}

TEST_F(ResourcesTest, ErrorsCarryKubeStatuses) {
  ASSERT_EQ(call("POST", kConfigMaps, configmap("dup", "1")).status, 201);
  HttpResponse duplicate = call("POST", kConfigMaps, configmap("dup", "1"));
  EXPECT_TRUE(is_status(duplicate, 409, "AlreadyExists"));
  EXPECT_EQ(status_message(duplicate), "configmaps \"dup\" already exists");

  HttpResponse invalid = call("POST", kConfigMaps, configmap("Bad_Name", "1"));
  EXPECT_TRUE(is_status(invalid, 422, "Invalid"));
  EXPECT_TRUE(status_message(invalid).starts_with(
      "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"))
      << status_message(invalid);
  auto causes = json_object(invalid.body)["details"].as_object()["causes"].as_array();
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].as_object().at("field"), "metadata.name");
  EXPECT_EQ(causes[0].as_object().at("reason"), "FieldValueInvalid");

  EXPECT_TRUE(is_status(call("POST", kConfigMaps, "{not json"), 400, "BadRequest"));
  EXPECT_TRUE(is_status(call("POST", kConfigMaps, configmap("x", "1"), {{"Content-Type", "text/plain"}}), 415,
                        "UnsupportedMediaType"));
  EXPECT_TRUE(is_status(call("GET", std::string(kConfigMaps) + "?labelSelector=a%20in%20("), 400, "BadRequest"));
  HttpResponse field = call("GET", std::string(kConfigMaps) + "?fieldSelector=spec.nope%3Dx");
  EXPECT_TRUE(is_status(field, 400, "BadRequest"));
  EXPECT_EQ(status_message(field), "field label not supported: spec.nope");

  HttpResponse missing_namespace = call("POST", "/api/v1/namespaces/nowhere/configmaps", configmap("x", "1"));
  EXPECT_TRUE(is_status(missing_namespace, 404, "NotFound"));
  EXPECT_EQ(status_message(missing_namespace), "namespaces \"nowhere\" not found");
}

TEST_F(ResourcesTest, NestingIsBoundedButGenerous) {
  auto nested = [](int depth) {
    std::string value;
    for (int i = 0; i < depth; ++i) value += R"({"a":)";
    return value + "1" + std::string(depth, '}');
  };
  std::string deep = R"({"metadata":{"name":"deep"},"extra":)" + nested(200) + "}";
  HttpResponse accepted = call("POST", kConfigMaps, deep);
  EXPECT_EQ(accepted.status, 201) << accepted.body.substr(0, 300);
  EXPECT_EQ(call("GET", std::string(kConfigMaps) + "/deep").status, 200);
  std::string too_deep = R"({"metadata":{"name":"too-deep"},"extra":)" + nested(5000) + "}";
  EXPECT_TRUE(is_status(call("POST", kConfigMaps, too_deep), 400, "BadRequest"));
}

TEST_F(ResourcesTest, PatchTypesAndDryRun) {
  ASSERT_EQ(call("POST", kConfigMaps, configmap("patched", "1")).status, 201);
  const std::string path = std::string(kConfigMaps) + "/patched";
  HttpResponse merge = call("PATCH", path, R"({"metadata":{"labels":{"env":"prod"}},"data":{"a":null,"b":"2"}})",
                            {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(merge.status, 200) << merge.body;
  auto merged = json_object(merge.body);
  EXPECT_EQ(merged["metadata"].as_object()["labels"].as_object()["env"], "prod");
  EXPECT_FALSE(merged["data"].as_object().contains("a"));

  HttpResponse json_patch = call("PATCH", path, R"([{"op":"add","path":"/data/c","value":"3"}])",
                                 {{"Content-Type", "application/json-patch+json"}});
  ASSERT_EQ(json_patch.status, 200) << json_patch.body;
  EXPECT_EQ(json_object(json_patch.body)["data"].as_object()["c"], "3");

  HttpResponse strategic = call("PATCH", path, R"({"data":{"d":"4"}})",
                                {{"Content-Type", "application/strategic-merge-patch+json"}});
  ASSERT_EQ(strategic.status, 200) << strategic.body;
  EXPECT_EQ(json_object(strategic.body)["data"].as_object().size(), 3u);

  HttpResponse dry = call("POST", std::string(kConfigMaps) + "?dryRun=All", configmap("dry", "1"));
  EXPECT_EQ(dry.status, 201) << dry.body;
  EXPECT_TRUE(is_status(call("GET", std::string(kConfigMaps) + "/dry"), 404, "NotFound"));
  EXPECT_TRUE(is_status(call("PATCH", std::string(kConfigMaps) + "/absent", "{}",
                             {{"Content-Type", "application/merge-patch+json"}}),
                        404, "NotFound"));
}

TEST_F(ResourcesTest, TablesForKubectl) {
  ASSERT_EQ(call("POST", kConfigMaps, configmap("tabled", "1")).status, 201);
  Headers accept{{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}};
  HttpResponse table = call("GET", std::string(kConfigMaps) + "?limit=500", {}, accept);
  ASSERT_EQ(table.status, 200);
  auto object = json_object(table.body);
  EXPECT_EQ(object["kind"], "Table");
  EXPECT_FALSE(object["metadata"].as_object()["resourceVersion"].as_string().empty());
  auto columns = object["columnDefinitions"].as_array();
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].as_object().at("name"), "Name");
  EXPECT_EQ(columns[1].as_object().at("name"), "Data");
  EXPECT_EQ(columns[2].as_object().at("name"), "Age");
  bool found = false;
  for (const auto& row : object["rows"].as_array()) {
    const auto& cells = row.as_object().at("cells").as_array();
    if (cells[0] != "tabled") continue;
    found = true;
    EXPECT_EQ(cells[1], 1);
    EXPECT_EQ(row.as_object().at("object").as_object().at("kind"), "PartialObjectMetadata");
  }
  EXPECT_TRUE(found) << table.body;
}

TEST_F(ResourcesTest, WatchStreamsChangesAfterAResourceVersion) {
  HttpResponse created = call("POST", kConfigMaps, configmap("watched", "1"));
  ASSERT_EQ(created.status, 201);
  const std::string version = resource_version(created);
  std::thread writer([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    call("PATCH", std::string(kConfigMaps) + "/watched", R"({"data":{"a":"2"}})",
         {{"Content-Type", "application/merge-patch+json"}});
    call("DELETE", std::string(kConfigMaps) + "/watched");
  });
  HttpResponse watch = call("GET", std::string(kConfigMaps) + "?watch=true&timeoutSeconds=2&resourceVersion=" + version +
                                       "&fieldSelector=metadata.name%3Dwatched");
  writer.join();
  ASSERT_EQ(watch.status, 200);
  EXPECT_NE(watch.body.find(R"({"type":"MODIFIED","object":{"kind":"ConfigMap")"), std::string::npos) << watch.body;
  EXPECT_NE(watch.body.find(R"({"type":"DELETED")"), std::string::npos) << watch.body;
  EXPECT_EQ(watch.body.find(R"("type":"ADDED")"), std::string::npos) << watch.body;
}

TEST_F(ResourcesTest, NamespacesAreClusterScopedAndBootstrapped) {
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    HttpResponse got = call("GET", std::string("/api/v1/namespaces/") + name);
    ASSERT_EQ(got.status, 200) << name << got.body;
    EXPECT_EQ(json_object(got.body)["status"].as_object()["phase"], "Active");
  }
  HttpResponse created = call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"team-a"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["metadata"].as_object()["labels"].as_object()["kubernetes.io/metadata.name"],
            "team-a");
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/team-a").status, 200);
  EXPECT_TRUE(is_status(call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"Not.A.Label"}})"), 422, "Invalid"));
}

TEST_F(ResourcesTest, DiscoveryLegacyAndAggregated) {
  HttpResponse resources = call("GET", "/api/v1");
  ASSERT_EQ(resources.status, 200);
  EXPECT_NE(resources.body.find(R"("name":"configmaps")"), std::string::npos) << resources.body;
  EXPECT_NE(resources.body.find(R"("shortNames":["cm"])"), std::string::npos) << resources.body;

  HttpResponse groups = call("GET", "/apis");
  ASSERT_EQ(groups.status, 200);
  EXPECT_EQ(json_object(groups.body)["kind"], "APIGroupList");
  EXPECT_NE(groups.body.find("coordination.k8s.io"), std::string::npos);

  Headers aggregated{{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"}};
  HttpResponse v2 = call("GET", "/apis", {}, aggregated);
  ASSERT_EQ(v2.status, 200);
  EXPECT_EQ(v2.header("Content-Type").value_or(""), "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(json_object(v2.body)["kind"], "APIGroupDiscoveryList");
  auto etag = v2.header("ETag");
  ASSERT_TRUE(etag);
  Headers revalidate = aggregated;
  revalidate.emplace_back("If-None-Match", *etag);
  EXPECT_EQ(call("GET", "/apis", {}, revalidate).status, 304);

  EXPECT_EQ(call("GET", "/apis/coordination.k8s.io").status, 200);
  EXPECT_EQ(call("GET", "/apis/coordination.k8s.io/v1").status, 200);
  EXPECT_TRUE(is_status(call("GET", "/apis/coordination.k8s.io/v9"), 404, "NotFound"));
}

// Namespaces have status and finalize subresources: each writes only its part, and the main resource cannot
// write them (kube's namespace strategies).
TEST_F(ResourcesTest, StatusAndFinalizeSubresourcesWriteOnlyTheirPart) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sub"}})").status, 201);
  const std::string ns = "/api/v1/namespaces/sub";

  // A main-resource write keeps the stored status and finalizers.
  HttpResponse main = call("PUT", ns, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sub","labels":{"a":"b"}},
      "spec":{"finalizers":[]},"status":{"phase":"Terminating"}})");
  ASSERT_EQ(main.status, 200) << main.body;
  auto object = json_object(main.body);
  EXPECT_EQ(object["status"].as_object()["phase"], "Active");
  EXPECT_EQ(object["spec"].as_object()["finalizers"].as_array().size(), 1u);
  EXPECT_EQ(object["metadata"].as_object()["labels"].as_object()["a"], "b");

  // A status write changes status only: the label change in its body is dropped.
  HttpResponse status = call("PUT", ns + "/status", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sub","labels":{"a":"c"}},
      "status":{"phase":"Active","conditions":[{"type":"NamespaceDeletionDiscoveryFailure","status":"False"}]}})");
  ASSERT_EQ(status.status, 200) << status.body;
  object = json_object(status.body);
  EXPECT_EQ(object["status"].as_object()["conditions"].as_array().size(), 1u);
  EXPECT_EQ(object["metadata"].as_object()["labels"].as_object()["a"], "b");
  EXPECT_EQ(json_object(call("GET", ns + "/status").body)["status"].as_object()["conditions"].as_array().size(), 1u);

  // finalize writes spec.finalizers only.
  HttpResponse finalized = call("PUT", ns + "/finalize", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sub"},"spec":{"finalizers":[]}})");
  ASSERT_EQ(finalized.status, 200) << finalized.body;
  // An empty list: kube omits it (NamespaceSpec.Finalizers is omitempty) once the object has been through storage.
  const boost::json::object finalized_spec = json_object(finalized.body)["spec"].as_object();
  const boost::json::value* finalizers = finalized_spec.if_contains("finalizers");
  EXPECT_TRUE(!finalizers || finalizers->as_array().empty()) << finalized.body;
  EXPECT_EQ(json_object(finalized.body)["status"].as_object()["conditions"].as_array().size(), 1u);

  EXPECT_TRUE(is_status(call("GET", ns + "/nope"), 404, "NotFound"));
  EXPECT_TRUE(is_status(call("DELETE", ns + "/status"), 405, "MethodNotAllowed"));

  // Discovery lists them as kube does.
  auto resources = json_object(call("GET", "/api/v1").body)["resources"].as_array();
  bool listed = false;
  for (const auto& resource : resources)
    if (resource.as_object().at("name") == "namespaces/finalize")
      listed = resource.as_object().at("verbs") == boost::json::array{"update"};
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace kapi::integration::resources_test

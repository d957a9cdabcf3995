// Request and response wire features over real HTTPS, as kube-apiserver has them: YAML request bodies (with
// go-yaml's guard against alias bombs), duplicate fields under each fieldValidation directive, and gzip for
// responses over 128 KiB, checked with the real kubectl too.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/gunzip.h"


#include <algorithm>
#include <sstream>

namespace kapi::integration::wire_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

using test_support::gunzip;

class WireTest : public KapiSuite<WireTest> {
 protected:
  HttpResponse send(std::string_view method, std::string_view target, Headers headers, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  HttpResponse post_yaml(std::string_view target, std::string_view body) {
    return send("POST", target, {{"Content-Type", "application/yaml"}}, body);
  }
  HttpResponse post_json(std::string_view target, std::string_view body) {
    return send("POST", target, {{"Content-Type", "application/json"}}, body);
  }
  std::vector<std::string> warnings(const HttpResponse& response) { return response.header_values("Warning"); }
};

TEST_F(WireTest, YamlBodiesCreateAndUpdate) {
  HttpResponse created = post_yaml(kConfigMaps,
                                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels:\n"
                                   "    tier: \"1\"\ndata:\n  greeting: hello\n  count: \"3\"\n  flag: \"yes\"\n");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.header("Content-Type"), "application/json");  // the answer follows Accept, not the body
  auto object = json_object(created.body);
  EXPECT_EQ(object["data"], (boost::json::object{{"count", "3"}, {"flag", "yes"}, {"greeting", "hello"}}));
  EXPECT_EQ(object["metadata"].as_object()["labels"], (boost::json::object{{"tier", "1"}}));

  // PUT as YAML, with the block scalar and anchor forms a hand-written manifest uses
  HttpResponse updated = send("PUT", std::string(kConfigMaps) + "/from-yaml", {{"Content-Type", "application/yaml"}},
                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels: &l {tier: \"2\"}\n"
                              "  annotations: *l\ndata:\n  script: |\n    echo one\n    echo two\n");
  ASSERT_EQ(updated.status, 200) << updated.body;
  object = json_object(send("GET", std::string(kConfigMaps) + "/from-yaml", {}).body);
  EXPECT_EQ(object["data"], (boost::json::object{{"script", "echo one\necho two\n"}}));
  EXPECT_EQ(object["metadata"].as_object()["annotations"], (boost::json::object{{"tier", "2"}}));
}

TEST_F(WireTest, YamlTypingIsKubes) {
  // go-yaml v2 reads `yes` as a bool; a ConfigMap's data takes strings only
  HttpResponse typed = post_yaml(kConfigMaps, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\ndata:\n  a: yes\n");
  ASSERT_TRUE(is_status(typed, 400, "BadRequest"));
  EXPECT_EQ(status_message(typed), "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot "
                                   "unmarshal bool into Go struct field ConfigMap.data of type string");

  HttpResponse broken = post_yaml(kConfigMaps, "apiVersion: v1\nkind: ConfigMap\nmetadata: name: x\n");
  ASSERT_TRUE(is_status(broken, 400, "BadRequest"));
  EXPECT_EQ(status_message(broken), "the object provided is unrecognized (must be of type ConfigMap): yaml: line 3: "
                                    "mapping values are not allowed in this context "
                                    "(61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)");

  HttpResponse list = post_yaml(kConfigMaps, "- a\n- b\n");
  ASSERT_TRUE(is_status(list, 400, "BadRequest"));
  EXPECT_NE(status_message(list).find("couldn't get version/kind; json parse error: json: cannot unmarshal array"),
            std::string::npos);

  HttpResponse xml = send("POST", kConfigMaps, {{"Content-Type", "application/xml"}}, "<x/>");
  ASSERT_TRUE(is_status(xml, 415, "UnsupportedMediaType"));
  EXPECT_EQ(status_message(xml), "the body of the request was in an unknown format - accepted media types include: "
                                 "application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

TEST_F(WireTest, AliasBombIsRefusedAndTheServerKeepsServing) {
  std::string bomb = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\na: &a [\"lol\",\"lol\",\"lol\"]\n";
  for (char level = 'b'; level <= 'j'; ++level) {
    const char previous = static_cast<char>(level - 1);
    bomb += std::string(1, level) + ": &" + level + " [";
    for (int i = 0; i < 9; ++i) bomb += std::string(i ? ", *" : "*") + previous;
    bomb += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  HttpResponse refused = post_yaml(kConfigMaps, bomb);
  EXPECT_LT(seconds_since(start), 5.0);
  ASSERT_TRUE(is_status(refused, 400, "BadRequest"));
  EXPECT_NE(status_message(refused).find(": yaml: document contains excessive aliasing ("), std::string::npos)
      << status_message(refused);

  std::string deep = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: " + std::string(5000, '[') +
                     std::string(5000, ']') + "\n";
  HttpResponse too_deep = post_yaml(kConfigMaps, deep);
  ASSERT_TRUE(is_status(too_deep, 400, "BadRequest"));
  EXPECT_NE(status_message(too_deep).find("exceeded max depth"), std::string::npos) << status_message(too_deep);

  EXPECT_EQ(send("GET", kConfigMaps, {}).status, 200);
  EXPECT_EQ(post_yaml(kConfigMaps, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-bomb\n").status, 201);
}

TEST_F(WireTest, DuplicateFieldsInJsonFollowFieldValidation) {
  auto body = [](std::string name) {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":")" + name +
           R"("},"data":{"a":"1","a":"2"},"extra":true})";
  };
  HttpResponse strict = post_json(std::string(kConfigMaps) + "?fieldValidation=Strict", body("dup-strict"));
  ASSERT_TRUE(is_status(strict, 400, "BadRequest"));
  EXPECT_EQ(status_message(strict), "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding "
                                    "error: duplicate field \"metadata.name\", duplicate field \"data.a\", "
                                    "unknown field \"extra\"");

  HttpResponse warned = post_json(kConfigMaps, body("dup-warn"));  // Warn is the default
  ASSERT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warnings(warned), (std::vector<std::string>{"299 - \"duplicate field \\\"metadata.name\\\"\"",
                                                        "299 - \"duplicate field \\\"data.a\\\"\"",
                                                        "299 - \"unknown field \\\"extra\\\"\""}));
  auto object = json_object(warned.body);
  EXPECT_EQ(object["metadata"].as_object()["name"], "dup-warn");  // the later value wins, as in Go
  EXPECT_EQ(object["data"], (boost::json::object{{"a", "2"}}));

  HttpResponse ignored = post_json(std::string(kConfigMaps) + "?fieldValidation=Ignore", body("dup-ignore"));
  EXPECT_EQ(ignored.status, 201) << ignored.body;
  EXPECT_FALSE(ignored.has_header("Warning"));

  HttpResponse put = send("PUT", std::string(kConfigMaps) + "/dup-warn?fieldValidation=Strict",
                          {{"Content-Type", "application/json"}},
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-warn"},"data":{},"data":{}})");
  ASSERT_TRUE(is_status(put, 400, "BadRequest"));
  EXPECT_EQ(status_message(put), "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding "
                                 "error: duplicate field \"data\"");
}

TEST_F(WireTest, DuplicateKeysInYamlAreReportedInGoYamlsWords) {
  const std::string body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: NAME\ndata:\n  k: a\n"
                           "  k: b\nextra: 1\n";
  auto named = [&](std::string name) { return body.substr(0, body.find("NAME")) + name + body.substr(body.find("NAME") + 4); };
  HttpResponse strict = post_yaml(std::string(kConfigMaps) + "?fieldValidation=Strict", named("yaml-strict"));
  ASSERT_TRUE(is_status(strict, 400, "BadRequest"));
  EXPECT_EQ(status_message(strict), "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding "
                                    "error: yaml: unmarshal errors:\n  line 5: key \"name\" already set in map\n"
                                    "  line 8: key \"k\" already set in map, unknown field \"extra\"");
  HttpResponse warned = post_yaml(kConfigMaps, named("yaml-warn"));
  ASSERT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warnings(warned), (std::vector<std::string>{"299 - \"line 5: key \\\"name\\\" already set in map\"",
                                                        "299 - \"line 8: key \\\"k\\\" already set in map\"",
                                                        "299 - \"unknown field \\\"extra\\\"\""}));
  EXPECT_EQ(json_object(warned.body)["data"], (boost::json::object{{"k", "b"}}));
}

class WireGzipTest : public KapiSuite<WireGzipTest> {
 protected:
  static constexpr std::string_view kNamespace = "/api/v1/namespaces/wire-gzip/configmaps";

  static void SetUpTestSuite() {
    KapiSuite<WireGzipTest>::SetUpTestSuite();
    auto connection = kapi().connect_admin();
    connection.request("POST", "/api/v1/namespaces", {{"Content-Type", "application/json"}},
                       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"wire-gzip"}})");
    // 12 configmaps of 16 KiB: a list of about 200 KiB, over kube's 128 KiB threshold
    for (int i = 0; i < 12; ++i) {
      std::string value;
      for (int j = 0; value.size() < 16 * 1024; ++j) value += "line " + std::to_string(i * 100000 + j) + " of data\\n";
      connection.request("POST", kNamespace, {{"Content-Type", "application/json"}},
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-)" + std::to_string(i) +
                             R"("},"data":{"payload":")" + value + R"("}})");
    }
    // The root CA publisher adds kube-root-ca.crt whenever it gets to the namespace; the tests compare two lists,
    // so they start once it is there.
    ASSERT_TRUE(eventually([&] {
      return connection.request("GET", std::string(kNamespace) + "/kube-root-ca.crt", {}).status == 200;
    }));
  }

  HttpResponse get(std::string_view target, Headers headers) {
    return kapi().connect_admin().request("GET", target, headers);
  }

  // A list body with its metadata's resourceVersion (the first one in it) blanked.
  static std::string without_list_resource_version(std::string body) {
    constexpr std::string_view kField = "\"resourceVersion\":\"";
    const std::size_t value = body.find(kField);
    if (value == std::string::npos) return body;
    const std::size_t start = value + kField.size();
    return body.erase(start, body.find('"', start) - start);
  }

  static std::size_t big_items(boost::json::object list) {
    return std::ranges::count_if(list["items"].as_array(), [](const boost::json::value& item) {
      return item.at("metadata").at("name").as_string().starts_with("big-");
    });
  }
};

TEST_F(WireGzipTest, LargeListsAreGzippedWhenTheClientAcceptsIt) {
  HttpResponse plain = get(kNamespace, {});
  ASSERT_EQ(plain.status, 200);
  ASSERT_GT(plain.body.size(), 128u * 1024);
  EXPECT_FALSE(plain.has_header("Content-Encoding"));

  HttpResponse zipped = get(kNamespace, {{"Accept-Encoding", "gzip"}});
  ASSERT_EQ(zipped.status, 200);
  EXPECT_EQ(zipped.header("Content-Encoding"), "gzip");
  EXPECT_EQ(zipped.header("Vary"), "Accept-Encoding");
  EXPECT_EQ(zipped.header("Content-Type"), "application/json");
  EXPECT_LT(zipped.body.size(), plain.body.size() / 2);
  // The same bytes, but for the list's resourceVersion: the server's other writes (leases) move it meanwhile.
  EXPECT_EQ(without_list_resource_version(gunzip(zipped.body)), without_list_resource_version(plain.body));

  // the Table kubectl asks for is compressed the same way when large
  HttpResponse table = get(kNamespace, {{"Accept-Encoding", "gzip"},
                                         {"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(table.status, 200);
  if (table.has_header("Content-Encoding")) {
    EXPECT_NE(gunzip(table.body).find("\"kind\":\"Table\""), std::string::npos);
  }

  // protobuf lists too
  HttpResponse protobuf = get(kNamespace, {{"Accept-Encoding", "gzip"}, {"Accept", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(protobuf.status, 200);
  EXPECT_EQ(protobuf.header("Content-Encoding"), "gzip");
  EXPECT_EQ(gunzip(protobuf.body).substr(0, 4), std::string("k8s\0", 4));
}

// kube 1.33's streamed list encoding: a large JSON list goes out chunked, item by item, without kind and
// apiVersion on its items and with each item's resourceVersion, as the objects read one by one.
TEST_F(WireGzipTest, LargeJsonListsAreStreamedAndSmallOnesAreNot) {
  HttpResponse streamed = get(kNamespace, {});
  ASSERT_EQ(streamed.status, 200);
  EXPECT_EQ(streamed.header("Transfer-Encoding"), "chunked");
  EXPECT_FALSE(streamed.has_header("Content-Length"));
  auto list = json_object(streamed.body);
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(big_items(list), 12u);
  for (const auto& value : list["items"].as_array()) {
    auto item = value.as_object();
    EXPECT_FALSE(item.contains("kind"));
    EXPECT_FALSE(item.contains("apiVersion"));
    const std::string name(item["metadata"].as_object()["name"].as_string());
    auto alone = json_object(get(std::string(kNamespace) + "/" + name, {}).body);
    alone.erase("kind");
    alone.erase("apiVersion");
    EXPECT_EQ(item, alone) << name;
  }

  HttpResponse small = get(std::string(kNamespace) + "?limit=2", {});
  ASSERT_EQ(small.status, 200);
  EXPECT_TRUE(small.has_header("Content-Length"));
  EXPECT_EQ(json_object(small.body)["items"].as_array().size(), 2u);
}

TEST_F(WireGzipTest, SmallResponsesAndOtherEncodingsStayPlain) {
  HttpResponse small = get(std::string(kNamespace) + "/big-0", {{"Accept-Encoding", "gzip"}});
  ASSERT_EQ(small.status, 200);
  EXPECT_LT(small.body.size(), 128u * 1024);
  EXPECT_FALSE(small.has_header("Content-Encoding"));
  EXPECT_FALSE(small.has_header("Vary"));
  EXPECT_EQ(json_object(small.body)["kind"], "ConfigMap");

  HttpResponse deflate_only = get(kNamespace, {{"Accept-Encoding", "deflate, br"}});
  EXPECT_FALSE(deflate_only.has_header("Content-Encoding"));
  EXPECT_EQ(json_object(deflate_only.body)["kind"], "ConfigMapList");
}

TEST_F(WireGzipTest, KubectlReadsGzippedLists) {
  // kubectl (Go's transport) sends Accept-Encoding: gzip and inflates transparently
  CommandResult table = run_kubectl(kapi(), "get configmaps -A");
  EXPECT_EQ(table.exit_code, 0) << table.output;
  std::size_t rows = 0;
  std::istringstream lines(table.output);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("wire-gzip ") && line.find(" big-") != std::string::npos) ++rows;
  EXPECT_EQ(rows, 12u) << table.output;
  CommandResult json = run_kubectl(kapi(), "get configmaps -n wire-gzip -o json");
  EXPECT_EQ(json.exit_code, 0) << json.output.substr(0, 2000);
  EXPECT_NE(json.output.find("line 1100000 of data"), std::string::npos);
  EXPECT_EQ(big_items(json_object(json.output)), 12u);
}

}  // namespace
}  // namespace kapi::integration::wire_test

// kube's protobuf media type against a running kapi: the real kubectl's typed generators (which send protobuf
// bodies and nothing else), and raw HTTP asking for protobuf objects, lists, Status errors and watch streams,
// decoded with kapi's own transcoder.
#include "server/schema/transcoder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <algorithm>
#include <filesystem>

namespace kapi::integration::protobuf_test {
namespace {

namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kProtobuf = "application/vnd.kubernetes.protobuf";
constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

class ProtobufTest : public KapiSuite<ProtobufTest> {
 protected:
  static const schema::Catalog& catalog() {
    static const schema::Catalog built = schema::Catalog::builtin();
    return built;
  }
  static schema::Transcoder transcoder() { return schema::Transcoder(catalog()); }

  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    Headers headers = {{"Accept", std::string(kProtobuf)}}) {
    return kapi().connect_admin().request(method, target, headers, body);
  }

  // The protobuf body of `response`, as JSON; fails the test when it is not kube's envelope.
  static json::object decoded(const HttpResponse& response) {
    EXPECT_EQ(response.header("Content-Type").value_or(""), kProtobuf) << response.body;
    try {
      return transcoder().decode(response.body);
    } catch (const schema::TranscodeError& error) {
      ADD_FAILURE() << "not a protobuf object: " << error.what();
      return {};
    }
  }

  static std::string list_revision(json::object& list) {
    const json::value* revision = list["metadata"].as_object().if_contains("resourceVersion");
    return revision && revision->is_string() ? std::string(revision->as_string()) : "";
  }
  // ListMeta's resourceVersion (field 2, a string of under 128 bytes) as protobuf writes it.
  static std::string list_meta_revision(const std::string& revision) {
    return std::string{'\x12', static_cast<char>(revision.size())} + revision;
  }

  void create_configmap(std::string_view name, std::string_view value) {
    std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
                       R"("},"data":{"k":")" + std::string(value) + R"("}})";
    HttpResponse created = call("POST", kConfigMaps, body, {{"Content-Type", "application/json"}});
    ASSERT_EQ(created.status, 201) << created.body;
  }
};

TEST_F(ProtobufTest, KubectlCreateGeneratorsSendProtobuf) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  struct Case {
    std::string command;
    std::string printed;
  };
  for (const Case& c : {Case{"create configmap proto-cm --from-literal=a=b", "configmap/proto-cm created"},
                        Case{"create secret generic proto-secret --from-literal=p=q", "secret/proto-secret created"},
                        Case{"create namespace proto-ns", "namespace/proto-ns created"},
                        Case{"create serviceaccount proto-sa", "serviceaccount/proto-sa created"}}) {
    CommandResult result = kubectl(c.command);
    EXPECT_EQ(result.exit_code, 0) << c.command << "\n" << result.output;
    EXPECT_EQ(result.output, c.printed + "\n") << c.command;
  }
  EXPECT_EQ(kubectl("get configmap proto-cm -o jsonpath={.data}").output, R"({"a":"b"})");
  EXPECT_EQ(kubectl("get secret proto-secret -o jsonpath={.data.p}").output, "cQ==");
  EXPECT_EQ(kubectl("get secret proto-secret -o jsonpath={.type}").output, "Opaque");
  CommandResult ns = kubectl("get namespace proto-ns");
  EXPECT_EQ(ns.exit_code, 0) << ns.output;
  EXPECT_NE(ns.output.find("proto-ns   Active"), std::string::npos) << ns.output;
  CommandResult sa = kubectl("get serviceaccount proto-sa -o name");
  EXPECT_EQ(sa.output, "serviceaccount/proto-sa\n");
  // An error comes back as a protobuf Status that kubectl decodes into its usual message.
  CommandResult again = kubectl("create configmap proto-cm --from-literal=a=b");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_EQ(again.output, "error: failed to create configmap: configmaps \"proto-cm\" already exists\n");
}

// kubectl's protobuf bodies carry every non-pointer field, empty or not; what is stored is kube-apiserver's JSON of
// them, with omitempty's zero values gone and pointers' zero values kept.
TEST_F(ProtobufTest, ObjectsCreatedFromProtobufHaveNoEmptyFields) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  ASSERT_EQ(kubectl("create configmap proto-empty --from-literal=a=b").exit_code, 0);
  CommandResult got = kubectl("get configmap proto-empty -o json");
  ASSERT_EQ(got.exit_code, 0) << got.output;
  json::object configmap = json_object(got.output);
  const json::object& metadata = configmap["metadata"].as_object();
  for (const char* absent : {"generateName", "selfLink", "generation", "deletionGracePeriodSeconds"})
    EXPECT_FALSE(metadata.contains(absent)) << absent << " in " << got.output;
  EXPECT_EQ(configmap["data"], (json::object{{"a", "b"}}));
  EXPECT_FALSE(configmap.contains("immutable")) << got.output;

  ASSERT_EQ(kubectl("create deployment proto-zero --image=nginx --replicas=0").exit_code, 0);
  CommandResult deployment = kubectl("get deployment proto-zero -o json");
  ASSERT_EQ(deployment.exit_code, 0) << deployment.output;
  json::object spec = json_object(deployment.output)["spec"].as_object();
  EXPECT_EQ(spec["replicas"], 0) << "a pointer keeps its zero value: " << deployment.output;
  json::object container = spec["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_FALSE(container.contains("workingDir")) << deployment.output;
  EXPECT_FALSE(container.contains("stdin")) << deployment.output;
  EXPECT_EQ(container["resources"], json::object()) << "a struct stays, empty: " << deployment.output;
}

TEST_F(ProtobufTest, ObjectsListsAndStatusesAsProtobuf) {
  create_configmap("proto-get", "v1");
  json::object object = decoded(call("GET", std::string(kConfigMaps) + "/proto-get"));
  EXPECT_EQ(object["kind"], "ConfigMap");
  EXPECT_EQ(object["apiVersion"], "v1");
  EXPECT_EQ(object["metadata"].as_object()["name"], "proto-get");
  EXPECT_EQ(object["metadata"].as_object()["namespace"], "default");
  EXPECT_FALSE(object["metadata"].as_object()["resourceVersion"].as_string().empty());
  EXPECT_TRUE(object["metadata"].as_object()["creationTimestamp"].is_string());
  EXPECT_EQ(object["data"], (json::object{{"k", "v1"}}));

  json::object list = decoded(call("GET", std::string(kConfigMaps) + "?limit=500"));
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_FALSE(list["metadata"].as_object()["resourceVersion"].as_string().empty());
  bool found = false;
  for (const auto& item : list["items"].as_array())
    found = found || item.as_object().at("metadata").as_object().at("name") == "proto-get";
  EXPECT_TRUE(found) << json::serialize(list);

  HttpResponse missing = call("GET", std::string(kConfigMaps) + "/nope");
  EXPECT_EQ(missing.status, 404);
  json::object status = decoded(missing);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["apiVersion"], "v1");
  EXPECT_EQ(status["status"], "Failure");
  EXPECT_EQ(status["reason"], "NotFound");
  EXPECT_EQ(status["code"], 404);
  EXPECT_EQ(status["message"], "configmaps \"nope\" not found");

  // Accept order decides: JSON first gets JSON.
  HttpResponse json_first = call("GET", std::string(kConfigMaps) + "/proto-get",
                                 {}, {{"Accept", "application/json, application/vnd.kubernetes.protobuf"}});
  EXPECT_EQ(json_first.header("Content-Type").value_or(""), "application/json");
  EXPECT_EQ(json_object(json_first.body)["kind"], "ConfigMap");
  // PartialObjectMetadata has a protobuf form; Table does not, so a protobuf Table request falls through to JSON.
  json::object partial = decoded(call("GET", std::string(kConfigMaps) + "/proto-get", {},
                                      {{"Accept", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}}));
  EXPECT_EQ(partial["kind"], "PartialObjectMetadata");
  EXPECT_EQ(partial["metadata"].as_object()["name"], "proto-get");
  HttpResponse table = call("GET", std::string(kConfigMaps) + "/proto-get", {},
                            {{"Accept", "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json"}});
  EXPECT_EQ(table.header("Content-Type").value_or(""), "application/json");
}

// Reads the watch cache serves (resourceVersion set) reuse each object version's protobuf message, kept with the
// cached object: the lists and objects built from it must be what the JSON says, and never outlive a change.
TEST_F(ProtobufTest, ProtobufReadsFromTheCacheMatchTheJsonAndFollowChanges) {
  for (int i = 0; i < 3; ++i) create_configmap("proto-cached-" + std::to_string(i), "v" + std::to_string(i));
  const std::string consistent_list = call("GET", kConfigMaps, {}, {{"Accept", "application/json"}}).body;
  const std::string revision(json_object(consistent_list)["metadata"].as_object()["resourceVersion"].as_string());
  const std::string cached_list = std::string(kConfigMaps) + "?resourceVersion=" + revision;

  // kapi's own controllers may write between two reads (the list's revision then moves on): the bytes are
  // compared with the second list's revision written as the first's.
  const HttpResponse first = call("GET", cached_list);
  HttpResponse second = call("GET", cached_list);
  ASSERT_EQ(first.status, 200) << first.body;
  json::object from_protobuf = decoded(first);
  json::object second_decoded = decoded(second);
  EXPECT_EQ(from_protobuf["items"], second_decoded["items"]);
  const std::string first_revision(list_revision(from_protobuf));
  const std::string second_revision(list_revision(second_decoded));
  if (std::size_t at = second.body.find(list_meta_revision(second_revision));
      second_revision != first_revision && second_revision.size() == first_revision.size() && at != std::string::npos)
    second.body.replace(at, first_revision.size() + 2, list_meta_revision(first_revision));
  EXPECT_EQ(first.body, second.body) << "the same objects give the same bytes";
  json::object from_json = json_object(call("GET", cached_list, {}, {{"Accept", "application/json"}}).body);
  EXPECT_EQ(from_protobuf["kind"], "ConfigMapList");
  from_protobuf["metadata"].as_object().erase("resourceVersion");
  from_json["metadata"].as_object().erase("resourceVersion");
  EXPECT_EQ(from_protobuf["metadata"], from_json["metadata"]);
  // Items carry no TypeMeta in either form, as kube writes them (kubernetes#3030).
  EXPECT_EQ(from_protobuf["items"], from_json["items"]);
  for (const auto& item : from_json["items"].as_array()) EXPECT_FALSE(item.as_object().contains("kind"));
  EXPECT_GE(from_protobuf["items"].as_array().size(), 3u);

  const std::string object = std::string(kConfigMaps) + "/proto-cached-1";
  json::object cached = decoded(call("GET", object + "?resourceVersion=0"));
  EXPECT_EQ(cached, json_object(call("GET", object + "?resourceVersion=0", {}, {{"Accept", "application/json"}}).body));
  EXPECT_EQ(cached["data"], (json::object{{"k", "v1"}}));

  const std::string change = R"({"data":{"k":"changed"}})";
  HttpResponse patched = call("PATCH", object, change, {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  const std::string changed_at(json_object(patched.body)["metadata"].as_object()["resourceVersion"].as_string());
  json::object after = decoded(call("GET", object + "?resourceVersion=" + changed_at));
  EXPECT_EQ(after["data"], (json::object{{"k", "changed"}}));
  EXPECT_EQ(after["metadata"].as_object()["resourceVersion"], json::value(changed_at));
  json::object list_after = decoded(call("GET", std::string(kConfigMaps) + "?resourceVersion=" + changed_at));
  bool seen = false;
  for (const auto& item : list_after["items"].as_array())
    if (item.as_object().at("metadata").as_object().at("name") == "proto-cached-1") {
      seen = true;
      EXPECT_EQ(item.as_object().at("data"), (json::object{{"k", "changed"}}));
    }
  EXPECT_TRUE(seen);
}

TEST_F(ProtobufTest, CreateUpdateAndDeleteWithProtobufBodies) {
  auto transcoder = ProtobufTest::transcoder();
  const Headers protobuf_headers{{"Content-Type", std::string(kProtobuf)}, {"Accept", std::string(kProtobuf)}};
  json::object configmap{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                         {"metadata", json::object{{"name", "proto-body"}}},
                         {"binaryData", json::object{{"bin", "AP8="}}}};
  HttpResponse created = call("POST", kConfigMaps, transcoder.encode(configmap), protobuf_headers);
  ASSERT_EQ(created.status, 201) << created.body;
  json::object stored = decoded(created);
  EXPECT_EQ(stored["binaryData"], (json::object{{"bin", "AP8="}}));

  stored["data"] = json::object{{"added", "yes"}};
  HttpResponse updated = call("PUT", std::string(kConfigMaps) + "/proto-body", transcoder.encode(stored), protobuf_headers);
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(decoded(updated)["data"], (json::object{{"added", "yes"}}));

  json::object options{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"propagationPolicy", "Background"}};
  HttpResponse deleted = call("DELETE", std::string(kConfigMaps) + "/proto-body", transcoder.encode(options), protobuf_headers);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  json::object success = decoded(deleted);
  EXPECT_EQ(success["kind"], "Status");
  EXPECT_EQ(success["status"], "Success");
  EXPECT_EQ(success["details"].as_object()["name"], "proto-body");
}

// The scale subresource answers with an autoscaling/v1 Scale, in protobuf when asked, as kube's ScaleREST does
// (client-go's scale client and the HPA controller read it so), and its PartialObjectMetadata likewise.
TEST_F(ProtobufTest, AScaleIsWrittenAsProtobufWhenAsked) {
  ASSERT_EQ(kubectl("create deployment proto-scaled --image=nginx --replicas=2").exit_code, 0);
  const std::string scale_path = "/apis/apps/v1/namespaces/default/deployments/proto-scaled/scale";
  json::object scale = decoded(call("GET", scale_path));
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["spec"], (json::object{{"replicas", 2}}));
  EXPECT_EQ(scale["status"], (json::object{{"replicas", 0}, {"selector", "app=proto-scaled"}}));

  json::object update{{"apiVersion", "autoscaling/v1"}, {"kind", "Scale"},
                      {"metadata", json::object{{"name", "proto-scaled"}, {"namespace", "default"}}},
                      {"spec", json::object{{"replicas", 5}}}};
  json::object updated = decoded(call("PUT", scale_path, transcoder().encode(update),
                                      {{"Content-Type", std::string(kProtobuf)}, {"Accept", std::string(kProtobuf)}}));
  EXPECT_EQ(updated["kind"], "Scale");
  EXPECT_EQ(updated["spec"], (json::object{{"replicas", 5}}));

  json::object partial = decoded(call("GET", scale_path, {},
                                      {{"Accept", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}}));
  EXPECT_EQ(partial["kind"], "PartialObjectMetadata");
  EXPECT_EQ(partial["metadata"].as_object()["name"], "proto-scaled");
}

TEST_F(ProtobufTest, MalformedProtobufBodiesAreBadRequests) {
  const Headers headers{{"Content-Type", std::string(kProtobuf)}};
  HttpResponse json_body = call("POST", kConfigMaps, R"({"kind":"ConfigMap"})", headers);
  EXPECT_TRUE(is_status(json_body, 400, "BadRequest"));
  EXPECT_EQ(status_message(json_body),
            "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a "
            "protobuf message, expected prefix [107 56 115 0] ({\"kind\":\"ConfigMap\"})");
  std::string good = transcoder().encode(
      json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", json::object{{"name", "cut"}}}});
  HttpResponse truncated = call("POST", kConfigMaps, good.substr(0, good.size() - 8), headers);
  EXPECT_TRUE(is_status(truncated, 400, "BadRequest"));
  HttpResponse unknown_kind =
      call("POST", kConfigMaps, schema::write_envelope({{"v1", "Gadget"}, ""}), headers);
  EXPECT_TRUE(is_status(unknown_kind, 400, "BadRequest"));
  EXPECT_EQ(status_message(unknown_kind),
            "Gadget in version \"v1\" cannot be handled as a ConfigMap: no kind \"Gadget\" is registered for version \"v1\"");
  HttpResponse other_kind = call("POST", kConfigMaps, schema::write_envelope({{"v1", "Secret"}, ""}), headers);
  EXPECT_TRUE(is_status(other_kind, 400, "BadRequest"));
  HttpResponse patch = call("PATCH", std::string(kConfigMaps) + "/cut", good, headers);
  EXPECT_TRUE(is_status(patch, 415, "UnsupportedMediaType"));
}

// Every built-in resource discovery lists as listable answers a list in protobuf: each kind and its list have a
// message. (apiextensions.k8s.io is another server's: kapi has no protobuf schema of CustomResourceDefinitions.)
TEST_F(ProtobufTest, EveryListableBuiltInResourceListsInProtobuf) {
  std::vector<std::string> group_versions{"v1"};
  json::object groups = json_object(call("GET", "/apis", {}, {{"Accept", "application/json"}}).body);
  for (const auto& group : groups["groups"].as_array())
    for (const auto& version : group.at("versions").as_array())
      if (group.at("name") != "apiextensions.k8s.io") group_versions.push_back(std::string(version.at("groupVersion").as_string()));
  int listed = 0;
  for (const auto& group_version : group_versions) {
    const std::string root = group_version == "v1" ? "/api/v1" : "/apis/" + group_version;
    json::object resources = json_object(call("GET", root, {}, {{"Accept", "application/json"}}).body);
    for (const auto& entry : resources["resources"].as_array()) {
      const json::object& resource = entry.as_object();
      const std::string name(resource.at("name").as_string());
      const auto& verbs = resource.at("verbs").as_array();
      if (name.find('/') != std::string::npos || std::find(verbs.begin(), verbs.end(), json::value("list")) == verbs.end())
        continue;
      HttpResponse list = call("GET", root + "/" + name);
      ASSERT_EQ(list.status, 200) << root << "/" << name << ": " << list.body;
      json::object decoded_list = decoded(list);
      EXPECT_EQ(decoded_list["kind"], json::value(std::string(resource.at("kind").as_string()) + "List"))
          << root << "/" << name;
      ++listed;
    }
  }
  EXPECT_GT(listed, 20);
}

TEST_F(ProtobufTest, WatchStreamsLengthPrefixedEvents) {
  json::object list = decoded(call("GET", std::string(kConfigMaps)));
  const std::string from(list["metadata"].as_object()["resourceVersion"].as_string());
  // client-go's reflectors ask so (not with ;stream=watch), and get the protobuf stream.
  HttpConnection watch = kapi().connect_admin();
  watch.send("GET " + std::string(kConfigMaps) + "?watch=true&timeoutSeconds=20&resourceVersion=" + from +
             " HTTP/1.1\r\nHost: kapi\r\nAccept: application/vnd.kubernetes.protobuf, application/json\r\n\r\n");
  HttpResponse head = watch.read_head();
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Type").value_or(""), "application/vnd.kubernetes.protobuf;stream=watch");
  create_configmap("proto-watched", "1");

  std::string buffer;
  std::optional<json::object> event;
  while (!event) {
    auto chunk = watch.read_chunk();
    ASSERT_TRUE(chunk) << "the stream ended before an event";
    buffer += *chunk;
    while (buffer.size() >= 4) {
      std::size_t size = 0;
      for (int i = 0; i < 4; ++i) size = (size << 8) | static_cast<unsigned char>(buffer[static_cast<std::size_t>(i)]);
      if (buffer.size() < 4 + size) break;
      json::object decoded_event = transcoder().decode_watch_event(std::string_view(buffer).substr(4, size));
      buffer.erase(0, 4 + size);
      const auto& object = decoded_event["object"].as_object();
      if (object.at("metadata").as_object().at("name") == "proto-watched") event = std::move(decoded_event);
    }
  }
  EXPECT_EQ((*event)["type"], "ADDED");
  const auto& object = (*event)["object"].as_object();
  EXPECT_EQ(object.at("kind"), "ConfigMap");
  EXPECT_EQ(object.at("data"), (json::object{{"k", "1"}}));
}

}  // namespace
}  // namespace kapi::integration::protobuf_test

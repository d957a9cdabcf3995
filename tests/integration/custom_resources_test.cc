// CustomResourceDefinitions end to end with the real kubectl and raw HTTP: a CRD applied, established and served
// live (discovery, OpenAPI, every verb, printer columns, short names, categories, scale and status subresources,
// validation, defaulting and pruning in kube's words), several versions with None conversion, name conflicts,
// refused CRDs, and deletion taking the custom resources with it. On both stores (see tests/meson.build).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/crd_setup.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <filesystem>
#include <regex>
#include <thread>

namespace kapi::integration::custom_resources_test {
namespace {

// A namespaced Widget with status and scale subresources, printer columns and a validated, defaulted schema.
constexpr std::string_view kWidgets = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Size
      type: string
      jsonPath: .spec.size
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Color
      type: string
      jsonPath: .spec.color
      priority: 1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            required: [size]
            properties:
              size:
                type: string
                description: How big the widget is.
                enum: [small, large]
              replicas:
                type: integer
                minimum: 0
                default: 1
              color:
                type: string
                default: blue
              name:
                type: string
                maxLength: 5
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
)";

constexpr std::string_view kWidget = R"(apiVersion: example.com/v1
kind: Widget
metadata:
  name: %NAME%
spec:
  size: small
)";

std::string widget(const std::string& name) {
  std::string text(kWidget);
  text.replace(text.find("%NAME%"), 6, name);
  return text;
}

class CustomResourcesTest : public KapiSuite<CustomResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body = {},
                       std::string content_type = "application/json",
                       std::vector<std::pair<std::string, std::string>> headers = {}) {
    if (!body.empty()) headers.emplace_back("Content-Type", content_type);
    return kapi().connect_admin().request(method, target, headers, body);
  }
  // Applies a CRD manifest and waits until it is established (and so served).
  void establish(const std::string& file, std::string_view manifest, const std::string& name) {
    CommandResult installed = apply_crd_and_wait(kapi(), file, std::string(manifest), name);
    ASSERT_EQ(installed.exit_code, 0) << installed.output;
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(CustomResourcesTest, KubectlServesWidgetsOnceTheirDefinitionIsEstablished) {
  establish("widgets-crd.yaml", kWidgets, "widgets.example.com");
  EXPECT_EQ(kubectl("get crd widgets.example.com -o 'jsonpath={.status.conditions[?(@.type==\"NamesAccepted\")].reason}'")
                .output,
            "NoConflicts");
  EXPECT_EQ(kubectl("get crd widgets.example.com -o jsonpath={.status.acceptedNames.kind}/{.status.storedVersions}")
                .output,
            "Widget/[\"v1\"]");
  CommandResult resources = kubectl("api-resources --api-group=example.com");
  EXPECT_NE(resources.output.find("widgets   wd           example.com/v1   true         Widget"), std::string::npos)
      << resources.output;

  // kubectl validates on the server (fieldValidation=Strict): an unknown field is refused as kube refuses it.
  const std::string manifest = write_manifest(kapi(), "w1.yaml", widget("w1") + "  extra: 1\n");
  CommandResult strict = kubectl("apply -f " + manifest);
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_NE(strict.output.find("Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: "
                               "unknown field \"spec.extra\""),
            std::string::npos)
      << strict.output;
  // With validation off the unknown field is pruned, and the schema's defaults are filled in.
  ASSERT_EQ(kubectl("apply --validate=false -f " + manifest).output, "widget.example.com/w1 created\n");
  EXPECT_EQ(kubectl("get widget w1 -o jsonpath={.spec}").output, R"({"color":"blue","replicas":1,"size":"small"})");
  EXPECT_EQ(kubectl("get wd w1 -o jsonpath={.metadata.generation}").output, "1");

  CommandResult listed = kubectl("get widgets");
  EXPECT_EQ(listed.output.substr(0, listed.output.find('\n')), "NAME   SIZE    REPLICAS") << listed.output;
  EXPECT_EQ(listed.output.find("w1     small   1"), listed.output.find('\n') + 1) << listed.output;
  CommandResult wide = kubectl("get widgets -o wide");
  EXPECT_EQ(wide.output.substr(0, wide.output.find('\n')), "NAME   SIZE    REPLICAS   COLOR") << wide.output;
  CommandResult all = kubectl("get all");
  EXPECT_NE(all.output.find("widget.example.com/w1   small   1"), std::string::npos) << all.output;

  // Validation failures are 422s with the schema's field paths.
  CommandResult invalid = kubectl("patch widget w1 --type=merge -p '{\"spec\":{\"size\":\"huge\",\"name\":\"toolong\"}}'");
  EXPECT_NE(invalid.exit_code, 0);
  // (kube lists the causes in Go's map order, which varies.)
  EXPECT_NE(invalid.output.find("The Widget \"w1\" is invalid: \n* "), std::string::npos) << invalid.output;
  EXPECT_NE(invalid.output.find("* spec.size: Unsupported value: \"huge\": supported values: \"small\", \"large\"\n"),
            std::string::npos)
      << invalid.output;
  EXPECT_NE(invalid.output.find("* spec.name: Too long: may not be more than 5 bytes\n"), std::string::npos)
      << invalid.output;
  // Custom resources take JSON and merge patches; a strategic merge patch is refused, as kube refuses it.
  EXPECT_EQ(kubectl("patch widget w1 --type=merge -p '{\"spec\":{\"size\":\"large\"}}'").output,
            "widget.example.com/w1 patched\n");
  EXPECT_EQ(kubectl("patch widget w1 --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/color\",\"value\":\"red\"}]'")
                .output,
            "widget.example.com/w1 patched\n");
  CommandResult strategic = kubectl("patch widget w1 -p '{\"spec\":{\"size\":\"small\"}}'");
  EXPECT_NE(strategic.exit_code, 0);
  EXPECT_NE(strategic.output.find("application/strategic-merge-patch+json is not supported by example.com/v1, "
                                  "Kind=Widget: the body of the request was in an unknown format - accepted media "
                                  "types include: application/json-patch+json, application/merge-patch+json"),
            std::string::npos)
      << strategic.output;
  EXPECT_EQ(kubectl("get widget w1 -o jsonpath={.spec.size}/{.spec.color}/{.metadata.generation}").output, "large/red/3");

  // Scale reads and writes the CRD's scale paths.
  EXPECT_EQ(kubectl("scale widget w1 --replicas=4").output, "widget.example.com/w1 scaled\n");
  EXPECT_EQ(kubectl("get widget w1 -o jsonpath={.spec.replicas}").output, "4");
  CommandResult scale = kubectl("get --raw /apis/example.com/v1/namespaces/default/widgets/w1/scale");
  EXPECT_NE(scale.output.find(R"("spec":{"replicas":4},"status":{"replicas":0})"), std::string::npos) << scale.output;
  // Its Table has the CRD's columns, read from the Scale (kube's scaleREST converts with the resource's table
  // convertor): Size and Color are not in a Scale.
  HttpResponse scale_table = request("GET", "/apis/example.com/v1/namespaces/default/widgets/w1/scale", {}, "",
                                     {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(scale_table.status, 200) << scale_table.body;
  boost::json::object table = json_object(scale_table.body);
  boost::json::array names;
  for (const auto& column : table["columnDefinitions"].as_array()) names.push_back(column.as_object().at("name"));
  EXPECT_EQ(names, (boost::json::array{"Name", "Size", "Replicas", "Color"})) << scale_table.body;
  EXPECT_EQ(table["rows"].as_array().at(0).as_object().at("cells"), (boost::json::array{"w1", nullptr, 4, nullptr}))
      << scale_table.body;
  // A Scale is a built-in kind: unlike the custom resource itself, it is served in protobuf when asked.
  HttpResponse scale_protobuf = request("GET", "/apis/example.com/v1/namespaces/default/widgets/w1/scale", {}, "",
                                        {{"Accept", "application/vnd.kubernetes.protobuf"}});
  EXPECT_EQ(scale_protobuf.status, 200);
  EXPECT_EQ(scale_protobuf.header("Content-Type").value_or(""), "application/vnd.kubernetes.protobuf");
  EXPECT_TRUE(scale_protobuf.body.starts_with(std::string_view("k8s\0\n\x17\n\x0e" "autoscaling/v1", 22))) << scale_protobuf.body;

  // Status is written through /status only, and the scale's status follows it.
  kubectl("patch widget w1 --type=merge -p '{\"status\":{\"replicas\":9}}'");
  EXPECT_EQ(kubectl("get widget w1 -o jsonpath={.status}").output, "");
  kubectl("patch widget w1 --subresource=status --type=merge "
          "-p '{\"status\":{\"replicas\":2,\"selector\":\"app=w\"},\"spec\":{\"replicas\":7}}'");
  EXPECT_EQ(kubectl("get widget w1 -o jsonpath={.status.replicas}/{.spec.replicas}").output, "2/4");
  scale = kubectl("get --raw /apis/example.com/v1/namespaces/default/widgets/w1/scale");
  EXPECT_NE(scale.output.find(R"("status":{"replicas":2,"selector":"app=w"})"), std::string::npos) << scale.output;

  CommandResult explained = kubectl("explain widget.spec");
  EXPECT_NE(explained.output.find("KIND:       Widget"), std::string::npos) << explained.output;
  EXPECT_NE(explained.output.find("What the widget should be."), std::string::npos) << explained.output;
  EXPECT_NE(explained.output.find("size\t<string> -required-"), std::string::npos) << explained.output;
}

// kube decodes a CRD into apiextensions' Go structs: a value of the wrong type is refused with encoding/json's
// error, and an unknown field below items (decoded by its own unmarshaler, not strictly) is dropped unreported.
TEST_F(CustomResourcesTest, DefinitionsAreDecodedAsKubeDecodesApiextensionsTypes) {
  auto definition = [](const std::string& property) {
    return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
           "  name: typos.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n"
           "  names: {plural: typos, kind: Typo}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
           "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n" + property;
  };
  const std::string bad = write_manifest(kapi(), "typos-bad.yaml",
                                         definition("          name: {type: string, maxLength: \"3\"}\n"));
  CommandResult refused = kubectl("create -f " + bad);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("Error from server (BadRequest): error when creating \"" + bad +
                                "\": CustomResourceDefinition in version \"v1\" cannot be handled as a "
                                "CustomResourceDefinition: json: cannot unmarshal string into Go struct field "
                                "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type int64"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(kubectl("get crd typos.example.com").exit_code, 0) << "nothing was stored";

  const std::string good = write_manifest(
      kapi(), "typos-good.yaml",
      definition("          tags: {type: array, items: {type: string, maxLenght: 3}}\n"));
  CommandResult created = kubectl("create -f " + good);
  ASSERT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(created.output, "customresourcedefinition.apiextensions.k8s.io/typos.example.com created\n");
  EXPECT_EQ(kubectl("get crd typos.example.com -o "
                    "jsonpath={.spec.versions[0].schema.openAPIV3Schema.properties.tags.items}")
                .output,
            R"({"type":"string"})");
  EXPECT_EQ(kubectl("delete crd typos.example.com").exit_code, 0);
}

// kube decodes a custom resource's metadata into metav1.ObjectMeta on its own (GetObjectMetaWithOptions): a field
// of the wrong type is refused, named from ObjectMeta's root, and unknown ones are dropped with a warning.
TEST_F(CustomResourcesTest, CustomResourceMetadataIsDecodedAsObjectMeta) {
  establish("widgets-crd.yaml", kWidgets, "widgets.example.com");
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  auto body = [](const std::string& metadata) {
    return R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":)" + metadata + R"(,"spec":{"size":"small"}})";
  };
  HttpResponse refused = request("POST", widgets, body(R"({"name":"typed","labels":{"tier":5}})"));
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("Widget in version \\\"v1\\\" cannot be handled as a Widget: json: cannot unmarshal number "
                              "into Go struct field ObjectMeta.labels of type string"),
            std::string::npos)
      << refused.body;
  EXPECT_EQ(request("GET", widgets + "/typed").status, 404) << "nothing was stored";

  HttpResponse created = request("POST", widgets, body(R"({"name":"typed","bogus":1,"annotations":{"a":null}})"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_NE(created.header("Warning").value_or("").find(R"(unknown field \"metadata.bogus\")"), std::string::npos);
  const boost::json::object stored = boost::json::parse(request("GET", widgets + "/typed").body).as_object();
  EXPECT_FALSE(stored.at("metadata").as_object().contains("bogus"));
  EXPECT_EQ(stored.at("metadata").at("annotations"), boost::json::parse(R"({"a":""})"));
  EXPECT_EQ(request("DELETE", widgets + "/typed").status, 200);
}

TEST_F(CustomResourcesTest, WatchesFollowCustomResources) {
  establish("gadgets-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
)", "gadgets.example.com");
  HttpResponse created = request("POST", "/apis/example.com/v1/gadgets",
                                 R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"x":1})");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string version(json_object(created.body)["metadata"].as_object()["resourceVersion"].as_string());

  HttpConnection watch = kapi().connect_admin();
  watch.send("GET /apis/example.com/v1/gadgets?watch=1&resourceVersion=" + version +
             " HTTP/1.1\r\nHost: kapi\r\n\r\n");
  HttpResponse head = watch.read_head();
  ASSERT_EQ(head.status, 200);
  HttpResponse updated = request("PATCH", "/apis/example.com/v1/gadgets/g1", R"({"x":2})",
                                 "application/merge-patch+json");
  ASSERT_EQ(updated.status, 200) << updated.body;
  ASSERT_EQ(request("DELETE", "/apis/example.com/v1/gadgets/g1").status, 200);
  std::string events;
  while (events.find("DELETED") == std::string::npos) {
    std::optional<std::string> chunk = watch.read_chunk();
    if (!chunk) break;
    events += *chunk;
  }
  EXPECT_NE(events.find(R"({"type":"MODIFIED","object":{"kind":"Gadget","apiVersion":"example.com/v1")"),
            std::string::npos)
      << events;
  EXPECT_NE(events.find(R"("x":2)"), std::string::npos) << events;
  EXPECT_NE(events.find(R"({"type":"DELETED")"), std::string::npos) << events;
  // kubectl's watch prints them as they come, with the default Age column of a CRD without printer columns.
  CommandResult watched;
  std::thread watcher([&] { watched = run_kubectl(kapi(), "get gadgets -w --output-watch-events", 6); });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // kubectl has listed and is watching
  EXPECT_EQ(request("POST", "/apis/example.com/v1/gadgets",
                    R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g2"}})")
                .status,
            201);
  EXPECT_EQ(request("DELETE", "/apis/example.com/v1/gadgets/g2").status, 200);
  watcher.join();
  EXPECT_EQ(watched.exit_code, 124) << "ended by the test's time bound\n" << watched.output;
  const std::regex lines("EVENT +NAME +AGE\nADDED +g2 +[0-9]s\nDELETED +g2 +[0-9]s\n");
  EXPECT_TRUE(std::regex_match(watched.output, lines)) << watched.output;

  // The cluster-scoped kind answers on its cluster path only.
  EXPECT_TRUE(is_status(request("GET", "/apis/example.com/v1/namespaces/default/gadgets"), 404, "NotFound"));
}

TEST_F(CustomResourcesTest, DiscoveryAndOpenApiFollowDefinitions) {
  establish("things-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.stuff.example.org
spec:
  group: stuff.example.org
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing, shortNames: [th]}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
)", "things.stuff.example.org");
  auto groups = json_object(request("GET", "/apis").body);
  bool found = false;
  for (const auto& group : groups["groups"].as_array()) {
    const auto& object = group.as_object();
    if (object.at("name").as_string() != "stuff.example.org") continue;
    found = true;
    EXPECT_EQ(boost::json::serialize(object.at("versions")),
              R"([{"groupVersion":"stuff.example.org/v1","version":"v1"},)"
              R"({"groupVersion":"stuff.example.org/v1beta1","version":"v1beta1"}])");
    EXPECT_EQ(object.at("preferredVersion").as_object().at("version").as_string(), "v1");
  }
  EXPECT_TRUE(found) << boost::json::serialize(groups);
  HttpResponse group = request("GET", "/apis/stuff.example.org");
  EXPECT_EQ(group.status, 200);
  EXPECT_NE(group.body.find(R"("kind":"APIGroup")"), std::string::npos) << group.body;
  HttpResponse resources = request("GET", "/apis/stuff.example.org/v1");
  EXPECT_NE(resources.body.find(R"("name":"things","singularName":"thing","namespaced":true,"kind":"Thing")"),
            std::string::npos)
      << resources.body;
  HttpResponse aggregated = request("GET", "/apis", {}, "",
                                    {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  EXPECT_NE(aggregated.body.find(R"("name":"stuff.example.org")"), std::string::npos) << aggregated.body;
  EXPECT_NE(aggregated.body.find(R"("name":"apiextensions.k8s.io")"), std::string::npos) << aggregated.body;
  HttpResponse openapi = request("GET", "/openapi/v3");
  EXPECT_NE(openapi.body.find(R"("apis/stuff.example.org/v1")"), std::string::npos) << openapi.body;
  EXPECT_NE(openapi.body.find(R"("apis/apiextensions.k8s.io/v1")"), std::string::npos) << openapi.body;
  HttpResponse document = request("GET", "/openapi/v3/apis/stuff.example.org/v1");
  EXPECT_NE(document.body.find(R"("org.example.stuff.v1.Thing")"), std::string::npos) << document.body;

  // Several versions, None conversion: one object, each version's apiVersion, stored in the storage version.
  HttpResponse created = request("POST", "/apis/stuff.example.org/v1beta1/namespaces/default/things",
                                 R"({"apiVersion":"stuff.example.org/v1beta1","kind":"Thing","metadata":{"name":"t"},)"
                                 R"("spec":{"a":1}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["apiVersion"].as_string(), "stuff.example.org/v1beta1");
  EXPECT_EQ(kubectl("get things.v1.stuff.example.org t -o jsonpath={.apiVersion}/{.spec.a}").output,
            "stuff.example.org/v1/1");
  EXPECT_EQ(kubectl("get things.v1beta1.stuff.example.org t -o jsonpath={.apiVersion}").output,
            "stuff.example.org/v1beta1");
  HttpResponse listed = request("GET", "/apis/stuff.example.org/v1/things");
  EXPECT_NE(listed.body.find(R"("kind":"ThingList","apiVersion":"stuff.example.org/v1")"), std::string::npos)
      << listed.body;
  EXPECT_NE(listed.body.find(R"({"kind":"Thing","apiVersion":"stuff.example.org/v1")"), std::string::npos)
      << listed.body;

  // Deleting the definition stops the serving: discovery, OpenAPI and the resource paths forget the group.
  CommandResult deleted = kubectl("delete crd things.stuff.example.org");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(is_status(request("GET", "/apis/stuff.example.org/v1/things"), 404, "NotFound"));
  EXPECT_EQ(request("GET", "/apis").body.find("stuff.example.org"), std::string::npos);
  EXPECT_EQ(request("GET", "/openapi/v3").body.find("stuff.example.org"), std::string::npos);
}

TEST_F(CustomResourcesTest, DeletingADefinitionDeletesItsResourcesFirst) {
  establish("tools-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: tools.example.net
spec:
  group: example.net
  scope: Namespaced
  names: {plural: tools, singular: tool, kind: Tool}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)", "tools.example.net");
  ASSERT_EQ(kubectl("create namespace shed").exit_code, 0);
  for (const char* target : {"/apis/example.net/v1/namespaces/default/tools", "/apis/example.net/v1/namespaces/shed/tools"})
    ASSERT_EQ(request("POST", target, R"({"apiVersion":"example.net/v1","kind":"Tool","metadata":{"name":"a"}})").status,
              201);
  // One tool is held by a finalizer of its own: the definition waits for it, terminating.
  ASSERT_EQ(request("POST", "/apis/example.net/v1/namespaces/default/tools",
                    R"({"apiVersion":"example.net/v1","kind":"Tool","metadata":{"name":"held","finalizers":["example.net/hold"]}})")
                .status,
            201);
  ASSERT_EQ(kubectl("delete crd tools.example.net --wait=false").exit_code, 0);
  std::string reason;
  for (int i = 0; i < 100 && reason != "InstanceDeletionInProgress"; ++i) {
    reason = kubectl("get crd tools.example.net -o "
                     "'jsonpath={.status.conditions[?(@.type==\"Terminating\")].reason}'")
                 .output;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(reason, "InstanceDeletionInProgress");
  EXPECT_EQ(kubectl("get tools -A -o name").output, "tool.example.net/held\n");
  HttpResponse refused = request("POST", "/apis/example.net/v1/namespaces/default/tools",
                                 R"({"apiVersion":"example.net/v1","kind":"Tool","metadata":{"name":"late"}})");
  EXPECT_TRUE(is_status(refused, 405, "MethodNotAllowed")) << refused.body;
  EXPECT_NE(refused.body.find("create not allowed while custom resource definition is terminating"), std::string::npos);

  ASSERT_EQ(request("PATCH", "/apis/example.net/v1/namespaces/default/tools/held", R"({"metadata":{"finalizers":null}})",
                    "application/merge-patch+json")
                .status,
            200);
  CommandResult gone = kubectl("wait --for=delete crd/tools.example.net --timeout=20s");
  EXPECT_EQ(gone.exit_code, 0) << gone.output;
  EXPECT_TRUE(is_status(request("GET", "/apis/example.net/v1/tools"), 404, "NotFound"));
}

TEST_F(CustomResourcesTest, NamespaceDeletionTakesItsCustomResources) {
  establish("boxes-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: boxes.example.io
spec:
  group: example.io
  scope: Namespaced
  names: {plural: boxes, singular: box, kind: Box}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)", "boxes.example.io");
  ASSERT_EQ(kubectl("create namespace crate").exit_code, 0);
  ASSERT_EQ(request("POST", "/apis/example.io/v1/namespaces/crate/boxes",
                    R"({"apiVersion":"example.io/v1","kind":"Box","metadata":{"name":"b"}})")
                .status,
            201);
  CommandResult deleted = kubectl("delete namespace crate --timeout=30s");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_EQ(kubectl("get boxes -A -o name").output, "");
  // A namespace that does not exist takes no custom resources.
  EXPECT_TRUE(is_status(request("POST", "/apis/example.io/v1/namespaces/nowhere/boxes",
                                R"({"apiVersion":"example.io/v1","kind":"Box","metadata":{"name":"b"}})"),
                        404, "NotFound"));
}

TEST_F(CustomResourcesTest, DefinitionsAreValidatedAndNamedAsKubeDoes) {
  // A name that is not <plural>.<group>, and webhook conversion (which kapi does not do), are refused.
  HttpResponse misnamed = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                  R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
                                  R"("metadata":{"name":"wrong.example.com"},"spec":{"group":"example.com",)"
                                  R"("scope":"Namespaced","names":{"plural":"cogs","kind":"Cog"},)"
                                  R"("versions":[{"name":"v1","served":true,"storage":true,)"
                                  R"("schema":{"openAPIV3Schema":{"type":"object"}}}]}})");
  EXPECT_TRUE(is_status(misnamed, 422, "Invalid")) << misnamed.body;
  EXPECT_NE(misnamed.body.find(R"(metadata.name: Invalid value: \"wrong.example.com\": must be spec.names.plural+\".\"+spec.group)"),
            std::string::npos)
      << misnamed.body;
  HttpResponse webhook = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                 R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
                                 R"("metadata":{"name":"cogs.example.com"},"spec":{"group":"example.com",)"
                                 R"("scope":"Namespaced","names":{"plural":"cogs","kind":"Cog"},)"
                                 R"("conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],)"
                                 R"("clientConfig":{"url":"https://conv.example.com"}}},)"
                                 R"("versions":[{"name":"v1","served":true,"storage":true,)"
                                 R"("schema":{"openAPIV3Schema":{"type":"object"}}}]}})");
  EXPECT_TRUE(is_status(webhook, 422, "Invalid")) << webhook.body;
  EXPECT_NE(webhook.body.find("spec.conversion.strategy"), std::string::npos) << webhook.body;

  // Unknown fields of a CRD are dropped and reported as kube's decoder reports them; its schema is kept as written.
  const std::string typo = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
                           R"("metadata":{"name":"nuts.example.com"},"spec":{"group":"example.com","scoop":"x",)"
                           R"("scope":"Namespaced","names":{"plural":"nuts","kind":"Nut"},)"
                           R"("versions":[{"name":"v1","served":true,"storage":true,)"
                           R"("schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
  HttpResponse strict = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict",
                                typo);
  EXPECT_TRUE(is_status(strict, 400, "BadRequest")) << strict.body;
  EXPECT_NE(strict.body.find(R"(CustomResourceDefinition in version \"v1\" cannot be handled as a )"
                             R"(CustomResourceDefinition: strict decoding error: unknown field \"spec.scoop\")"),
            std::string::npos)
      << strict.body;
  HttpResponse warned = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", typo);
  EXPECT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warned.header("Warning").value_or(""), R"(299 - "unknown field \"spec.scoop\"")");
  EXPECT_EQ(warned.body.find("scoop"), std::string::npos) << warned.body;
  EXPECT_NE(warned.body.find(R"("x-kubernetes-preserve-unknown-fields":true)"), std::string::npos) << warned.body;

  // CEL rules are enforced: no Warning header any more (CustomResourceRulesTest covers them).
  CommandResult cel = kubectl("create -f " + write_manifest(kapi(), "cogs-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: cogs.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: cogs, singular: cog, kind: Cog}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.metadata.name.size() < 10"
)"));
  ASSERT_EQ(cel.exit_code, 0) << cel.output;
  EXPECT_EQ(cel.output, "customresourcedefinition.apiextensions.k8s.io/cogs.example.com created\n");
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=20s crd/cogs.example.com").exit_code, 0);

  // A second definition of the group that wants a taken kind is stored, but its names are not accepted.
  CommandResult clash = kubectl("apply -f " + write_manifest(kapi(), "cogwheels-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: cogwheels.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: cogwheels, singular: cogwheel, kind: Cog}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
)"));
  ASSERT_EQ(clash.exit_code, 0) << clash.output;
  std::string conditions;
  for (int i = 0; i < 100 && conditions.find("False") == std::string::npos; ++i) {
    conditions = kubectl("get crd cogwheels.example.com -o 'jsonpath={range .status.conditions[*]}{.type}={.status}:"
                         "{.reason}:{.message};{end}'")
                     .output;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(conditions.find("NamesAccepted=False:KindConflict:\"Cog\" is already in use;"), std::string::npos)
      << conditions;
  EXPECT_NE(conditions.find("Established=False:NotAccepted:not all names are accepted;"), std::string::npos)
      << conditions;
  EXPECT_TRUE(is_status(request("GET", "/apis/example.com/v1/namespaces/default/cogwheels"), 404, "NotFound"));
}

// Killed and started again on the same data, kapi serves the custom resources as soon as it is ready.
TEST(CustomResourcesRestartTest, DefinitionsAndResourcesSurviveAKill) {
  test_support::TempDir data("kapi-crd-restart");
  KapiOptions options;
  options.data_dir = data.path() / "data";
  std::unique_ptr<test_support::EtcdProcess> etcd;
  if (const char* store = std::getenv("KAPI_TEST_STORE"); store && std::string_view(store) == "etcd") {
    etcd = std::make_unique<test_support::EtcdProcess>();
    options.extra_flags.push_back("--etcd-servers=" + etcd->endpoint());
  }
  const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
                          R"("metadata":{"name":"lamps.example.com"},"spec":{"group":"example.com","scope":"Cluster",)"
                          R"("names":{"plural":"lamps","kind":"Lamp"},"versions":[{"name":"v1","served":true,)"
                          R"("storage":true,"schema":{"openAPIV3Schema":{"type":"object",)"
                          R"("x-kubernetes-preserve-unknown-fields":true}}}]}})";
  const std::vector<std::pair<std::string, std::string>> json{{"Content-Type", "application/json"}};
  {
    KapiProcess first(options);
    ASSERT_EQ(first.connect_admin().request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json, crd)
                  .status,
              201);
    CommandResult waited = run_kubectl(first, "wait --for=condition=Established --timeout=20s crd/lamps.example.com");
    ASSERT_EQ(waited.exit_code, 0) << waited.output;
    HttpResponse created = first.connect_admin().request(
        "POST", "/apis/example.com/v1/lamps", json, R"({"apiVersion":"example.com/v1","kind":"Lamp","metadata":{"name":"l"},"on":true})");
    ASSERT_EQ(created.status, 201) << created.body;
    first.kill();
  }
  KapiProcess second(options);  // ready: the stored CRDs are served
  HttpResponse read = second.connect_admin().request("GET", "/apis/example.com/v1/lamps/l");
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_NE(read.body.find(R"("on":true)"), std::string::npos) << read.body;
}

}  // namespace
}  // namespace kapi::integration::custom_resources_test

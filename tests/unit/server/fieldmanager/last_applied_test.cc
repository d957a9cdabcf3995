// kube's lastappliedmanager_test.go and lastappliedupdater_test.go: client-side apply → server-side apply.
#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace kapi::fieldmanager::last_applied_test {
namespace {

using namespace testing;
namespace sm = structured_merge;

// apiequality.Semantic.DeepDerivative: every member `expected` sets is in `actual` with the same value.
bool derivative(const json::value& expected, const json::value& actual) {
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    for (const auto& [key, value] : expected.get_object()) {
      const auto* other = actual.get_object().if_contains(key);
      if (!other || !derivative(value, *other)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.get_array().size() != expected.get_array().size()) return false;
    for (std::size_t i = 0; i < expected.get_array().size(); ++i) {
      if (!derivative(expected.get_array()[i], actual.get_array()[i])) return false;
    }
    return true;
  }
  return expected == actual;
}

struct ConflictCase {
  const char* name;
  std::optional<const char*> last_applied;  // the original when absent
  const char* original;
  const char* applied;
  std::string field_manager = "kubectl";
  std::vector<sm::Path> expected_conflicts = {};
};

void test_conflicts(TestFieldManager& f, const ConflictCase& test) {
  SCOPED_TRACE(test.name);
  f.reset();
  json::object original = object_from_yaml(test.original);
  std::string last_applied =
      json::serialize(object_from_yaml(test.last_applied ? *test.last_applied : test.original));
  if (test.last_applied && std::string_view(*test.last_applied).empty()) last_applied.clear();
  original["metadata"].as_object()["annotations"] =
      json::object{{internal::kLastAppliedConfigAnnotation, last_applied}};
  f.update(original, "test_client_side_apply");

  json::object applied = object_from_yaml(test.applied);
  if (test.expected_conflicts.empty()) {
    f.apply(applied, test.field_manager, false);
  } else {
    auto status = api_error([&] { f.apply(applied, test.field_manager, false); });
    ASSERT_TRUE(status);
    std::vector<sm::Conflict> expected;
    for (const auto& path : test.expected_conflicts) {
      expected.push_back({R"({"manager":"test_client_side_apply","operation":"Update","apiVersion":")" +
                              f.api_version() + R"("})",
                          path});
    }
    apierrors::Status expected_status = internal::conflict_error(expected);
    EXPECT_EQ(status->code, 409);
    EXPECT_EQ(status->message, expected_status.message);
    ASSERT_TRUE(status->details);
    ASSERT_EQ(status->details->causes.size(), expected_status.details->causes.size());
    for (std::size_t i = 0; i < expected_status.details->causes.size(); ++i) {
      EXPECT_EQ(status->details->causes[i].field, expected_status.details->causes[i].field);
      EXPECT_EQ(status->details->causes[i].message, expected_status.details->causes[i].message);
    }
    // Yet force resolves them all.
    f.apply(applied, test.field_manager, true);
  }
  EXPECT_TRUE(derivative(applied, f.live())) << json::serialize(f.live());
}

sm::Path fields(std::initializer_list<const char*> names) {
  sm::Path path;
  for (const char* name : names) path.push_back(sm::PathElement::field(name));
  return path;
}
sm::Path container_image(const char* container) {
  sm::Path path = fields({"spec", "template", "spec", "containers"});
  path.push_back(sm::PathElement::key({{"name", container}}));
  path.push_back(sm::PathElement::field("image"));
  return path;
}

const char* const kMyApp = R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-app
spec:
  replicas: 3
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image
)";

TEST(LastAppliedManager, ApplyUsingLastAppliedAnnotation) {
  TestFieldManager f("apps/v1", "Deployment");
  const ConflictCase cases[] = {
      {"fields not allowed by last-applied",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 3
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image-v1
      - name: my-c2
        image: my-image2
)",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-app
spec:
  replicas: 100
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image-v2
)",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-new-label
spec:
  replicas: 333
  selector:
    matchLabels:
      app: my-new-label
  template:
    metadata:
      labels:
        app: my-new-label
    spec:
      containers:
      - name: my-c
        image: my-image-new
)",
       "kubectl",
       {fields({"metadata", "labels", "app"}), fields({"spec", "replicas"}), container_image("my-c")}},
      {"applied object matches original", std::nullopt, kMyApp, kMyApp},
      {"allowed update with no conflicts", std::nullopt, kMyApp,
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-new-label
spec:
  replicas: 333
  selector:
    matchLabels:
      app: my-new-label
  template:
    metadata:
      labels:
        app: my-new-label
    spec:
      containers:
      - name: my-c
        image: my-image
)"},
      {"conflicts because the field manager is not kubectl", std::nullopt, kMyApp,
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-new-label
spec:
  replicas: 333
  selector:
    matchLabels:
      app: my-new-label
  template:
    metadata:
      labels:
        app: my-new-label
    spec:
      containers:
      - name: my-c
        image: my-image-new
)",
       "not_kubectl",
       {fields({"metadata", "labels", "app"}), fields({"spec", "replicas"}), fields({"spec", "selector"}),
        fields({"spec", "template", "metadata", "labels", "app"}), container_image("my-c")}},
      {"last-applied of another apiVersion",
       R"(
apiVersion: extensions/v1beta1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 3
)",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 3
)",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 100
)",
       "kubectl", {fields({"spec", "replicas"})}},
      {"invalid last-applied", "apiVersion: foo\nkind: bar\nspec: expect conflict due to invalid object\n",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 3
)",
       R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  replicas: 100
)",
       "kubectl", {fields({"spec", "replicas"})}},
  };
  for (const auto& test : cases) test_conflicts(f, test);
}

TEST(LastAppliedManager, EmptyLastAppliedGivesConflicts) {
  TestFieldManager f("apps/v1", "Deployment");
  f.update(object_from_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: ""
spec:
  replicas: 3
)"),
           "test_client_side_apply");
  auto status = api_error([&] {
    f.apply(object_from_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n"
                             "spec:\n  replicas: 100\n"),
            "kubectl", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->message,
            R"(Apply failed with 1 conflict: conflict with "test_client_side_apply" using apps/v1: .spec.replicas)");
}

TEST(LastAppliedUpdater, KubectlApplyKeepsTheAnnotationInStep) {
  TestFieldManager f("v1", "ConfigMap");
  f.update(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{
      "kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"cm\"}}\n"}},
      "data":{"a":"1"}})"),
           "kubectl-client-side-apply");
  f.apply(object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","labels":{"x":"<y>"}},
      "data":{"b":"2","a":"1"}})"),
          "kubectl", false);
  const auto& annotations = f.live().at("metadata").at("annotations").as_object();
  EXPECT_EQ(annotations.at(internal::kLastAppliedConfigAnnotation),
            "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"kind\":\"ConfigMap\",\"metadata\":"
            "{\"labels\":{\"x\":\"\\u003cy\\u003e\"},\"name\":\"cm\"}}\n");
}

TEST(LastAppliedUpdater, OtherManagersAndObjectsWithoutTheAnnotationAreLeftAlone) {
  TestFieldManager f("v1", "ConfigMap");
  f.apply(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})"),
          "kubectl", false);
  EXPECT_FALSE(f.live().at("metadata").as_object().contains("annotations"));

  f.reset();
  f.update(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{
      "kubectl.kubernetes.io/last-applied-configuration":"old"}},"data":{"a":"1"}})"),
           "kubectl-client-side-apply");
  f.apply(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})"),
          "helm", false);
  EXPECT_EQ(f.live().at("metadata").at("annotations").at(internal::kLastAppliedConfigAnnotation), "old");
}

TEST(LastAppliedUpdater, AnnotationDroppedPastTheSizeLimit) {
  TestFieldManager f("v1", "ConfigMap");
  f.update(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{
      "kubectl.kubernetes.io/last-applied-configuration":"old"}}})"),
           "kubectl-client-side-apply");
  json::object config = object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}})");
  config["data"] = json::object{{"big", std::string(256 * 1024, 'x')}};
  f.apply(config, "kubectl", false);
  EXPECT_EQ(f.live().at("metadata").at("annotations"), json::object());
}

}  // namespace
}  // namespace kapi::fieldmanager::last_applied_test

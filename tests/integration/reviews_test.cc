// The reviews against a running kapi with --authorization-mode=RBAC: `kubectl auth whoami` (SelfSubjectReview),
// `kubectl auth can-i` and `can-i --list` (SelfSubjectAccessReview, SelfSubjectRulesReview, sent as protobuf),
// SubjectAccessReview and LocalSubjectAccessReview as a webhook or an aggregated server posts them, their
// validation errors, and how discovery and the REST paths present resources that only create.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <boost/json.hpp>

#include <thread>

namespace kapi::integration::reviews_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The value at `path` in `value` (Boost 1.74 has no JSON pointers).
const json::value& field(const json::value& value, std::initializer_list<std::string_view> path) {
  const json::value* at = &value;
  for (std::string_view key : path) at = &at->as_object().at(key);
  return *at;
}

class ReviewsTest : public KapiSuite<ReviewsTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("reviews", "jane-token,jane,1001,devs\nbob-token,bob,1002\n", {"--authorization-mode=RBAC"});
  }

 protected:
  CommandResult kubectl_as(const std::string& user, const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), user + "-token") + " " + arguments);
  }
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  HttpResponse post(std::string_view path, const json::object& body) {
    return kapi().connect_admin().request("POST", path, {{"Content-Type", "application/json"}}, json::serialize(body));
  }
  // kubectl auth can-i as `user`, until it answers `expected` (a grant is effective once the policy has seen it).
  CommandResult can_i(const std::string& user, const std::string& arguments, const std::string& expected) {
    CommandResult result;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms))
      if ((result = kubectl_as(user, "auth can-i " + arguments)).output == expected) break;
    return result;
  }
};

TEST_F(ReviewsTest, WhoamiNamesTheUserAndGroups) {
  CommandResult jane = kubectl_as("jane", "auth whoami");
  EXPECT_EQ(jane.exit_code, 0) << jane.output;
  EXPECT_EQ(jane.output,
            "ATTRIBUTE   VALUE\n"
            "Username    jane\n"
            "UID         1001\n"
            "Groups      [devs system:authenticated]\n");
  CommandResult admin = kubectl("auth whoami -o json");
  ASSERT_EQ(admin.exit_code, 0) << admin.output;
  json::value review = json::parse(admin.output);
  EXPECT_EQ(field(review, {"kind"}), "SelfSubjectReview");
  EXPECT_EQ(field(review, {"apiVersion"}), "authentication.k8s.io/v1");
  EXPECT_EQ(field(review, {"status", "userInfo", "username"}), "kapi-admin");
  EXPECT_EQ(field(review, {"status", "userInfo", "groups"}), (json::array{"system:masters", "system:authenticated"}));
}

TEST_F(ReviewsTest, CanIFollowsTheGrants) {
  ASSERT_EQ(kubectl("create namespace reviews-a").exit_code, 0);
  CommandResult before = kubectl_as("jane", "auth can-i list pods -n reviews-a");
  EXPECT_EQ(before.output, "no\n");
  EXPECT_EQ(before.exit_code, 1);
  ASSERT_EQ(kubectl("create role pod-reader --verb=get,list --resource=pods -n reviews-a").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding devs-read --role=pod-reader --group=devs -n reviews-a").exit_code, 0);
  CommandResult after = can_i("jane", "list pods -n reviews-a", "yes\n");
  EXPECT_EQ(after.output, "yes\n");
  EXPECT_EQ(after.exit_code, 0);
  EXPECT_EQ(kubectl_as("jane", "auth can-i delete pods -n reviews-a").output, "no\n");
  EXPECT_EQ(kubectl_as("jane", "auth can-i list pods -n default").output, "no\n");
  EXPECT_EQ(kubectl_as("jane", "auth can-i get /version").output, "yes\n") << "system:public-info-viewer";
  EXPECT_EQ(kubectl("auth can-i '*' '*' --all-namespaces").output, "yes\n");

  CommandResult listed = kubectl_as("jane", "auth can-i --list -n reviews-a");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("Resources"), std::string::npos) << listed.output;
  bool pods_line = false;
  for (std::size_t start = 0, end; start < listed.output.size(); start = end + 1) {
    end = listed.output.find('\n', start);
    const std::string line = listed.output.substr(start, end - start);
    if (line.starts_with("pods ") && line.find("[get list]") != std::string::npos) pods_line = true;
    if (end == std::string::npos) break;
  }
  EXPECT_TRUE(pods_line) << listed.output;
  EXPECT_NE(listed.output.find("selfsubjectaccessreviews.authorization.k8s.io"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("/version"), std::string::npos) << listed.output;
}

TEST_F(ReviewsTest, SubjectAccessReviewsAnswerForTheNamedUser) {
  ASSERT_EQ(kubectl("create namespace reviews-b").exit_code, 0);
  ASSERT_EQ(kubectl("create role cm-reader --verb=get --resource=configmaps -n reviews-b").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding bob-read --role=cm-reader --user=bob -n reviews-b").exit_code, 0);
  const json::object review{
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SubjectAccessReview"},
      {"spec", json::object{{"user", "bob"},
                            {"resourceAttributes", json::object{{"namespace", "reviews-b"}, {"verb", "get"},
                                                                {"resource", "configmaps"}}}}}};
  HttpResponse answered;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(50ms)) {
    answered = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
    if (answered.body.find("\"allowed\":true") != std::string::npos) break;
  }
  ASSERT_EQ(answered.status, 201) << answered.body;
  json::value body = json::parse(answered.body);
  EXPECT_EQ(field(body, {"kind"}), "SubjectAccessReview");
  EXPECT_EQ(field(body, {"metadata", "creationTimestamp"}), nullptr) << "written as Go writes the type";
  EXPECT_EQ(field(body, {"status"}),
            (json::object{{"allowed", true},
                          {"reason", "RBAC: allowed by RoleBinding \"bob-read/reviews-b\" of Role \"cm-reader\" to "
                                     "User \"bob\""}}));

  json::object other = review;
  other["spec"].as_object()["user"] = "jane";
  HttpResponse denied = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", other);
  ASSERT_EQ(denied.status, 201);
  EXPECT_EQ(field(json::parse(denied.body), {"status"}), (json::object{{"allowed", false}}));

  json::object local = review;
  local["kind"] = "LocalSubjectAccessReview";
  HttpResponse local_answer =
      post("/apis/authorization.k8s.io/v1/namespaces/reviews-b/localsubjectaccessreviews", local);
  ASSERT_EQ(local_answer.status, 201) << local_answer.body;
  EXPECT_EQ(field(json::parse(local_answer.body), {"metadata", "namespace"}), "reviews-b");
  EXPECT_EQ(field(json::parse(local_answer.body), {"status", "allowed"}), true);
  HttpResponse elsewhere = post("/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", local);
  EXPECT_TRUE(is_status(elsewhere, 422, "Invalid"));
  EXPECT_EQ(status_message(elsewhere),
            "LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: "
            "Invalid value: \"reviews-b\": must match metadata.namespace");
}

TEST_F(ReviewsTest, InvalidReviewsAreRefusedAsKubeRefusesThem) {
  HttpResponse nobody = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                             {{"kind", "SubjectAccessReview"}, {"apiVersion", "authorization.k8s.io/v1"},
                              {"spec", json::object{}}});
  EXPECT_TRUE(is_status(nobody, 422, "Invalid"));
  EXPECT_EQ(status_message(nobody),
            "SubjectAccessReview.authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: Invalid value: "
            "\"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: "
            "Invalid value: \"\": at least one of user or group must be specified]");
  // Metadata must be empty (kube's ValidateSubjectAccessReview), printed as Go prints an ObjectMeta.
  HttpResponse named = post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                            {{"kind", "SelfSubjectAccessReview"}, {"apiVersion", "authorization.k8s.io/v1"},
                             {"metadata", json::object{{"name", "mine"}, {"labels", json::object{{"b", "2"}, {"a", "1"}}}}},
                             {"spec", json::object{{"nonResourceAttributes", json::object{{"path", "/x"}, {"verb", "get"}}}}}});
  EXPECT_TRUE(is_status(named, 422, "Invalid"));
  EXPECT_EQ(status_message(named),
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: metadata: Invalid value: "
            "v1.ObjectMeta{Name:\"mine\", GenerateName:\"\", Namespace:\"\", SelfLink:\"\", UID:\"\", "
            "ResourceVersion:\"\", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), "
            "DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), "
            "Labels:map[string]string{\"a\":\"1\", \"b\":\"2\"}, Annotations:map[string]string(nil), "
            "OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), "
            "ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty");
  // What kubectl sends: Go's empty ObjectMeta, and a local review's namespace.
  HttpResponse empty = post("/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                            {{"kind", "LocalSubjectAccessReview"}, {"apiVersion", "authorization.k8s.io/v1"},
                             {"metadata", json::object{{"creationTimestamp", nullptr}, {"namespace", "default"}}},
                             {"spec", json::object{{"user", "jane"}, {"resourceAttributes",
                                                   json::object{{"namespace", "default"}, {"verb", "get"}, {"resource", "pods"}}}}}});
  EXPECT_EQ(empty.status, 201) << empty.body;
  HttpResponse rules = post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                            {{"kind", "SelfSubjectRulesReview"}, {"apiVersion", "authorization.k8s.io/v1"}});
  EXPECT_TRUE(is_status(rules, 400, "BadRequest"));
  EXPECT_EQ(status_message(rules), "no namespace on request");
}

TEST_F(ReviewsTest, ReviewsOnlyCreate) {
  HttpResponse listed = kapi().connect_admin().request("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
  EXPECT_TRUE(is_status(listed, 405, "MethodNotAllowed")) << listed.body;
  HttpResponse discovery = kapi().connect_admin().request("GET", "/apis/authorization.k8s.io/v1");
  ASSERT_EQ(discovery.status, 200);
  json::array resources = json::parse(discovery.body).at("resources").as_array();
  std::vector<std::string> names;
  for (const auto& resource : resources) {
    names.emplace_back(resource.at("name").as_string());
    EXPECT_EQ(resource.at("verbs"), (json::array{"create"}));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"localsubjectaccessreviews", "selfsubjectaccessreviews",
                                             "selfsubjectrulesreviews", "subjectaccessreviews"}));
  CommandResult api_resources = kubectl("api-resources --api-group=authentication.k8s.io --no-headers");
  EXPECT_NE(api_resources.output.find("selfsubjectreviews"), std::string::npos) << api_resources.output;
}

}  // namespace
}  // namespace kapi::integration::reviews_test

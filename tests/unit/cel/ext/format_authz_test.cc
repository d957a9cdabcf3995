// kube's format library (library/format_test.go) and authz library (library/authz_test.go's attribute checks),
// with a recording Authorizer.
#include "cel/ext/authz.h"
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::format_authz_test {
namespace {

using testing::call;
using testing::error_of;
using testing::strings;

Value validate(const std::string& format, std::string value) {
  const Library lib = format_library();
  return call(lib, "format-validate", {call(lib, "format." + format, {}), Value(std::move(value))});
}

TEST(CelFormat, NamedFormatsValidate) {
  EXPECT_TRUE(validate("dns1123Label", "my-label-name").get<OptionalValue>().value == nullptr);
  Value bad = validate("dns1123Label", "Not_A_Label");
  ASSERT_TRUE(bad.get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*bad.get<OptionalValue>().value,
                     strings({"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                              "and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                              "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"})));
  EXPECT_FALSE(validate("dns1123Subdomain", "apiextensions.k8s.io").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("dns1035Label", "my-label-name").get<OptionalValue>().has_value());
  EXPECT_TRUE(validate("dns1035Label", "1abc").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("qualifiedName", "apiextensions.k8s.io/v1beta1").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("dns1123LabelPrefix", "my-label-prefix-").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("dns1123SubdomainPrefix", "mysubdomain.prefix.-").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("dns1035LabelPrefix", "my-label-prefix-").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("labelValue", "").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("uri", "http://example.com").get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*validate("uri", "example").get<OptionalValue>().value,
                     strings({"parse \"example\": invalid URI for request"})));
  EXPECT_FALSE(validate("uuid", "123e4567-e89b-12d3-a456-426614174000").get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*validate("uuid", "123").get<OptionalValue>().value, strings({"does not match the UUID format"})));
  EXPECT_FALSE(validate("byte", "aGVsbG8=").get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*validate("byte", "aGVsbG8").get<OptionalValue>().value, strings({"invalid base64"})));
  EXPECT_FALSE(validate("date", "2021-01-01").get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*validate("date", "2021-02-29").get<OptionalValue>().value, strings({"invalid date"})));
  EXPECT_FALSE(validate("datetime", "2021-01-01T00:00:00Z").get<OptionalValue>().has_value());
  EXPECT_FALSE(validate("datetime", "2021-01-01T00:00:00.5+01:00").get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(*validate("datetime", "2021-01-01T25:00:00Z").get<OptionalValue>().value,
                     strings({"invalid datetime"})));
}

TEST(CelFormat, NamedLookup) {
  const Library lib = format_library();
  EXPECT_TRUE(call(lib, "format-named", {"dns1123Label"}).get<OptionalValue>().has_value());
  EXPECT_FALSE(call(lib, "format-named", {"nope"}).get<OptionalValue>().has_value());
  EXPECT_TRUE(equals(call(lib, "format.uuid", {}), *call(lib, "format-named", {"uuid"}).get<OptionalValue>().value));
}

class RecordingAuthorizer final : public Authorizer {
 public:
  AuthzDecision authorize(const AuthzAttributes& attributes) const override {
    seen.push_back(attributes);
    if (attributes.verb == "fail") return {AuthzDecision::Kind::kNoOpinion, "", "webhook down"};
    if (attributes.verb == "get") return {AuthzDecision::Kind::kAllow, "rbac allows", std::nullopt};
    return {AuthzDecision::Kind::kDeny, "no rule", std::nullopt};
  }
  mutable std::vector<AuthzAttributes> seen;
};

TEST(CelAuthz, ResourceChecksCarryEveryAttribute) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  const Library lib = authz_library(), selectors = authz_selectors_library();
  Value a = authorizer_value(authorizer, UserInfo{"alice", "u1", {"devs"}, {}});
  Value check = call(lib, "groupcheck_resource", {call(lib, "authorizer_group", {a, "apps"}), "deployments"});
  check = call(lib, "resourcecheck_subresource", {check, "scale"});
  check = call(lib, "resourcecheck_namespace", {check, "ns"});
  check = call(lib, "resourcecheck_name", {check, "web"});
  check = call(selectors, "authorizer_fieldselector", {check, "spec.nodeName=n1"});
  check = call(selectors, "authorizer_labelselector", {check, "app=web"});
  Value decision = call(lib, "resourcecheck_check", {check, "get"});
  EXPECT_TRUE(equals(call(lib, "decision_allowed", {decision}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "decision_reason", {decision}), Value("rbac allows")));
  EXPECT_TRUE(equals(call(lib, "decision_errored", {decision}), Value(false)));
  EXPECT_TRUE(equals(call(lib, "decision_error", {decision}), Value("")));
  ASSERT_EQ(authorizer->seen.size(), 1u);
  const AuthzAttributes& seen = authorizer->seen[0];
  EXPECT_EQ(seen.user.name, "alice");
  EXPECT_TRUE(seen.resource_request);
  EXPECT_EQ(seen.api_group, "apps");
  EXPECT_EQ(seen.resource, "deployments");
  EXPECT_EQ(seen.subresource, "scale");
  EXPECT_EQ(seen.namespace_, "ns");
  EXPECT_EQ(seen.name, "web");
  EXPECT_EQ(seen.field_selector, "spec.nodeName=n1");
  EXPECT_EQ(seen.label_selector, "app=web");
  EXPECT_EQ(decision.type_name(), "kubernetes.authorization.Decision");
}

TEST(CelAuthz, PathsServiceAccountsAndErrors) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  const Library lib = authz_library();
  Value a = authorizer_value(authorizer, UserInfo{"alice", "", {}, {}});
  Value decision = call(lib, "pathcheck_check", {call(lib, "authorizer_path", {a, "/healthz"}), "fail"});
  EXPECT_TRUE(equals(call(lib, "decision_errored", {decision}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "decision_error", {decision}), Value("webhook down")));
  EXPECT_TRUE(equals(call(lib, "decision_allowed", {decision}), Value(false)));
  EXPECT_EQ(authorizer->seen.back().path, "/healthz");
  EXPECT_FALSE(authorizer->seen.back().resource_request);
  EXPECT_EQ(error_of(call(lib, "authorizer_path", {a, "  "})), "path must not be empty");
  EXPECT_EQ(error_of(call(lib, "groupcheck_resource", {call(lib, "authorizer_group", {a, ""}), ""})),
            "resource must not be empty");
  Value sa = call(lib, "authorizer_serviceaccount", {a, "kube-system", "builder"});
  call(lib, "resourcecheck_check",
       {call(lib, "groupcheck_resource", {call(lib, "authorizer_group", {sa, ""}), "pods"}), "list"});
  EXPECT_EQ(authorizer->seen.back().user.name, "system:serviceaccount:kube-system:builder");
  EXPECT_EQ(authorizer->seen.back().user.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:kube-system"}));
  EXPECT_EQ(error_of(call(lib, "authorizer_serviceaccount", {a, "kube-system", "Bad_Name"})),
            "Invalid service account name");
  EXPECT_EQ(error_of(call(lib, "authorizer_serviceaccount", {a, "Bad.NS", "builder"})),
            "Invalid service account namespace");
  Value request = request_resource_check(authorizer, UserInfo{"bob", "", {}, {}}, "", "pods", "status", "ns", "p");
  call(lib, "resourcecheck_check", {request, "update"});
  EXPECT_EQ(authorizer->seen.back().subresource, "status");
  EXPECT_EQ(authorizer->seen.back().user.name, "bob");
}

}  // namespace
}  // namespace kapi::cel::ext::format_authz_test

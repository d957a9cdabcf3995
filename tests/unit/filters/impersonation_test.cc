// The impersonation stage: the Impersonate-* headers read as kube reads them, one `impersonate` question per
// requested identity, the identity the request then acts as, and kube's 403 and 500 answers.
#include "filters/impersonation.h"

#include "tests/unit/support/recording_writer.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <set>

namespace kapi::filters::impersonation_test {
namespace {

using test_support::make_request;
using test_support::RecordingWriter;
using test_support::run_sync;
using Kind = ImpersonationRequest::Kind;

// Allows everything except the (resource, name) pairs it is told to deny, and remembers what it was asked.
class RecordingAuthorizer final : public authorization::Authorizer {
 public:
  std::set<std::pair<std::string, std::string>> denied;
  std::string denial_reason;
  mutable std::vector<authorization::Attributes> asked;

  authorization::Result authorize(const authorization::Attributes& attributes) const override {
    asked.push_back(attributes);
    if (denied.contains({attributes.resource, attributes.name}))
      return {authorization::Decision::NoOpinion, denial_reason};
    return {authorization::Decision::Allow, ""};
  }
};

UserInfo jane() { return {"jane", "1001", {"devs", "system:authenticated"}, {}}; }

struct Served {
  RecordingWriter writer;
  bool reached_handler = false;
  std::optional<UserInfo> user;             // as the stages after impersonation see it
  std::optional<UserInfo> impersonated_by;
  http::Headers headers;
};

Served serve(const std::shared_ptr<RecordingAuthorizer>& authorizer, http::Request request,
             std::optional<UserInfo> user = jane()) {
  Served served;
  std::vector<std::unique_ptr<Filter>> stages;
  stages.push_back(std::make_unique<ImpersonationFilter>(authorizer));
  Chain chain(std::move(stages), [&](Exchange& exchange) -> asio::awaitable<void> {
    served.reached_handler = true;
    served.user = exchange.context.user;
    served.impersonated_by = exchange.context.impersonated_by;
    served.headers = exchange.request.headers;
    co_await exchange.response->write(200, "ok");
  });
  RequestContext context;
  context.user = std::move(user);
  Exchange exchange{request, &served.writer, std::move(context)};
  run_sync(chain(exchange));
  return served;
}

http::Request request_with(std::vector<std::pair<std::string, std::string>> headers,
                           std::string target = "/api/v1/namespaces/default/pods") {
  http::Request request = make_request("GET", std::move(target));
  for (auto& [name, value] : headers) request.headers.add(std::move(name), std::move(value));
  return request;
}

boost::json::object body_of(const RecordingWriter& writer) { return boost::json::parse(writer.body()).as_object(); }

TEST(Impersonation, WithoutImpersonateHeadersTheRequestPassesUntouched) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Accept", "application/json"}, {"Impersonate-User", ""}}));
  EXPECT_TRUE(served.reached_handler);
  EXPECT_TRUE(authorizer->asked.empty());
  ASSERT_TRUE(served.user);
  EXPECT_EQ(served.user->name, "jane");
  EXPECT_FALSE(served.impersonated_by);
  EXPECT_EQ(served.headers.size(), 2u) << "an empty Impersonate-User asks for nothing, and is left alone as in kube";
}

TEST(Impersonation, HeadersAreReadInKubesOrder) {
  auto parsed = parse_impersonation_headers(request_with({{"Impersonate-Uid", "1234"},
                                                          {"impersonate-extra-Scopes", "view"},
                                                          {"Impersonate-Group", "devs"},
                                                          {"Impersonate-Extra-scopes", "edit"},
                                                          {"Impersonate-Extra-Example.com%2FTeam", "Blue"},
                                                          {"Impersonate-Extra-Bad%zz", "x"},
                                                          {"Impersonate-Group", "ops"},
                                                          {"impersonate-user", "bob"}})
                                                .headers);
  ASSERT_EQ(parsed.error, "");
  ASSERT_EQ(parsed.requests.size(), 8u);
  auto expect = [&](std::size_t i, Kind kind, std::string name, std::string key = "") {
    EXPECT_EQ(parsed.requests[i].kind, kind) << i;
    EXPECT_EQ(parsed.requests[i].name, name) << i;
    EXPECT_EQ(parsed.requests[i].extra_key, key) << i;
  };
  expect(0, Kind::User, "bob");
  expect(1, Kind::Group, "devs");
  expect(2, Kind::Group, "ops");
  // Extra keys are lower-cased, then %-decoded (values keep their case); a malformed escape is kept as sent.
  expect(3, Kind::UserExtra, "view", "scopes");
  expect(4, Kind::UserExtra, "edit", "scopes");
  expect(5, Kind::UserExtra, "Blue", "example.com/team");
  expect(6, Kind::UserExtra, "x", "bad%zz");
  expect(7, Kind::Uid, "1234");
}

TEST(Impersonation, OnlyWellFormedServiceAccountNamesAreServiceAccounts) {
  auto user_request = [](std::string user) {
    return parse_impersonation_headers(request_with({{"Impersonate-User", user}}).headers).requests.at(0);
  };
  ImpersonationRequest robot = user_request("system:serviceaccount:kube-system:robot");
  EXPECT_EQ(robot.kind, Kind::ServiceAccount);
  EXPECT_EQ(robot.namespace_, "kube-system");
  EXPECT_EQ(robot.name, "robot");
  EXPECT_EQ(user_request("system:serviceaccount:a:b:c").kind, Kind::User);
  EXPECT_EQ(user_request("system:serviceaccount:Upper:robot").kind, Kind::User);
  EXPECT_EQ(user_request("system:serviceaccount:ns:").kind, Kind::User);
  EXPECT_EQ(user_request("system:serviceaccount:ns:robot").kind, Kind::ServiceAccount);
}

TEST(Impersonation, EachIdentityIsAuthorizedOnItsOwn) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Impersonate-User", "bob"},
                                                  {"Impersonate-Group", "devs"},
                                                  {"Impersonate-Extra-Scopes", "view"},
                                                  {"Impersonate-Uid", "1234"}}));
  ASSERT_TRUE(served.reached_handler);
  ASSERT_EQ(authorizer->asked.size(), 4u);
  for (const auto& attributes : authorizer->asked) {
    EXPECT_EQ(attributes.user.name, "jane") << "asked about the real sender";
    EXPECT_EQ(attributes.verb, "impersonate");
    EXPECT_TRUE(attributes.resource_request);
    EXPECT_EQ(attributes.namespace_, "");
  }
  const auto& users = authorizer->asked[0];
  EXPECT_EQ(std::tie(users.api_group, users.resource, users.subresource, users.name),
            std::make_tuple("", "users", "", "bob"));
  const auto& groups = authorizer->asked[1];
  EXPECT_EQ(std::tie(groups.api_group, groups.resource, groups.name), std::make_tuple("", "groups", "devs"));
  const auto& extras = authorizer->asked[2];
  EXPECT_EQ(std::tie(extras.api_group, extras.api_version, extras.resource, extras.subresource, extras.name),
            std::make_tuple("authentication.k8s.io", "v1", "userextras", "scopes", "view"));
  const auto& uids = authorizer->asked[3];
  EXPECT_EQ(std::tie(uids.api_group, uids.resource, uids.name),
            std::make_tuple("authentication.k8s.io", "uids", "1234"));

  ASSERT_TRUE(served.user);
  EXPECT_EQ(served.user->name, "bob");
  EXPECT_EQ(served.user->uid, "1234");
  EXPECT_EQ(served.user->groups, (std::vector<std::string>{"devs", "system:authenticated"}));
  EXPECT_EQ(served.user->extra, (std::map<std::string, std::vector<std::string>>{{"scopes", {"view"}}}));
  ASSERT_TRUE(served.impersonated_by);
  EXPECT_EQ(served.impersonated_by->name, "jane");
  EXPECT_EQ(served.impersonated_by->groups, jane().groups);
}

TEST(Impersonation, TheHeadersAreGoneOnceImpersonating) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Accept", "application/json"},
                                                  {"Impersonate-User", "bob"},
                                                  {"IMPERSONATE-GROUP", "devs"},
                                                  {"Impersonate-Uid", "1234"},
                                                  {"impersonate-extra-scopes", "view"},
                                                  {"Impersonate-Other", "kept, as kube keeps it"}}));
  ASSERT_TRUE(served.reached_handler);
  std::vector<std::string> names;
  for (const auto& field : served.headers) names.push_back(field.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Accept", "Impersonate-Other"}));
}

TEST(Impersonation, ServiceAccountsGetTheirGroupsUnlessGroupsAreNamed) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Impersonate-User", "system:serviceaccount:kube-system:robot"}}));
  ASSERT_EQ(authorizer->asked.size(), 1u);
  const auto& asked = authorizer->asked[0];
  EXPECT_EQ(std::tie(asked.api_group, asked.resource, asked.namespace_, asked.name),
            std::make_tuple("", "serviceaccounts", "kube-system", "robot"));
  ASSERT_TRUE(served.user);
  EXPECT_EQ(served.user->name, "system:serviceaccount:kube-system:robot");
  using Groups = std::vector<std::string>;
  EXPECT_EQ(served.user->groups,
            (Groups{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}));

  served = serve(authorizer, request_with({{"Impersonate-User", "system:serviceaccount:kube-system:robot"},
                                           {"Impersonate-Group", "devs"}}));
  ASSERT_TRUE(served.user);
  EXPECT_EQ(served.user->groups, (Groups{"devs", "system:authenticated"}));
}

TEST(Impersonation, AuthenticatedAndUnauthenticatedGroupsFollowKubesRules) {
  auto groups_of = [](std::vector<std::pair<std::string, std::string>> headers) {
    return impersonated_user(parse_impersonation_headers(request_with(std::move(headers)).headers).requests).groups;
  };
  using Groups = std::vector<std::string>;
  EXPECT_EQ(groups_of({{"Impersonate-User", "bob"}}), Groups{"system:authenticated"});
  EXPECT_EQ(groups_of({{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:unauthenticated"}}),
            Groups{"system:unauthenticated"});
  EXPECT_EQ(groups_of({{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:authenticated"}}),
            Groups{"system:authenticated"});
  EXPECT_EQ(groups_of({{"Impersonate-User", "system:anonymous"}}), Groups{"system:unauthenticated"});
  EXPECT_EQ(groups_of({{"Impersonate-User", "system:anonymous"}, {"Impersonate-Group", "devs"}}),
            (Groups{"devs", "system:unauthenticated"}));
}

TEST(Impersonation, ADenialIsKubesForbiddenStatus) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  authorizer->denied = {{"users", "bob"}};
  Served served = serve(authorizer, request_with({{"Impersonate-User", "bob"}, {"Impersonate-Group", "devs"}}));
  EXPECT_FALSE(served.reached_handler);
  EXPECT_EQ(authorizer->asked.size(), 1u) << "the first denial ends the checks";
  EXPECT_EQ(served.writer.status(), 403);
  EXPECT_EQ(served.writer.headers().get("Content-Type"), "application/json");
  auto body = body_of(served.writer);
  EXPECT_EQ(body["kind"], "Status");
  EXPECT_EQ(body["status"], "Failure");
  EXPECT_EQ(body["reason"], "Forbidden");
  EXPECT_EQ(body["code"], 403);
  EXPECT_EQ(body["message"],
            "users \"bob\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the "
            "cluster scope");
  EXPECT_EQ(body["details"], (boost::json::object{{"name", "bob"}, {"kind", "users"}}));
}

TEST(Impersonation, DenialsNameTheIdentityTheyRefuse) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  authorizer->denied = {{"userextras", "view"}, {"serviceaccounts", "robot"}};
  authorizer->denial_reason = "no RBAC policy matched";
  Served extra = serve(authorizer, request_with({{"Impersonate-User", "bob"}, {"Impersonate-Extra-Scopes", "view"}}));
  EXPECT_EQ(extra.writer.status(), 403);
  auto body = body_of(extra.writer);
  EXPECT_EQ(body["message"],
            "userextras.authentication.k8s.io \"view\" is forbidden: User \"jane\" cannot impersonate resource "
            "\"userextras/scopes\" in API group \"authentication.k8s.io\" at the cluster scope: "
            "no RBAC policy matched");
  EXPECT_EQ(body["details"],
            (boost::json::object{{"name", "view"}, {"group", "authentication.k8s.io"}, {"kind", "userextras"}}));

  Served account = serve(authorizer, request_with({{"Impersonate-User", "system:serviceaccount:default:robot"}}));
  EXPECT_EQ(body_of(account.writer)["message"],
            "serviceaccounts \"robot\" is forbidden: User \"jane\" cannot impersonate resource \"serviceaccounts\" in "
            "API group \"\" in the namespace \"default\": no RBAC policy matched");
}

TEST(Impersonation, GroupsExtrasOrUidWithoutAUserAreKubesInternalError) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Impersonate-Group", "devs"},
                                                  {"Impersonate-Extra-Scopes", "<view>"},
                                                  {"Impersonate-Uid", "1234"}},
                                                 "/api/v1/pods?limit=1"));
  EXPECT_FALSE(served.reached_handler);
  EXPECT_TRUE(authorizer->asked.empty());
  EXPECT_EQ(served.writer.status(), 500);
  EXPECT_EQ(served.writer.headers().get("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(served.writer.body(),
            "Internal Server Error: \"/api/v1/pods?limit=1\": requested [{Group  devs    } "
            "{UserExtra  &lt;view&gt;  authentication.k8s.io/v1  scopes} {UID  1234  authentication.k8s.io/v1  }] "
            "without impersonating a user\n");
}

TEST(Impersonation, ARequestWithoutAUserCannotImpersonate) {
  auto authorizer = std::make_shared<RecordingAuthorizer>();
  Served served = serve(authorizer, request_with({{"Impersonate-User", "bob"}}, "/api"), std::nullopt);
  EXPECT_EQ(served.writer.status(), 500);
  EXPECT_EQ(served.writer.body(), "Internal Server Error: \"/api\": no user found for request\n");
}

}  // namespace
}  // namespace kapi::filters::impersonation_test

// The authorization stage (kube's WithAuthorization): what it asks the authorizer, that an allowed request goes on,
// and kube's 403 Status and wording for the rest; the audit annotations it leaves for either decision.
#include "filters/authorization.h"
#include "request/request_info_resolver.h"

#include "tests/unit/support/recording_writer.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <stdexcept>

namespace kapi::filters::authorization_test {
namespace {

using test_support::make_request;
using test_support::RecordingWriter;
using test_support::run_sync;

// Answers every question with one result (or throws), and remembers what it was asked.
class FixedAuthorizer final : public authorization::Authorizer {
 public:
  explicit FixedAuthorizer(authorization::Result result) : result_(std::move(result)) {}
  bool fails = false;
  bool in_memory = true;  // false: the stage awaits authorize_async, as for a webhook
  mutable std::vector<authorization::Attributes> asked;

  bool decides_in_memory() const override { return in_memory; }

  authorization::Result authorize(const authorization::Attributes& attributes) const override {
    asked.push_back(attributes);
    if (fails) throw std::runtime_error("authorizer unavailable");
    return result_;
  }

 private:
  authorization::Result result_;
};

struct Served {
  RecordingWriter writer;
  bool reached_handler = false;
  std::map<std::string, std::string> annotations;
};

// One request from jane through the stage; the request info is resolved from the target as the chain would.
Served serve(const std::shared_ptr<FixedAuthorizer>& authorizer, std::string method, std::string target,
             bool audited = true) {
  Served served;
  std::vector<std::unique_ptr<Filter>> stages;
  stages.push_back(std::make_unique<AuthorizationFilter>(authorizer));
  Chain chain(std::move(stages), [&](Exchange& exchange) -> asio::awaitable<void> {
    served.reached_handler = true;
    co_await exchange.response->write(200, "ok");
  });
  http::Request request = make_request(method, target);
  RequestContext context;
  context.audited = audited;
  context.user = UserInfo{"jane", "1001", {"devs", "system:authenticated"}, {}};
  context.request_info = request::RequestInfoResolver().resolve_target(method, target)->info;
  Exchange exchange{request, &served.writer, std::move(context)};
  run_sync(chain(exchange));
  served.annotations = exchange.context.audit_annotations;
  return served;
}

std::shared_ptr<FixedAuthorizer> deciding(authorization::Decision decision, std::string reason = "") {
  return std::make_shared<FixedAuthorizer>(authorization::Result{decision, std::move(reason)});
}

boost::json::object body_of(const RecordingWriter& writer) { return boost::json::parse(writer.body()).as_object(); }

TEST(Authorization, AnAllowedRequestGoesOnWithTheAttributesItWasAllowedFor) {
  auto authorizer = deciding(authorization::Decision::Allow, "RBAC: allowed by ClusterRoleBinding \"devs\"");
  Served served = serve(authorizer, "GET", "/apis/apps/v1/namespaces/shop/deployments/web/scale");
  EXPECT_TRUE(served.reached_handler);
  EXPECT_EQ(served.writer.status(), 200);
  ASSERT_EQ(authorizer->asked.size(), 1u);
  const authorization::Attributes& asked = authorizer->asked[0];
  EXPECT_EQ(asked.user.name, "jane");
  EXPECT_EQ(asked.user.groups, (std::vector<std::string>{"devs", "system:authenticated"}));
  EXPECT_EQ(asked.verb, "get");
  EXPECT_TRUE(asked.resource_request);
  EXPECT_EQ(asked.api_group, "apps");
  EXPECT_EQ(asked.api_version, "v1");
  EXPECT_EQ(asked.namespace_, "shop");
  EXPECT_EQ(asked.resource, "deployments");
  EXPECT_EQ(asked.subresource, "scale");
  EXPECT_EQ(asked.name, "web");
  EXPECT_EQ(served.annotations, (std::map<std::string, std::string>{
                                    {"authorization.k8s.io/decision", "allow"},
                                    {"authorization.k8s.io/reason", "RBAC: allowed by ClusterRoleBinding \"devs\""}}));
}

TEST(Authorization, AnAuthorizerThatMustAskElsewhereIsAwaitedAndDecidesAlike) {
  auto allowing = deciding(authorization::Decision::Allow, "allowed by the webhook");
  allowing->in_memory = false;
  Served allowed = serve(allowing, "GET", "/api/v1/namespaces/shop/pods");
  EXPECT_TRUE(allowed.reached_handler);
  EXPECT_EQ(allowed.writer.status(), 200);
  EXPECT_EQ(allowed.annotations.at("authorization.k8s.io/reason"), "allowed by the webhook");
  auto denying = deciding(authorization::Decision::Deny, "denied by the webhook");
  denying->in_memory = false;
  Served denied = serve(denying, "DELETE", "/api/v1/namespaces/shop/pods/web");
  EXPECT_FALSE(denied.reached_handler);
  EXPECT_EQ(denied.writer.status(), 403);
  EXPECT_EQ(body_of(denied.writer).at("message"),
            "pods \"web\" is forbidden: User \"jane\" cannot delete resource \"pods\" in API group \"\" in the "
            "namespace \"shop\": denied by the webhook");
  EXPECT_EQ(denied.annotations.at("authorization.k8s.io/decision"), "forbid");
}

TEST(Authorization, ARequestWithoutAnAuditEventGetsNoAnnotations) {
  // audit.AddAuditAnnotation does nothing without an audit event: nothing is recorded for nobody.
  Served allowed = serve(deciding(authorization::Decision::Allow, "RBAC"), "GET", "/api/v1/pods", false);
  EXPECT_TRUE(allowed.reached_handler);
  EXPECT_TRUE(allowed.annotations.empty());
  Served denied = serve(deciding(authorization::Decision::NoOpinion), "GET", "/api/v1/pods", false);
  EXPECT_EQ(denied.writer.status(), 403);
  EXPECT_TRUE(denied.annotations.empty());
}

TEST(Authorization, ADeniedRequestIsKubes403Status) {
  Served served = serve(deciding(authorization::Decision::NoOpinion), "GET", "/api/v1/namespaces/default/pods");
  EXPECT_FALSE(served.reached_handler);
  EXPECT_EQ(served.writer.status(), 403);
  boost::json::object body = body_of(served.writer);
  EXPECT_EQ(body.at("kind"), "Status");
  EXPECT_EQ(body.at("apiVersion"), "v1");
  EXPECT_EQ(body.at("status"), "Failure");
  EXPECT_EQ(body.at("reason"), "Forbidden");
  EXPECT_EQ(body.at("code"), 403);
  EXPECT_EQ(body.at("message"),
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace "
            "\"default\"");
  EXPECT_EQ(body.at("details"), (boost::json::object{{"kind", "pods"}}));
  EXPECT_EQ(served.annotations, (std::map<std::string, std::string>{{"authorization.k8s.io/decision", "forbid"},
                                                                    {"authorization.k8s.io/reason", ""}}));
}

TEST(Authorization, TheDenialNamesTheObjectTheGroupTheSubresourceAndTheReason) {
  Served served = serve(deciding(authorization::Decision::Deny, "no RBAC policy matched"), "PUT",
                        "/apis/apps/v1/namespaces/shop/deployments/web/scale");
  EXPECT_EQ(served.writer.status(), 403);
  boost::json::object body = body_of(served.writer);
  // kube's ForbiddenStatusError: the subresource is in the message, the qualified resource is the resource's.
  EXPECT_EQ(body.at("message"),
            "deployments.apps \"web\" is forbidden: User \"jane\" cannot update resource \"deployments/scale\" in API "
            "group \"apps\" in the namespace \"shop\": no RBAC policy matched");
  EXPECT_EQ(body.at("details"), (boost::json::object{{"name", "web"}, {"group", "apps"}, {"kind", "deployments"}}));
  EXPECT_EQ(served.annotations.at("authorization.k8s.io/reason"), "no RBAC policy matched");
}

TEST(Authorization, ClusterScopedResourcesAreDeniedAtTheClusterScope) {
  Served served = serve(deciding(authorization::Decision::NoOpinion), "DELETE", "/api/v1/nodes");
  EXPECT_EQ(body_of(served.writer).at("message"),
            "nodes is forbidden: User \"jane\" cannot deletecollection resource \"nodes\" in API group \"\" at the "
            "cluster scope");
}

TEST(Authorization, NonResourceURLsAreDeniedByPath) {
  auto authorizer = deciding(authorization::Decision::NoOpinion);
  Served served = serve(authorizer, "GET", "/logs/kube-apiserver.log");
  EXPECT_FALSE(served.reached_handler);
  EXPECT_EQ(served.writer.status(), 403);
  ASSERT_EQ(authorizer->asked.size(), 1u);
  EXPECT_FALSE(authorizer->asked[0].resource_request);
  EXPECT_EQ(authorizer->asked[0].path, "/logs/kube-apiserver.log");
  boost::json::object body = body_of(served.writer);
  EXPECT_EQ(body.at("message"), "forbidden: User \"jane\" cannot get path \"/logs/kube-apiserver.log\"");
  EXPECT_EQ(body.at("details"), boost::json::object());

  Served allowed = serve(deciding(authorization::Decision::Allow), "GET", "/healthz");
  EXPECT_TRUE(allowed.reached_handler);
}

TEST(Authorization, TheMessageNeverReadsAsHtml) {
  Served served = serve(deciding(authorization::Decision::NoOpinion), "GET", "/<script>&");
  EXPECT_EQ(body_of(served.writer).at("message"), "forbidden: User \"jane\" cannot get path \"/&lt;script&gt;&amp;\"");
}

// kapi's authorizers decide from memory and return no error: one that fails anyway throws, which never lets the
// request through (the panic-recovery stage in front answers 500, as kube's InternalError does).
TEST(Authorization, AFailingAuthorizerNeverLetsTheRequestThrough) {
  auto authorizer = deciding(authorization::Decision::Allow);
  authorizer->fails = true;
  bool reached = false;
  std::vector<std::unique_ptr<Filter>> stages;
  stages.push_back(std::make_unique<AuthorizationFilter>(authorizer));
  Chain chain(std::move(stages), [&](Exchange&) -> asio::awaitable<void> {
    reached = true;
    co_return;
  });
  http::Request request = make_request("GET", "/api/v1/pods");
  RecordingWriter writer;
  RequestContext context;
  context.user = UserInfo{"jane", "", {}, {}};
  context.request_info = request::RequestInfoResolver().resolve_target("GET", "/api/v1/pods")->info;
  Exchange exchange{request, &writer, std::move(context)};
  EXPECT_THROW(run_sync(chain(exchange)), std::runtime_error);
  EXPECT_FALSE(reached);
  EXPECT_FALSE(writer.committed());
}

}  // namespace
}  // namespace kapi::filters::authorization_test

// MutatingAdmissionWebhook and ValidatingAdmissionWebhook through the Plugin interface: configurations stored in
// real registry Stores (over the embedded backend), a webhook served by a kapi HttpServer over TLS on loopback,
// Attributes built by hand. Also kube's rule matching, AdmissionReview checks and refusal Status directly.
#include "server/admission/chain.h"
#include "server/admission/plugin.h"
#include "server/http/http_server.h"
#include "server/metrics/registry.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "server/plugin/admission/webhook/admission_review.h"
#include "server/plugin/admission/webhook/matching.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "base/base64.h"
#include "tests/support/io_thread.h"
#include "tests/unit/server/admission/two_versions.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <fstream>
#include <functional>
#include <mutex>

namespace kapi::admission {

std::unique_ptr<Plugin> make_mutating_admission_webhook(const PluginContext& context);
std::unique_ptr<Plugin> make_validating_admission_webhook(const PluginContext& context);

namespace webhook_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using webhook::Rule;

Attributes attributes_for(Operation operation, std::string namespace_, std::string resource,
                          std::string subresource = {}) {
  Attributes attributes;
  attributes.operation = operation;
  attributes.resource = {"", "v1", std::move(resource)};
  attributes.kind = {"", "v1", "Pod"};
  attributes.subresource = std::move(subresource);
  attributes.namespace_ = std::move(namespace_);
  return attributes;
}

// The rule against the request's resource at `version`.
bool rule_matches_at(const Rule& rule, const Attributes& attributes, std::string version) {
  GroupVersionResource resource = attributes.resource;
  resource.version = std::move(version);
  return webhook::rule_matches(rule, attributes, resource);
}

TEST(WebhookRulesTest, MatchOperationsGroupsVersionsResourcesAndScopeAsKube) {
  Rule rule{{"CREATE"}, {""}, {"v1"}, {"pods"}, "*"};
  EXPECT_TRUE(rule_matches_at(rule, attributes_for(Operation::Create, "ns", "pods"), "v1"));
  EXPECT_FALSE(rule_matches_at(rule, attributes_for(Operation::Update, "ns", "pods"), "v1"));
  EXPECT_FALSE(rule_matches_at(rule, attributes_for(Operation::Create, "ns", "pods"), "v2"));
  // A subresource is matched only when named (or by "*/*" and "pods/*").
  EXPECT_FALSE(rule_matches_at(rule, attributes_for(Operation::Create, "ns", "pods", "status"), "v1"));
  EXPECT_TRUE(rule_matches_at(Rule{{"*"}, {"*"}, {"*"}, {"pods/status"}, "*"},
                                    attributes_for(Operation::Update, "ns", "pods", "status"), "v1"));
  EXPECT_TRUE(rule_matches_at(Rule{{"*"}, {"*"}, {"*"}, {"*/*"}, "*"},
                                    attributes_for(Operation::Update, "ns", "pods", "status"), "v1"));
  EXPECT_FALSE(rule_matches_at(Rule{{"*"}, {"*"}, {"*"}, {"*"}, "*"},
                                     attributes_for(Operation::Update, "ns", "pods", "status"), "v1"));
  EXPECT_TRUE(rule_matches_at(Rule{{"*"}, {"*"}, {"*"}, {"*"}, "*"},
                                    attributes_for(Operation::Delete, "", "nodes"), "v1"));
  // Scope: a namespace is cluster-scoped although its requests carry its name as their namespace.
  Rule namespaced{{"*"}, {"*"}, {"*"}, {"*"}, "Namespaced"};
  Rule cluster{{"*"}, {"*"}, {"*"}, {"*"}, "Cluster"};
  EXPECT_TRUE(rule_matches_at(namespaced, attributes_for(Operation::Create, "ns", "pods"), "v1"));
  EXPECT_FALSE(rule_matches_at(namespaced, attributes_for(Operation::Create, "", "nodes"), "v1"));
  EXPECT_FALSE(rule_matches_at(namespaced, attributes_for(Operation::Delete, "ns", "namespaces"), "v1"));
  EXPECT_TRUE(rule_matches_at(cluster, attributes_for(Operation::Delete, "ns", "namespaces"), "v1"));
  EXPECT_FALSE(rule_matches_at(cluster, attributes_for(Operation::Create, "ns", "pods"), "v1"));
}

TEST(WebhookRulesTest, AdmissionConfigurationIsExempt) {
  Attributes attributes = attributes_for(Operation::Create, "", "validatingwebhookconfigurations");
  attributes.resource.group = "admissionregistration.k8s.io";
  EXPECT_TRUE(webhook::is_exempt_configuration_resource(attributes));
  attributes.resource.resource = "validatingadmissionpolicies";
  EXPECT_TRUE(webhook::is_exempt_configuration_resource(attributes));
  EXPECT_FALSE(webhook::is_exempt_configuration_resource(attributes_for(Operation::Create, "ns", "pods")));
}

TEST(AdmissionReviewTest, ResponsesAreVerifiedWithKubesMessages) {
  webhook::ReviewRequest v1{"abc", "v1", ""};
  auto error_of = [](const webhook::ReviewRequest& request, std::string_view body, bool mutating) -> std::string {
    try {
      webhook::read_review(request, body, mutating);
    } catch (const std::exception& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(v1, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}})", true),
            "expected response.uid=\"abc\", got \"x\"");
  EXPECT_EQ(error_of(v1, R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"abc","allowed":true}})", true),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview");
  EXPECT_EQ(error_of(v1, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", true),
            "webhook response was absent");
  EXPECT_EQ(error_of(v1, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"abc","allowed":true,"patch":"W10="}})", true),
            "webhook returned response.patch but not response.patchType");
  EXPECT_EQ(error_of(v1, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"abc","allowed":true,"patch":"W10=","patchType":"JSONPatch"}})", false),
            "validating webhook may not return response.patch");
  EXPECT_EQ(error_of(v1, "nope", true), "couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
  EXPECT_EQ(error_of(v1, R"({"response":{}})", true), "Object 'Kind' is missing in '{\"response\":{}}'");
  // v1beta1 answers were never checked for uid or type; a patch is a JSON patch.
  webhook::ReviewRequest v1beta1{"abc", "v1beta1", ""};
  webhook::ReviewResponse lenient = webhook::read_review(
      v1beta1, R"({"apiVersion":"x/y","kind":"AdmissionReview","response":{"uid":"other","allowed":true,"patch":"W10="}})", true);
  EXPECT_TRUE(lenient.allowed);
  EXPECT_EQ(lenient.patch, "[]");
  EXPECT_EQ(lenient.patch_type, "JSONPatch");
}

TEST(AdmissionReviewTest, ARefusalCarriesTheWebhooksStatusAtLeast400) {
  apierrors::Status with_code = webhook::denial_status(
      "a.example.com", json::parse(R"({"code":403,"reason":"Forbidden","message":"no"})").as_object());
  EXPECT_EQ(with_code.code, 403);
  EXPECT_EQ(with_code.reason, "Forbidden");
  EXPECT_EQ(with_code.message, "admission webhook \"a.example.com\" denied the request: no");
  apierrors::Status low = webhook::denial_status("a.example.com", json::parse(R"({"code":200,"reason":"Because"})").as_object());
  EXPECT_EQ(low.code, 400);
  EXPECT_EQ(low.message, "admission webhook \"a.example.com\" denied the request: Because");
  apierrors::Status none = webhook::denial_status("a.example.com", std::nullopt);
  EXPECT_EQ(none.code, 400);
  EXPECT_EQ(none.message, "admission webhook \"a.example.com\" denied the request without explanation");
}

// A TLS webhook on loopback whose answers the test chooses, and the stores configurations are read from.
// A plugin the test keeps, lent to a chain.
class Borrowed final : public Plugin {
 public:
  explicit Borrowed(Plugin& plugin) : plugin_(plugin) {}
  bool handles(const Attributes& attributes) const override { return plugin_.handles(attributes); }
  bool mutates() const override { return plugin_.mutates(); }
  bool validates() const override { return plugin_.validates(); }
  asio::awaitable<void> admit(Attributes& attributes) override { return plugin_.admit(attributes); }
  asio::awaitable<void> validate(const Attributes& attributes) override { return plugin_.validate(attributes); }

 private:
  Plugin& plugin_;
};

class WebhookPluginTest : public ::testing::Test {
 protected:
  using Answer = std::function<json::object(const json::object& request)>;

  WebhookPluginTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    auto definition = [](std::string group, std::string resource, std::string kind, bool namespaced) {
      registry::ResourceDefinition out;
      out.group = std::move(group);
      out.version = "v1";
      out.resource = std::move(resource);
      out.kind = std::move(kind);
      out.namespaced = namespaced;
      return out;
    };
    mutating_store_ = std::make_unique<registry::Store>(
        definition("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false),
        strategy_, *backend_);
    validating_store_ = std::make_unique<registry::Store>(
        definition("admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false),
        strategy_, *backend_);
    namespaces_ = std::make_unique<registry::Store>(definition("", "namespaces", "Namespace", false), strategy_, *backend_);

    pki::EvpPkeyPtr ca_key = pki::generate_ecdsa_p256_key();
    pki::X509Ptr ca = pki::self_sign_certificate_authority(
        {"webhook-ca", {}, pki::CertificateUsage::certificate_authority, 365, {}}, ca_key.get());
    pki::EvpPkeyPtr key = pki::generate_ecdsa_p256_key();
    pki::X509Ptr cert = pki::issue_certificate(
        {"webhook", {}, pki::CertificateUsage::server_auth, 365, {{pki::SubjectAltName::Kind::ip, "127.0.0.1"}}},
        key.get(), {ca.get(), ca_key.get()});
    ca_bundle_ = base::base64_encode(pki::certificate_to_pem(ca.get()));
    std::ofstream(dir_.path() / "tls.crt") << pki::certificate_to_pem(cert.get());
    std::ofstream(dir_.path() / "tls.key") << pki::private_key_to_pem(key.get());
    http::ConnectionOptions connection_options;
    connection_options.read_header_timeout = 1s;
    server_ = std::make_unique<http::HttpServer>(
        io_.context(), connection_options,
        [this](http::Request& request, http::ResponseWriter& response) { return serve(request, response); });
    port_ = server_->listen({asio::ip::make_address("127.0.0.1"), 0},
                           http::make_server_tls_context({dir_.path() / "tls.crt", dir_.path() / "tls.key", {}, {}}))
                .port();
    server_->start();

    context_.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
      if (group == "admissionregistration.k8s.io" && resource == "mutatingwebhookconfigurations") return mutating_store_.get();
      if (group == "admissionregistration.k8s.io" && resource == "validatingwebhookconfigurations") return validating_store_.get();
      if (group.empty() && resource == "namespaces") return namespaces_.get();
      return nullptr;
    };
    context_.metrics = &metrics_;
  }

  ~WebhookPluginTest() override {
    server_->stop_accepting();
    server_->connections().close_all_when_idle();
    io_.run(drain());
  }

  asio::awaitable<void> drain() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (auto give_up = std::chrono::steady_clock::now() + 3s;
         server_->connections().size() > 0 && std::chrono::steady_clock::now() < give_up;) {
      timer.expires_after(2ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  asio::awaitable<void> serve(http::Request& request, http::ResponseWriter& response) {
    json::object review = json::parse(request.body).as_object();
    json::object answer;
    {
      std::lock_guard lock(mutex_);
      reviews_.push_back(review);
      paths_.push_back(request.target);
      answer = answer_ ? answer_(review.at("request").as_object()) : json::object{{"allowed", true}};
    }
    if (!answer.contains("uid")) answer["uid"] = review.at("request").at("uid");
    json::object out{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", answer}};
    response.headers().set("Content-Type", "application/json");
    co_await response.write(200, json::serialize(out));
  }

  void answer_with(Answer answer) {
    std::lock_guard lock(mutex_);
    answer_ = std::move(answer);
  }

  json::object webhook(std::string name, std::string path, json::object extra = {}) {
    json::object hook{{"name", std::move(name)},
                      {"clientConfig", json::object{{"url", "https://127.0.0.1:" + std::to_string(port_) + path},
                                                    {"caBundle", ca_bundle_}}},
                      {"rules", json::array{json::object{{"operations", json::array{"*"}},
                                                         {"apiGroups", json::array{""}},
                                                         {"apiVersions", json::array{"v1"}},
                                                         {"resources", json::array{"configmaps"}}}}},
                      {"sideEffects", "None"},
                      {"admissionReviewVersions", json::array{"v1"}}};
    for (auto& [key, value] : extra) hook[key] = value;
    return hook;
  }

  void configure(bool mutating, std::string name, json::array webhooks) {
    json::object configuration{{"metadata", json::object{{"name", std::move(name)}}}, {"webhooks", std::move(webhooks)}};
    registry::Store& store = mutating ? *mutating_store_ : *validating_store_;
    io_.run(store.create("", std::move(configuration), {}));
  }

  void make_namespace(std::string name, json::object labels) {
    json::object object{{"metadata", json::object{{"name", std::move(name)}, {"labels", std::move(labels)}}}};
    io_.run(namespaces_->create("", std::move(object), {}));
  }

  // A configmap create in `namespace_`, run through the plugin's admit (mutating) or validate.
  struct Outcome {
    json::object object;
    std::optional<apierrors::Status> error;
    request::RequestContext context;
  };
  Outcome create(Plugin& plugin, std::string namespace_, json::object labels = {}, bool dry_run = false) {
    Outcome outcome;
    outcome.object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                      {"metadata", json::object{{"name", "cm"}, {"namespace", namespace_}, {"labels", std::move(labels)}}}};
    Attributes attributes;
    attributes.operation = Operation::Create;
    attributes.kind = {"", "v1", "ConfigMap"};
    attributes.resource = {"", "v1", "configmaps"};
    attributes.namespace_ = namespace_;
    attributes.name = "cm";
    attributes.dry_run = dry_run;
    admit(plugin, attributes, outcome);
    return outcome;
  }

  // Runs `attributes` (with `outcome`'s object and context) through a chain of `plugin` alone: a mutating chain
  // reinvokes its plugins when a webhook asks.
  // `after`: mutating plugins that follow it.
  void admit(Plugin& plugin, Attributes& attributes, Outcome& outcome, std::unique_ptr<Plugin> after = nullptr) {
    attributes.object = &outcome.object;
    attributes.user = &user_;
    attributes.context = &outcome.context;
    EXPECT_TRUE(plugin.handles(attributes));
    std::vector<Chain::NamedPlugin> plugins;
    plugins.push_back({"webhook", std::make_unique<Borrowed>(plugin)});
    if (after) plugins.push_back({"after", std::move(after)});
    const Chain chain(std::move(plugins));
    try {
      if (plugin.mutates()) io_.run(chain.admit(attributes));
      else io_.run(chain.validate(attributes));
    } catch (const apierrors::ApiError& error) {
      outcome.error = error.status();
    }
  }

  std::vector<json::object> reviews() {
    std::lock_guard lock(mutex_);
    return reviews_;
  }

  test_support::TempDir dir_{"kapi-webhook-test"};
  test_support::IoThread io_;
  std::unique_ptr<storage::Interface> backend_;
  std::shared_ptr<const registry::Strategy> strategy_ = std::make_shared<registry::Strategy>();
  std::unique_ptr<registry::Store> mutating_store_, validating_store_, namespaces_;
  std::unique_ptr<http::HttpServer> server_;
  int port_ = 0;
  std::string ca_bundle_;
  metrics::Registry metrics_;
  PluginContext context_;
  request::UserInfo user_{"alice", "u-1", {"devs", "system:authenticated"}, {}};
  std::mutex mutex_;
  Answer answer_;
  std::vector<json::object> reviews_;
  std::vector<std::string> paths_;
};

json::object patch_answer(const json::array& patch) {
  return {{"allowed", true}, {"patchType", "JSONPatch"}, {"patch", base::base64_encode(json::serialize(patch))}};
}

TEST_F(WebhookPluginTest, AMutatingWebhookPatchesTheObjectAndIsSentKubesReview) {
  configure(true, "m", json::array{webhook("add.example.com", "/add")});
  answer_with([](const json::object&) {
    return patch_answer(json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/added"}, {"value", "yes"}}});
  });
  auto plugin = make_mutating_admission_webhook(context_);
  Outcome outcome = create(*plugin, "default");
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  EXPECT_EQ(outcome.object.at("metadata").at("labels").at("added"), "yes");
  const std::vector<json::object> seen = reviews();
  ASSERT_EQ(seen.size(), 1u);
  const json::object& request = seen[0].at("request").as_object();
  EXPECT_EQ(paths_[0], "/add?timeout=10s");
  EXPECT_EQ(request.at("operation"), "CREATE");
  EXPECT_EQ(request.at("namespace"), "default");
  EXPECT_EQ(request.at("name"), "cm");
  EXPECT_EQ(json::serialize(request.at("userInfo")), R"({"username":"alice","uid":"u-1","groups":["devs","system:authenticated"]})");
  EXPECT_EQ(request.at("dryRun"), false);
  EXPECT_EQ(outcome.context.audit_annotations.at("mutation.webhook.admission.k8s.io/round_0_index_0"),
            R"({"configuration":"m","webhook":"add.example.com","mutated":true})");
}

TEST_F(WebhookPluginTest, ARefusalAndItsMetrics) {
  configure(false, "v", json::array{webhook("deny.example.com", "/deny")});
  answer_with([](const json::object&) {
    return json::object{{"allowed", false}, {"status", json::object{{"code", 422}, {"message", "bad object"}}}};
  });
  auto plugin = make_validating_admission_webhook(context_);
  Outcome outcome = create(*plugin, "default");
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->code, 422);
  EXPECT_EQ(outcome.error->message, "admission webhook \"deny.example.com\" denied the request: bad object");
  const std::string rendered = metrics_.render();
  EXPECT_NE(rendered.find("apiserver_admission_webhook_rejection_count{error_type=\"no_error\",name=\"deny.example.com\","
                          "operation=\"CREATE\",rejection_code=\"422\",type=\"validating\"} 1"),
            std::string::npos)
      << rendered;
}

TEST_F(WebhookPluginTest, ValidatingWebhooksAreAllCalledAndWarningsAndAnnotationsRecorded) {
  configure(false, "v", json::array{webhook("one.example.com", "/one"), webhook("two.example.com", "/two")});
  answer_with([](const json::object&) {
    return json::object{{"allowed", true}, {"warnings", json::array{"careful"}},
                        {"auditAnnotations", json::object{{"seen", "yes"}}}};
  });
  auto plugin = make_validating_admission_webhook(context_);
  Outcome outcome = create(*plugin, "default");
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  EXPECT_EQ(reviews().size(), 2u);
  EXPECT_EQ(outcome.context.warnings, (std::vector<std::string>{"careful", "careful"}));
  EXPECT_EQ(outcome.context.audit_annotations.at("one.example.com/seen"), "yes");
  EXPECT_EQ(outcome.context.audit_annotations.at("two.example.com/seen"), "yes");
}

TEST_F(WebhookPluginTest, SelectorsChooseWhichRequestsAreSent) {
  make_namespace("selected", {{"team", "a"}});
  make_namespace("other", {{"team", "b"}});
  configure(false, "v", json::array{webhook("sel.example.com", "/sel",
                                            {{"namespaceSelector", json::object{{"matchLabels", json::object{{"team", "a"}}}}},
                                             {"objectSelector", json::object{{"matchLabels", json::object{{"check", "yes"}}}}}})});
  answer_with([](const json::object&) { return json::object{{"allowed", false}}; });
  auto plugin = make_validating_admission_webhook(context_);
  EXPECT_FALSE(create(*plugin, "other", {{"check", "yes"}}).error);
  EXPECT_FALSE(create(*plugin, "selected", {{"check", "no"}}).error);
  Outcome refused = create(*plugin, "selected", {{"check", "yes"}});
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->message, "admission webhook \"sel.example.com\" denied the request without explanation");
  // A namespace that does not exist is its 404 for a webhook that applies.
  Outcome missing = create(*plugin, "missing", {{"check", "yes"}});
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->code, 404);
  EXPECT_EQ(reviews().size(), 1u);
}

TEST_F(WebhookPluginTest, FailurePolicyDecidesWhenTheCallFails) {
  json::object refused_config{{"url", "https://127.0.0.1:1/x"}, {"caBundle", ca_bundle_}};
  configure(false, "v", json::array{webhook("fail.example.com", "/", {{"clientConfig", refused_config}})});
  auto plugin = make_validating_admission_webhook(context_);
  Outcome failed = create(*plugin, "default");
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(failed.error->code, 500);
  EXPECT_EQ(failed.error->message,
            "Internal error occurred: failed calling webhook \"fail.example.com\": failed to call webhook: Post "
            "\"https://127.0.0.1:1/x?timeout=10s\": dial tcp 127.0.0.1:1: connect: connection refused");
  EXPECT_NE(metrics_.render().find("apiserver_admission_webhook_rejection_count{error_type=\"calling_webhook_error\","
                                   "name=\"fail.example.com\",operation=\"CREATE\",rejection_code=\"400\""),
            std::string::npos);

  configure(false, "w", json::array{webhook("ignore.example.com", "/", {{"clientConfig", refused_config}, {"failurePolicy", "Ignore"}})});
  io_.run(validating_store_->remove("", "v", {}));
  Outcome ignored = create(*plugin, "default");
  EXPECT_FALSE(ignored.error);
  EXPECT_EQ(ignored.context.audit_annotations.at("failed-open.validating.webhook.admission.k8s.io/round_0_index_0"),
            "ignore.example.com");
}

TEST_F(WebhookPluginTest, DryRunNeedsAWebhookWithoutSideEffects) {
  configure(true, "m", json::array{webhook("none.example.com", "/none")});
  auto plugin = make_mutating_admission_webhook(context_);
  EXPECT_FALSE(create(*plugin, "default", {}, true).error);
  EXPECT_EQ(reviews().back().at("request").at("dryRun"), true);
  // v1 only stores None and NoneOnDryRun; v1beta1's Unknown (or a configuration written around validation) is
  // refused on dry run with kube's error.
  configure(true, "n", json::array{webhook("unknown.example.com", "/unknown", {{"sideEffects", "Unknown"}})});
  Outcome refused = create(*plugin, "default", {}, true);
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->code, 400);
  EXPECT_EQ(refused.error->message, "admission webhook \"unknown.example.com\" does not support dry run");
}

TEST_F(WebhookPluginTest, AnIfNeededWebhookIsReinvokedOnceWhenALaterOneChangedTheObject) {
  configure(true, "a", json::array{webhook("first.example.com", "/first", {{"reinvocationPolicy", "IfNeeded"}})});
  configure(true, "b", json::array{webhook("second.example.com", "/second")});
  answer_with([](const json::object& request) {
    const json::object& labels = request.at("object").at("metadata").at("labels").as_object();
    if (!labels.contains("second"))
      return patch_answer(json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/second"}, {"value", "x"}}});
    return json::object{{"allowed", true}};
  });
  auto plugin = make_mutating_admission_webhook(context_);
  Outcome outcome = create(*plugin, "default");
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  // first (no change... it adds "second"), second (no change), then first is not reinvoked: only first changed
  // the object and nothing changed it after.
  EXPECT_EQ(reviews().size(), 2u);
  EXPECT_EQ(paths_[0], "/first?timeout=10s");
}

TEST_F(WebhookPluginTest, ReinvocationFollowsALaterChange) {
  configure(true, "a", json::array{webhook("first.example.com", "/first", {{"reinvocationPolicy", "IfNeeded"}})});
  configure(true, "b", json::array{webhook("second.example.com", "/second")});
  answer_with([](const json::object& request) {
    const json::object& labels = request.at("object").at("metadata").at("labels").as_object();
    if (!labels.contains("second") && labels.contains("first"))
      return patch_answer(json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/second"}, {"value", "x"}}});
    if (!labels.contains("first"))
      return patch_answer(json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/first"}, {"value", "x"}}});
    return json::object{{"allowed", true}};
  });
  auto plugin = make_mutating_admission_webhook(context_);
  Outcome outcome = create(*plugin, "default");
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  ASSERT_EQ(reviews().size(), 3u);
  EXPECT_EQ(paths_[2], "/first?timeout=10s");
  EXPECT_EQ(outcome.context.audit_annotations.at("mutation.webhook.admission.k8s.io/round_1_index_0"),
            R"({"configuration":"a","webhook":"first.example.com","mutated":false})");
}

TEST_F(WebhookPluginTest, AnAppliedPatchIsAnAuditAnnotationWhenTheAuditLevelRecordsRequests) {
  configure(true, "m", json::array{webhook("add.example.com", "/add")});
  answer_with([](const json::object&) {
    return patch_answer(json::array{json::object{{"value", "yes"}, {"path", "/metadata/labels/added"}, {"op", "add"}}});
  });
  auto plugin = make_mutating_admission_webhook(context_);
  Outcome metadata_level = create(*plugin, "default");
  ASSERT_FALSE(metadata_level.error) << metadata_level.error->message;
  EXPECT_FALSE(metadata_level.context.audit_annotations.contains("patch.webhook.admission.k8s.io/round_0_index_0"));

  Outcome request_level;
  request_level.context.audit_records_requests = true;
  request_level.object = metadata_level.object;
  registry::metadata_of(request_level.object)["labels"] = json::object();
  Attributes attributes;
  attributes.kind = {"", "v1", "ConfigMap"};
  attributes.resource = {"", "v1", "configmaps"};
  attributes.namespace_ = "default";
  attributes.name = "cm";
  admit(*plugin, attributes, request_level);
  ASSERT_FALSE(request_level.error) << request_level.error->message;
  // Go marshals each operation's keys in order.
  EXPECT_EQ(request_level.context.audit_annotations.at("patch.webhook.admission.k8s.io/round_0_index_0"),
            R"({"configuration":"m","webhook":"add.example.com","patch":[{"op":"add","path":"/metadata/labels/added",)"
            R"("value":"yes"}],"patchType":"JSONPatch"})");
}

// An in-tree plugin that labels what a webhook labelled (as LimitRanger defaults a container a webhook added).
class LabelsAfterWebhooks final : public Plugin {
 public:
  bool handles(const Attributes&) const override { return true; }
  bool mutates() const override { return true; }
  asio::awaitable<void> admit(Attributes& attributes) override {
    json::object& labels = attributes.object->at("metadata").at("labels").as_object();
    if (labels.contains("first") && !labels.contains("defaulted")) labels["defaulted"] = "x";
    co_return;
  }
};

TEST_F(WebhookPluginTest, AnIfNeededWebhookSeesWhatInTreePluginsChangedAfterIt) {
  configure(true, "a", json::array{webhook("first.example.com", "/first", {{"reinvocationPolicy", "IfNeeded"}})});
  answer_with([](const json::object& request) {
    const json::object& labels = request.at("object").at("metadata").at("labels").as_object();
    if (!labels.contains("first"))
      return patch_answer(json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/first"}, {"value", "x"}}});
    return json::object{{"allowed", true}};
  });
  auto plugin = make_mutating_admission_webhook(context_);
  const json::object configmap{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", json::object{{"name", "cm"}, {"namespace", "default"}, {"labels", json::object{}}}}};
  Outcome outcome;
  outcome.object = configmap;
  Attributes attributes;
  attributes.kind = {"", "v1", "ConfigMap"};
  attributes.resource = {"", "v1", "configmaps"};
  attributes.namespace_ = "default";
  attributes.name = "cm";
  admit(*plugin, attributes, outcome, std::make_unique<LabelsAfterWebhooks>());
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  // The webhook's change reinvokes the chain; the plugin after it changed the object since, so the webhook is
  // called once more and sees that change.
  ASSERT_EQ(reviews().size(), 2u);
  EXPECT_TRUE(reviews()[1].at("request").at("object").at("metadata").at("labels").as_object().contains("defaulted"));
  EXPECT_EQ(outcome.context.audit_annotations.at("mutation.webhook.admission.k8s.io/round_1_index_0"),
            R"({"configuration":"a","webhook":"first.example.com","mutated":false})");

  // Without a later change the second pass does not call it.
  Outcome again;
  again.object = configmap;
  admit(*plugin, attributes, again);
  ASSERT_FALSE(again.error) << again.error->message;
  EXPECT_EQ(reviews().size(), 3u);
}

// example.com Widgets at v1 and v2, kept as v2, whose objects differ: v1's spec.size is v2's spec.replicas.
ObjectInterfaces widget_versions() {
  TwoVersions widgets = two_versions("widgets", "Widget", "size", "replicas");
  ObjectInterfaces interfaces;
  interfaces.add(std::move(widgets.v1));
  interfaces.add(std::move(widgets.v2));
  return interfaces;
}

json::array widget_rules(std::string version) {
  return json::array{json::object{{"operations", json::array{"*"}},
                                  {"apiGroups", json::array{"example.com"}},
                                  {"apiVersions", json::array{std::move(version)}},
                                  {"resources", json::array{"widgets"}}}};
}

TEST_F(WebhookPluginTest, UnderMatchPolicyEquivalentAWebhookIsCalledWithTheRequestConvertedToItsVersion) {
  configure(true, "a", json::array{webhook("equivalent.example.com", "/equivalent",
                                           {{"rules", widget_rules("v2")}, {"matchPolicy", "Equivalent"}})});
  configure(true, "b", json::array{webhook("exact.example.com", "/exact",
                                           {{"rules", widget_rules("v2")}, {"matchPolicy", "Exact"}})});
  configure(true, "c", json::array{webhook("v1.example.com", "/v1", {{"rules", widget_rules("v1")}})});
  answer_with([](const json::object& request) {
    const json::object& spec = request.at("object").at("spec").as_object();
    // The v2 webhook doubles replicas; the v1 one, called after it, adds one to size.
    if (request.at("kind").at("version") == "v2")
      return patch_answer(json::array{json::object{
          {"op", "replace"}, {"path", "/spec/replicas"}, {"value", spec.at("replicas").as_int64() * 2}}});
    return patch_answer(
        json::array{json::object{{"op", "replace"}, {"path", "/spec/size"}, {"value", spec.at("size").as_int64() + 1}}});
  });
  const ObjectInterfaces versions = widget_versions();
  auto plugin = make_mutating_admission_webhook(context_);
  Outcome outcome;
  outcome.object = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"},
                    {"metadata", json::object{{"name", "w"}, {"namespace", "default"}}},
                    {"spec", json::object{{"size", 3}}}};
  Attributes attributes;
  attributes.kind = {"example.com", "v1", "Widget"};
  attributes.resource = {"example.com", "v1", "widgets"};
  attributes.namespace_ = "default";
  attributes.name = "w";
  attributes.object_interfaces = &versions;
  admit(*plugin, attributes, outcome);
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  // The Exact webhook is not called; the other two see the object in their own version, each after the other's
  // change, and the request keeps its version.
  ASSERT_EQ(reviews().size(), 2u);
  const json::object converted = reviews()[0].at("request").as_object();
  EXPECT_EQ(converted.at("kind"), (json::object{{"group", "example.com"}, {"version", "v2"}, {"kind", "Widget"}}));
  EXPECT_EQ(converted.at("resource"),
            (json::object{{"group", "example.com"}, {"version", "v2"}, {"resource", "widgets"}}));
  EXPECT_EQ(converted.at("requestKind"),
            (json::object{{"group", "example.com"}, {"version", "v1"}, {"kind", "Widget"}}));
  EXPECT_EQ(converted.at("object").at("apiVersion"), "example.com/v2");
  EXPECT_EQ(converted.at("object").at("spec"), (json::object{{"replicas", 3}}));
  EXPECT_EQ(reviews()[1].at("request").at("object").at("spec"), (json::object{{"size", 6}}));
  EXPECT_EQ(outcome.object.at("apiVersion"), "example.com/v1");
  EXPECT_EQ(outcome.object.at("spec"), (json::object{{"size", 7}}));

  // A validating webhook sees the converted objects too, the old one included.
  configure(false, "v", json::array{webhook("check.example.com", "/check", {{"rules", widget_rules("v2")}})});
  answer_with([](const json::object&) { return json::object{{"allowed", true}}; });
  auto validating = make_validating_admission_webhook(context_);
  const json::object old{{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"spec", json::object{{"size", 1}}}};
  attributes.operation = Operation::Update;
  attributes.old_object = &old;
  Outcome validated;
  validated.object = outcome.object;
  admit(*validating, attributes, validated);
  ASSERT_FALSE(validated.error) << validated.error->message;
  const json::object checked = reviews().back().at("request").as_object();
  EXPECT_EQ(checked.at("object").at("spec"), (json::object{{"replicas", 7}}));
  EXPECT_EQ(checked.at("oldObject").at("spec"), (json::object{{"replicas", 1}}));
}

TEST_F(WebhookPluginTest, ConfigurationWritesActOnTheNextRequest) {
  auto plugin = make_mutating_admission_webhook(context_);
  EXPECT_FALSE(create(*plugin, "default").error);
  EXPECT_EQ(reviews().size(), 0u);
  configure(true, "m", json::array{webhook("late.example.com", "/late")});
  answer_with([](const json::object&) { return json::object{{"allowed", false}}; });
  EXPECT_TRUE(create(*plugin, "default").error);
  io_.run(mutating_store_->remove("", "m", {}));
  EXPECT_FALSE(create(*plugin, "default").error);
}

}  // namespace
}  // namespace webhook_test
}  // namespace kapi::admission

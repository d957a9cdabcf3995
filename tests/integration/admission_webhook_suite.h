#pragma once
// What the webhook suites share: webhook configurations built from a few fields, the sample webhook process
// (tests/support/sample_webhook) the suite's kapi calls over HTTPS, and configmap helpers.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/sample_webhook_process.h"

#include <boost/json.hpp>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kapi::integration {

using test_support::SampleWebhookProcess;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
constexpr std::string_view kMutating = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
constexpr std::string_view kValidating = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

// One webhook of a configuration; what the tests vary.
struct Hook {
  std::string name;
  json::object client_config;
  std::string namespace_label;  // namespaceSelector: webhook-test=<value>
  std::string resources = "configmaps";
  std::string group;
  std::string failure_policy = "Fail";
  int timeout_seconds = 10;
  std::string side_effects = "None";
  json::object object_selector = {};
  std::string reinvocation_policy = {};
  std::vector<std::string> operations = {"CREATE", "UPDATE"};
  std::string api_version = "*";
  std::string match_policy = {};  // the default (Equivalent) when empty
};

inline json::object webhook_json(const Hook& hook, bool mutating) {
  json::object webhook{
      {"name", hook.name},
      {"clientConfig", hook.client_config},
      {"rules", json::array{json::object{{"operations", json::value_from(hook.operations)},
                                         {"apiGroups", json::array{json::value(hook.group)}},
                                         {"apiVersions", json::array{json::value(hook.api_version)}},
                                         {"resources", json::array{json::value(hook.resources)}}}}},
      {"failurePolicy", hook.failure_policy},
      {"sideEffects", hook.side_effects},
      {"timeoutSeconds", hook.timeout_seconds},
      {"admissionReviewVersions", json::array{"v1"}},
      {"namespaceSelector", json::object{{"matchLabels", json::object{{"webhook-test", hook.namespace_label}}}}}};
  if (!hook.object_selector.empty()) webhook["objectSelector"] = hook.object_selector;
  if (!hook.match_policy.empty()) webhook["matchPolicy"] = hook.match_policy;
  if (mutating && !hook.reinvocation_policy.empty()) webhook["reinvocationPolicy"] = hook.reinvocation_policy;
  return webhook;
}

inline json::object url_config(const SampleWebhookProcess& server, std::string_view path) {
  return {{"url", server.url(path)}, {"caBundle", server.ca_bundle_base64()}};
}

inline std::string configmap(std::string_view name, json::object labels = {}) {
  return json::serialize(json::object{{"apiVersion", "v1"},
                                      {"kind", "ConfigMap"},
                                      {"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
                                      {"data", json::object{{"a", "1"}}}});
}

// A pod of one nginx container named "main".
inline std::string nginx_pod(std::string_view name) {
  return json::serialize(json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name}}},
      {"spec", json::object{{"containers", json::array{json::object{{"name", "main"}, {"image", "nginx"}}}}}}});
}

inline std::string configmaps(std::string_view namespace_) {
  return "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps";
}

// The object's labels as "key=value" in key order.
inline std::string labels_of(const std::string& body) {
  boost::system::error_code error;
  json::value object = json::parse(body, error);
  if (error || !object.is_object()) return "not JSON: " + body;
  const json::value* labels = object.as_object().at("metadata").as_object().if_contains("labels");
  std::map<std::string, std::string> sorted;
  if (labels && labels->is_object())
    for (const auto& [key, value] : labels->as_object()) sorted[std::string(key)] = json::serialize(value);
  std::string out;
  for (const auto& [key, value] : sorted) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

// A suite of webhook tests: its kapi, the sample webhook it calls, and the configurations each test makes (deleted
// after it).
template <typename Suite>
class WebhookSuite : public KapiSuite<Suite> {
 protected:
  using Base = KapiSuite<Suite>;

  static void SetUpTestSuite() {
    Base::SetUpTestSuite();
    server_ = std::make_unique<SampleWebhookProcess>();
  }
  static void TearDownTestSuite() {
    server_.reset();
    Base::TearDownTestSuite();
  }
  void TearDown() override {
    if (this->HasFailure() && server_) std::cerr << server_->logs();
    Base::TearDown();
  }

  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return Base::kapi().connect_admin().request(method, target, kJson, body);
  }
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(Base::kapi(), arguments, 60); }

  // A namespace labelled webhook-test=<name> (what the test's webhooks select).
  void make_namespace(const std::string& name) {
    HttpResponse created = call("POST", "/api/v1/namespaces",
                                json::serialize(json::object{{"apiVersion", "v1"},
                                                             {"kind", "Namespace"},
                                                             {"metadata", json::object{{"name", name},
                                                                                       {"labels", json::object{{"webhook-test", name}}}}}}));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  void make_configuration(bool mutating, const std::string& name, const std::vector<Hook>& hooks) {
    json::array webhooks;
    for (const Hook& hook : hooks) webhooks.push_back(webhook_json(hook, mutating));
    json::object configuration{{"apiVersion", "admissionregistration.k8s.io/v1"},
                               {"kind", mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"},
                               {"metadata", json::object{{"name", name}}},
                               {"webhooks", std::move(webhooks)}};
    HttpResponse created = call("POST", mutating ? kMutating : kValidating, json::serialize(configuration));
    ASSERT_EQ(created.status, 201) << created.body;
    configurations_.emplace_back(mutating ? kMutating : kValidating, name);
  }
  void TearDownConfigurations() {
    for (const auto& [collection, name] : configurations_) call("DELETE", std::string(collection) + "/" + name);
  }
  ~WebhookSuite() override { TearDownConfigurations(); }

  // A configuration acts once the watch cache has it: creates (dry run, so nothing is kept) are retried until
  // `active` holds for the answer, at most 10 s; the last answer.
  HttpResponse until(const std::string& namespace_, const std::string& body,
                     const std::function<bool(const HttpResponse&)>& active) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10); std::chrono::steady_clock::now() < deadline;) {
      response = call("POST", configmaps(namespace_) + "?dryRun=All", body);
      if (active(response)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return response;
  }

  static inline std::unique_ptr<SampleWebhookProcess> server_;
  std::vector<std::pair<std::string_view, std::string>> configurations_;
};

inline bool refused(const HttpResponse& response) { return response.status >= 400; }

}  // namespace kapi::integration

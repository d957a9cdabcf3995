// The webhook configuration managers and accessors (k8s.io/apiserver/pkg/admission/configuration and
// pkg/admission/plugin/webhook/accessors.go): configurations sorted by name, each webhook with its uid, parsed
// selectors and client settings. v1 defaults fill what a stored object leaves out.
#include "server/plugin/admission/webhook/configuration.h"

#include "base/base64.h"
#include "server/apis/admissionregistration/admission_cel.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "server/selectors/metav1_label_selector.h"

namespace kapi::admission::webhook {
namespace {

namespace json = boost::json;

std::string string_or(const json::object& object, std::string_view key, std::string fallback = {}) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::move(fallback);
}

std::vector<std::string> strings(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  const json::value* value = object.if_contains(key);
  if (!value || !value->is_array()) return out;
  for (const json::value& item : value->as_array())
    if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

}  // namespace

// A missing selector is v1's default {} (everything). One that does not parse cannot be stored (validation
// refuses it); it matches nothing rather than everything.
selectors::LabelSelector selector_of(const json::object& holder, std::string_view key) {
  const json::value* value = holder.if_contains(key);
  if (!value || !value->is_object()) return {};
  std::optional<selectors::LabelSelector> parsed = selectors::label_selector_from_metav1(value->as_object());
  if (parsed) return *parsed;
  return selectors::LabelSelector::parse("a-key-no-object-has,!a-key-no-object-has");
}

Rule parse_rule(const json::object& rule) {
  return Rule{strings(rule, "operations"), strings(rule, "apiGroups"), strings(rule, "apiVersions"),
              strings(rule, "resources"), string_or(rule, "scope", "*"), strings(rule, "resourceNames")};
}

void parse_configuration(const json::object& configuration, bool mutating, const std::filesystem::path& client_cert_file,
                         const std::filesystem::path& client_key_file, WebhookList& out) {
  const std::string configuration_name(registry::meta_string(configuration, "name"));
  const json::value* webhooks = configuration.if_contains("webhooks");
  if (!webhooks || !webhooks->is_array()) return;
  std::size_t index = 0;
  for (const json::value& item : webhooks->as_array()) {
    if (!item.is_object()) continue;
    const json::object& hook = item.as_object();
    Webhook webhook;
    webhook.name = string_or(hook, "name");
    webhook.configuration_name = configuration_name;
    webhook.uid = configuration_name + "/" + webhook.name + "/" + std::to_string(index++);
    std::string ca_bundle;
    if (const json::value* client = hook.if_contains("clientConfig"); client && client->is_object()) {
      const json::object& config = client->as_object();
      if (const json::value* url = config.if_contains("url"); url && url->is_string())
        webhook.url = std::string(url->as_string());
      if (const json::value* service = config.if_contains("service"); service && service->is_object()) {
        const json::object& reference = service->as_object();
        ServiceTarget target{string_or(reference, "namespace"), string_or(reference, "name"),
                             string_or(reference, "path"), 443};
        if (const json::value* port = reference.if_contains("port"); port && port->is_int64())
          target.port = static_cast<std::int32_t>(port->as_int64());
        webhook.service = std::move(target);
      }
      ca_bundle = base::base64_decode(string_or(config, "caBundle")).value_or("");
    }
    // The context is made on the first call (a bundle that does not parse fails that call, as client-go's
    // transport does), once per version of the configuration.
    webhook.tls = proxy::LazyTlsContext([ca_bundle, client_cert_file, client_key_file] {
      return proxy::make_backend_tls(ca_bundle, false, client_cert_file, client_key_file);
    });
    if (const json::value* rules = hook.if_contains("rules"); rules && rules->is_array())
      for (const json::value& rule : rules->as_array())
        if (rule.is_object()) webhook.rules.push_back(parse_rule(rule.as_object()));
    webhook.fail_open = string_or(hook, "failurePolicy", "Fail") == "Ignore";
    webhook.match_equivalent = string_or(hook, "matchPolicy", "Equivalent") == "Equivalent";
    webhook.namespace_selector = selector_of(hook, "namespaceSelector");
    webhook.object_selector = selector_of(hook, "objectSelector");
    if (const json::value* side_effects = hook.if_contains("sideEffects"); side_effects && side_effects->is_string())
      webhook.side_effects = std::string(side_effects->as_string());
    if (const json::value* timeout = hook.if_contains("timeoutSeconds"); timeout && timeout->is_int64())
      webhook.timeout_seconds = static_cast<int>(timeout->as_int64());
    webhook.admission_review_versions = strings(hook, "admissionReviewVersions");
    webhook.reinvoke_if_needed = mutating && string_or(hook, "reinvocationPolicy", "Never") == "IfNeeded";
    if (const json::value* conditions = hook.if_contains("matchConditions");
        conditions && conditions->is_array() && !conditions->as_array().empty()) {
      // Compiled once per version of the configuration (kube's GetCompiledMatcher caches them per accessor).
      static const apis::admissionregistration::AdmissionCompiler compiler(
          {.params = false, .authorizer = true}, {}, false, true,
          apis::admissionregistration::Environments::Stored);
      webhook.match_conditions = std::make_shared<const std::vector<cel_runtime::MatchCondition>>(
          cel_runtime::compile_match_conditions(conditions->as_array(), compiler));
    }
    out.push_back(std::move(webhook));
  }
}

ConfigurationSource::ConfigurationSource(registry::Store* store, bool mutating, std::filesystem::path client_cert_file,
                                         std::filesystem::path client_key_file)
    : informer_(store),
      mutating_(mutating),
      client_cert_file_(std::move(client_cert_file)),
      client_key_file_(std::move(client_key_file)),
      snapshot_(std::make_shared<const WebhookList>()) {}

void ConfigurationSource::start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping,
                                base::Logger& logger) {
  informer_.start(std::move(executor), std::move(stopping), logger,
                  mutating_ ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations");
}

asio::awaitable<std::shared_ptr<const WebhookList>> ConfigurationSource::webhooks() {
  std::shared_ptr<const registry::Informer::Objects> configurations = informer_.synced();
  if (!configurations) configurations = co_await informer_.objects();
  {
    std::lock_guard lock(mutex_);
    if (configurations->version != 0 && configurations->version == snapshot_version_) co_return snapshot_;
  }
  // Cluster-scoped: the informer's key order is name order.
  auto webhooks = std::make_shared<WebhookList>();
  for (const json::object& configuration : configurations->items)
    parse_configuration(configuration, mutating_, client_cert_file_, client_key_file_, *webhooks);
  std::lock_guard lock(mutex_);
  if (configurations->version == 0) co_return webhooks;
  // A slower reader of an older version must not replace a newer snapshot.
  if (configurations->version > snapshot_version_) {
    snapshot_version_ = configurations->version;
    snapshot_ = std::move(webhooks);
  }
  co_return snapshot_;
}

}  // namespace kapi::admission::webhook

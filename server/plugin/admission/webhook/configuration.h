#pragma once
// The webhooks of every MutatingWebhookConfiguration or ValidatingWebhookConfiguration, as kube's
// configuration managers (k8s.io/apiserver/pkg/admission/configuration: mutating_webhook_manager.go,
// validating_webhook_manager.go) and webhook accessors (pkg/admission/plugin/webhook/accessors.go) present them:
// configurations in name order, each one's webhooks in their order, with selectors parsed and TLS contexts made
// once per version of the configurations rather than once per request.
#include "server/plugin/admission/cel/match_conditions.h"
#include "server/proxy/backend.h"
#include "server/registry/informer.h"
#include "server/selectors/label_selector.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::webhook {

// admissionregistration.k8s.io/v1 RuleWithOperations.
struct Rule {
  std::vector<std::string> operations;
  std::vector<std::string> api_groups;
  std::vector<std::string> api_versions;
  std::vector<std::string> resources;
  std::string scope = "*";
  std::vector<std::string> resource_names;  // policies' NamedRuleWithOperations; empty matches every name
};

struct ServiceTarget {
  std::string namespace_;
  std::string name;
  std::string path;
  std::int32_t port = 443;
};

struct Webhook {
  std::string uid;  // "<configuration>/<webhook>/<index>", kube's accessor uid
  std::string name;
  std::string configuration_name;
  std::optional<std::string> url;
  std::optional<ServiceTarget> service;
  proxy::LazyTlsContext tls;  // trusts caBundle (the system roots without one)
  std::vector<Rule> rules;
  bool fail_open = false;          // failurePolicy Ignore (default Fail)
  bool match_equivalent = true;    // matchPolicy Equivalent (default)
  selectors::LabelSelector namespace_selector;
  selectors::LabelSelector object_selector;
  std::optional<std::string> side_effects;
  int timeout_seconds = 10;
  std::vector<std::string> admission_review_versions;
  bool reinvoke_if_needed = false;  // reinvocationPolicy IfNeeded (mutating only)
  // matchConditions, compiled; null when there are none.
  std::shared_ptr<const std::vector<cel_runtime::MatchCondition>> match_conditions;
};

using WebhookList = std::vector<Webhook>;

// A RuleWithOperations (or a policy's NamedRuleWithOperations) as stored.
Rule parse_rule(const boost::json::object& rule);
// A webhook's or policy's label selector member: a missing one matches everything, one that does not convert
// matches nothing.
selectors::LabelSelector selector_of(const boost::json::object& holder, std::string_view key);

// Parses one configuration object's webhooks (appended to `out`).
void parse_configuration(const boost::json::object& configuration, bool mutating,
                         const std::filesystem::path& client_cert_file, const std::filesystem::path& client_key_file,
                         WebhookList& out);

// The current webhooks of one configuration resource, read from an informer (registry/informer.h) as kube's
// configuration manager reads them: the configurations are parsed again only when one was written, created or
// deleted. Safe from any thread.
class ConfigurationSource {
 public:
  ConfigurationSource(registry::Store* store, bool mutating, std::filesystem::path client_cert_file,
                      std::filesystem::path client_key_file);

  // Follows the configurations from now on (without it, each call reads the watch cache).
  void start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger);

  asio::awaitable<std::shared_ptr<const WebhookList>> webhooks();

 private:
  registry::Informer informer_;
  bool mutating_;
  std::filesystem::path client_cert_file_;
  std::filesystem::path client_key_file_;
  std::mutex mutex_;
  std::uint64_t snapshot_version_ = 0;
  std::shared_ptr<const WebhookList> snapshot_;
};

}  // namespace kapi::admission::webhook

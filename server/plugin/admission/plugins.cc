#include "server/plugin/admission/plugins.h"

#include "base/log.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace kapi::admission {

// Each plugin's file under plugins/ defines its factory.
std::unique_ptr<Plugin> make_namespace_lifecycle(const PluginContext& context);
std::unique_ptr<Plugin> make_pod_security(const PluginContext& context);
std::unique_ptr<Plugin> make_mutating_admission_webhook(const PluginContext& context);
std::unique_ptr<Plugin> make_validating_admission_webhook(const PluginContext& context);
std::unique_ptr<Plugin> make_validating_admission_policy(const PluginContext& context);
std::unique_ptr<Plugin> make_resource_quota(const PluginContext& context);
std::unique_ptr<Plugin> make_service_account(const PluginContext& context);
std::unique_ptr<Plugin> make_taint_nodes_by_condition(const PluginContext& context);
std::unique_ptr<Plugin> make_priority(const PluginContext& context);
std::unique_ptr<Plugin> make_default_toleration_seconds(const PluginContext& context);
std::unique_ptr<Plugin> make_runtime_class(const PluginContext& context);
std::unique_ptr<Plugin> make_limit_ranger(const PluginContext& context);
std::unique_ptr<Plugin> make_default_storage_class(const PluginContext& context);
std::unique_ptr<Plugin> make_storage_object_in_use_protection(const PluginContext& context);
std::unique_ptr<Plugin> make_persistent_volume_claim_resize(const PluginContext& context);
std::unique_ptr<Plugin> make_certificate_approval(const PluginContext& context);
std::unique_ptr<Plugin> make_certificate_signing(const PluginContext& context);
std::unique_ptr<Plugin> make_cluster_trust_bundle_attest(const PluginContext& context);
std::unique_ptr<Plugin> make_certificate_subject_restriction(const PluginContext& context);
std::unique_ptr<Plugin> make_default_ingress_class(const PluginContext& context);
std::unique_ptr<Plugin> make_node_restriction(const PluginContext& context);

namespace {

// kube 1.32's AllOrderedPlugins, each with whether DefaultOffAdmissionPlugins leaves it on. Webhooks, quota and
// AlwaysDeny come last, as kube requires.
const std::array<PluginDefinition, 35> kOrderedPlugins{{
    {"AlwaysAdmit", false, nullptr},
    {"NamespaceAutoProvision", false, nullptr},
    {"NamespaceLifecycle", true, make_namespace_lifecycle},
    {"NamespaceExists", false, nullptr},
    {"LimitPodHardAntiAffinityTopology", false, nullptr},
    {"LimitRanger", true, make_limit_ranger},
    {"ServiceAccount", true, make_service_account},
    {"NodeRestriction", false, make_node_restriction},
    {"TaintNodesByCondition", true, make_taint_nodes_by_condition},
    {"AlwaysPullImages", false, nullptr},
    {"ImagePolicyWebhook", false, nullptr},
    {"PodSecurity", true, make_pod_security},
    {"PodNodeSelector", false, nullptr},
    {"Priority", true, make_priority},
    {"DefaultTolerationSeconds", true, make_default_toleration_seconds},
    {"PodTolerationRestriction", false, nullptr},
    {"EventRateLimit", false, nullptr},
    {"ExtendedResourceToleration", false, nullptr},
    {"DefaultStorageClass", true, make_default_storage_class},
    {"StorageObjectInUseProtection", true, make_storage_object_in_use_protection},
    {"OwnerReferencesPermissionEnforcement", false, nullptr},
    {"PersistentVolumeClaimResize", true, make_persistent_volume_claim_resize},
    {"RuntimeClass", true, make_runtime_class},
    {"CertificateApproval", true, make_certificate_approval},
    {"CertificateSigning", true, make_certificate_signing},
    {"ClusterTrustBundleAttest", true, make_cluster_trust_bundle_attest},
    {"CertificateSubjectRestriction", true, make_certificate_subject_restriction},
    {"DefaultIngressClass", true, make_default_ingress_class},
    {"DenyServiceExternalIPs", false, nullptr},
    {"MutatingAdmissionPolicy", true, nullptr},  // behind the MutatingAdmissionPolicy gate, off in 1.32
    {"MutatingAdmissionWebhook", true, make_mutating_admission_webhook},
    {"ValidatingAdmissionPolicy", true, make_validating_admission_policy},
    {"ValidatingAdmissionWebhook", true, make_validating_admission_webhook},
    {"ResourceQuota", true, make_resource_quota},
    {"AlwaysDeny", false, nullptr},
}};

bool known(std::string_view name) {
  return std::ranges::any_of(kOrderedPlugins, [&](const PluginDefinition& plugin) { return plugin.name == name; });
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::ranges::find(names, name) != names.end();
}

}  // namespace

std::span<const PluginDefinition> ordered_plugins() { return kOrderedPlugins; }

std::vector<std::string> enabled_plugin_names(const std::vector<std::string>& enable,
                                              const std::vector<std::string>& disable) {
  // kube's AdmissionOptions.Validate wording.
  for (const std::string& name : enable)
    if (!known(name)) throw std::invalid_argument("enable-admission-plugins plugin \"" + name + "\" is unknown");
  for (const std::string& name : disable)
    if (!known(name)) throw std::invalid_argument("disable-admission-plugins plugin \"" + name + "\" is unknown");
  // Go prints the overlapping set as a map: "map[A:{} B:{}] in ... overlapped".
  std::vector<std::string> overlap;
  for (const std::string& name : enable)
    if (contains(disable, name) && !contains(overlap, name)) overlap.push_back(name);
  if (!overlap.empty()) {
    std::ranges::sort(overlap);
    std::string set = "map[";
    for (const std::string& name : overlap) set += (set.size() > 4 ? " " : "") + name + ":{}";
    throw std::invalid_argument(set + "] in enable-admission-plugins and disable-admission-plugins overlapped");
  }
  std::vector<std::string> enabled;
  for (const PluginDefinition& plugin : kOrderedPlugins) {
    const bool on = (plugin.enabled_by_default || contains(enable, plugin.name)) && !contains(disable, plugin.name);
    if (on) enabled.emplace_back(plugin.name);
  }
  return enabled;
}

std::unique_ptr<Chain> make_chain(const std::vector<std::string>& enable, const std::vector<std::string>& disable,
                                  PluginContext context,
                                  const std::map<std::string, boost::json::value>& configurations) {
  std::vector<Chain::NamedPlugin> plugins;
  std::vector<std::string> left_out;
  for (const std::string& name : enabled_plugin_names(enable, disable)) {
    const auto definition =
        std::ranges::find_if(kOrderedPlugins, [&](const PluginDefinition& plugin) { return plugin.name == name; });
    if (!definition->make) {
      if (contains(enable, name)) throw std::invalid_argument("admission plugin \"" + name + "\" is not built in kapi");
      left_out.push_back(name);
      continue;
    }
    auto configuration = configurations.find(name);
    context.configuration = configuration != configurations.end() ? &configuration->second : nullptr;
    plugins.push_back({name, definition->make(context)});
  }
  if (context.logger) {
    std::string loaded;
    for (const auto& plugin : plugins) loaded += (loaded.empty() ? "" : ",") + plugin.name;
    context.logger->info("Loaded " + std::to_string(plugins.size()) + " admission plugin(s) in this order: " + loaded);
    if (!left_out.empty()) {
      std::string names;
      for (const std::string& name : left_out) names += (names.empty() ? "" : ",") + name;
      context.logger->warning("admission plugins kapi does not build yet, left out of the default set: " + names);
    }
  }
  return std::make_unique<Chain>(std::move(plugins), context.metrics);
}

}  // namespace kapi::admission

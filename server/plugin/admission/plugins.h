#pragma once
// Every admission plugin kube-apiserver 1.32 knows, in kube's fixed order (pkg/kubeapiserver/options/plugins.go:
// AllOrderedPlugins, DefaultOffAdmissionPlugins), with what kapi builds for each, and the chain the flags select.
// kube's own plugins (plugin/pkg/admission) live next to this file, one per file (with the generic ones that
// need more than the registry: webhooks, ResourceQuota); NamespaceLifecycle under server/admission/plugin.
//
// A new plugin is one file defining its factory, plus its line in the table in plugins.cc.
#include "server/admission/chain.h"
#include "server/admission/plugin.h"

#include <boost/json/value.hpp>

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission {

struct PluginDefinition {
  std::string_view name;
  bool enabled_by_default = false;
  // Null for a plugin kube has and kapi does not build.
  PluginFactory make;
};

// AllOrderedPlugins: the only place that orders admission.
std::span<const PluginDefinition> ordered_plugins();

// kube's computePluginNames: the default-on plugins, plus --enable-admission-plugins, minus
// --disable-admission-plugins, in kube's order. Throws std::invalid_argument with kube's wording for an unknown
// name ("enable-admission-plugins plugin \"X\" is unknown") or names in both lists.
std::vector<std::string> enabled_plugin_names(const std::vector<std::string>& enable,
                                              const std::vector<std::string>& disable);

// The chain of the plugins `enable`/`disable` select, each made with `context` and its entry of
// `configurations`. A default plugin kapi does not build is left out (logged); one asked for in `enable` is
// refused with std::invalid_argument. A plugin's own refusal of its configuration propagates.
std::unique_ptr<Chain> make_chain(const std::vector<std::string>& enable, const std::vector<std::string>& disable,
                                  PluginContext context,
                                  const std::map<std::string, boost::json::value>& configurations);

}  // namespace kapi::admission

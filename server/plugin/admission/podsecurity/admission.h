#pragma once
// The PodSecurity admission plugin (k8s.io/pod-security-admission/admission/admission.go behind
// plugin/pkg/admission/security/podsecurity/admission.go): made here over functions that read namespaces and pods,
// so that tests can give it their own.
#include "server/admission/plugin.h"
#include "server/plugin/admission/podsecurity/configuration.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapi::metrics { class Registry; }

namespace kapi::admission::podsecurity {

// A namespace by name (throws apierrors::ApiError, e.g. 404, when it cannot be read).
using NamespaceGetter = std::function<asio::awaitable<boost::json::object>(std::string name)>;
// The pods of a namespace (throws when they cannot be listed).
using PodLister = std::function<asio::awaitable<std::vector<boost::json::object>>(std::string namespace_)>;

struct Limits {
  std::size_t namespace_max_pods_to_check = 3000;
  std::chrono::milliseconds namespace_pod_check_timeout{1000};
};

// `metrics`: where kube's pod_security_* counters are kept (none when null).
std::unique_ptr<Plugin> make_plugin(Configuration configuration, NamespaceGetter namespaces, PodLister pods,
                                    Limits limits = {}, metrics::Registry* metrics = nullptr);

// isSignificantPodUpdate: whether an update changes anything the checks could see differently (container counts,
// images, ephemeral containers added or changed).
bool is_significant_pod_update(const boost::json::object& pod, const boost::json::object& old_pod);

}  // namespace kapi::admission::podsecurity

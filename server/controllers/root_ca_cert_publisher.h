#pragma once
// The root CA certificate publisher (kube-controller-manager's pkg/controller/certificates/rootcacertpublisher):
// every namespace has a "kube-root-ca.crt" ConfigMap whose data is {"ca.crt": the cluster's CA bundle} and which
// carries kube's kubernetes.io/description annotation, so that pods can verify the API server at its internal
// endpoints (projected service account volumes mount it). The ConfigMap is made when a namespace appears (or
// becomes Active), made again when it is deleted, and repaired when its data or annotation are changed.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <memory>
#include <string>

namespace kapi::base {
class Logger;
}
namespace kapi::metrics {
class CounterFamily;
}

namespace kapi::controllers {

inline constexpr std::string_view kRootCaConfigMapName = "kube-root-ca.crt";

class RootCaCertPublisher {
 public:
  // `root_ca`: the PEM bundle published (kube-controller-manager's --root-ca-file). `syncs` counts each namespace's
  // sync by its outcome's HTTP code (kube's root_ca_cert_publisher_sync_total); may be null.
  RootCaCertPublisher(registry::Store& namespaces, registry::Store& configmaps, std::string root_ca,
                      base::Logger& logger, metrics::CounterFamily* syncs,
                      std::shared_ptr<const base::StopSignal> stopping);

  // Follows namespaces and the published ConfigMaps until `stopping` is requested.
  asio::awaitable<void> run();

 private:
  asio::awaitable<void> follow_namespaces();
  asio::awaitable<void> follow_configmaps();
  // syncNamespace: creates the ConfigMap in `namespace_`, or brings its data and annotation back.
  asio::awaitable<void> sync(std::string namespace_);
  asio::awaitable<void> publish(const std::string& namespace_);

  registry::Store& namespaces_;
  registry::Store& configmaps_;
  const std::string root_ca_;
  base::Logger& logger_;
  metrics::CounterFamily* syncs_;
  std::shared_ptr<const base::StopSignal> stopping_;
};

}  // namespace kapi::controllers

#pragma once
// An APIService as the aggregator acts on it (kube-aggregator's APIService types and apihelpers): which group
// version it claims, with what priority, and whether a local server or a Service's backend answers it.
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::aggregator {

struct ServiceReference {
  std::string namespace_;
  std::string name;
  std::int32_t port = 443;
};

// "<name>.<namespace>.svc": the name a backend's serving certificate is checked for.
inline std::string service_dns_name(const ServiceReference& service) {
  return service.name + "." + service.namespace_ + ".svc";
}

struct ApiService {
  std::string name;  // "<version>.<group>"
  std::string group, version;
  int group_priority = 0;
  int version_priority = 0;
  std::optional<ServiceReference> service;  // none: a local APIService
  std::string ca_bundle_pem;                // spec.caBundle, decoded
  bool insecure_skip_tls_verify = false;
  bool available = false;  // status condition Available is True
};

ApiService parse_apiservice(const boost::json::object& apiservice);

// SetAPIServiceCondition for the Available condition: sets status, reason and message, moving
// lastTransitionTime only when the status changes. Returns whether anything changed.
bool set_available_condition(boost::json::object& apiservice, std::string_view status, std::string_view reason,
                             std::string_view message);

// The label the aggregator's own APIServices carry: "onstart" for the built-in group versions, "true" for those
// of CRDs (kube's autoregister.AutoRegisterManagedLabel).
inline constexpr std::string_view kAutoManagedLabel = "kube-aggregator.kubernetes.io/automanaged";

}  // namespace kapi::aggregator

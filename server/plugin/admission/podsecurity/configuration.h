#pragma once
// PodSecurityConfiguration (k8s.io/pod-security-admission/admission/api: types.go, v1*/defaults.go, load/load.go,
// validation/validation.go, helpers.go ToPolicy): the plugin's defaults and exemptions, as
// --admission-control-config-file gives them (pod-security.admission.config.k8s.io/v1, v1beta1 or v1alpha1).
#include "server/plugin/admission/podsecurity/policy.h"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace kapi::admission::podsecurity {

struct Configuration {
  Policy defaults;  // privileged:latest for every mode unless configured
  std::vector<std::string> exempt_usernames;
  std::vector<std::string> exempt_namespaces;
  std::vector<std::string> exempt_runtime_classes;
};

// Decodes, defaults and validates the configuration (null: none given, every default). Throws
// std::invalid_argument with kube's wording ("PodSecurity invalid: exemptions.namespaces[0]: ...").
Configuration load_configuration(const boost::json::value* configuration);

}  // namespace kapi::admission::podsecurity

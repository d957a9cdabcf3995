#pragma once
// --admission-control-config-file (k8s.io/apiserver/pkg/admission/config.go): an AdmissionConfiguration
// (apiserver.config.k8s.io/v1 or v1alpha1) naming each plugin's configuration, inline (`configuration`) or in a
// file (`path`, relative to the configuration file's directory), in YAML or JSON.
#include <boost/json/value.hpp>

#include <map>
#include <string>

namespace kapi::admission {

// Plugin name → its configuration as JSON. Empty for an empty file name. Throws std::runtime_error naming the
// file and what is wrong with it.
std::map<std::string, boost::json::value> read_admission_configuration(const std::string& file);

}  // namespace kapi::admission

#pragma once
// The name and key checks of k8s.io/apimachinery/pkg/util/validation (validation.go), shared by the server and
// CEL's format library: each returns the list of messages kube-apiserver would report (empty when valid), word for
// word, so clients print the same errors.
#include <string>
#include <string_view>
#include <vector>

namespace kapi::validation {

// Label and annotation keys: an optional DNS subdomain prefix and '/', then a name part (IsQualifiedName).
std::vector<std::string> is_qualified_name(std::string_view key);
// Label values (IsValidLabelValue).
std::vector<std::string> is_valid_label_value(std::string_view value);
std::vector<std::string> is_dns1123_label(std::string_view value);
std::vector<std::string> is_dns1123_subdomain(std::string_view value);
std::vector<std::string> is_dns1035_label(std::string_view value);
std::vector<std::string> is_config_map_key(std::string_view value);  // configmap and secret data keys
// path.IsValidPathSegmentName: names travel in URL paths.
std::vector<std::string> is_valid_path_segment_name(std::string_view value);

}  // namespace kapi::validation

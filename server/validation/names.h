#pragma once
// Label keys and values are checked by server/selectors (label_key_errors, label_value_errors).
// The name and key checks of k8s.io/apimachinery/pkg/util/validation (validation.go): each returns the list of
// messages kube-apiserver would report (empty when valid), word for word, so clients print the same errors.
#include <string>
#include <string_view>
#include <vector>

namespace kapi::validation {

std::vector<std::string> is_dns1123_label(std::string_view value);
std::vector<std::string> is_dns1123_subdomain(std::string_view value);
std::vector<std::string> is_dns1035_label(std::string_view value);
std::vector<std::string> is_config_map_key(std::string_view value);  // configmap and secret data keys
// path.IsValidPathSegmentName: names travel in URL paths.
std::vector<std::string> is_valid_path_segment_name(std::string_view value);

}  // namespace kapi::validation

#pragma once
// The host and path rules of k8s.io/apimachinery/pkg/util/validation beyond names.h: wildcard DNS subdomains
// (ingress hosts) and domain-prefixed paths (an IngressClass's controller), with kube's messages word for word.
#include "server/validation/field_error.h"

#include <string>
#include <string_view>
#include <vector>

namespace kapi::validation {

// IsWildcardDNS1123Subdomain: "*." and a DNS-1123 subdomain.
std::vector<std::string> is_wildcard_dns1123_subdomain(std::string_view value);
// IsDomainPrefixedPath: "example.com/path", with the errors at `path`.
ErrorList is_domain_prefixed_path(const Path& path, std::string_view value);

}  // namespace kapi::validation

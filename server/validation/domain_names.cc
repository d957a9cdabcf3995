#include "server/validation/domain_names.h"

#include "base/name_validation.h"

#include <algorithm>

namespace kapi::validation {

std::vector<std::string> is_wildcard_dns1123_subdomain(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 253) errors.push_back("must be no more than 253 characters");
  if (!value.starts_with("*.") || !is_dns1123_subdomain(value.substr(2)).empty())
    errors.push_back(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
        "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. "
        "'*.example.com', regex used for validation is "
        "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  return errors;
}

ErrorList is_domain_prefixed_path(const Path& path, std::string_view value) {
  if (value.empty()) return {required(path)};
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size())
    return {invalid(path, value, "must be a domain-prefixed path (such as \"acme.io/foo\")")};
  ErrorList errors;
  const std::string_view host = value.substr(0, slash);
  for (auto& message : is_dns1123_subdomain(host)) errors.push_back(invalid(path, host, message));
  // httpPathFmt: [A-Za-z0-9/\-._~%!$&'()*+,;=:]+
  const std::string_view rest = value.substr(slash + 1);
  const bool valid_path = std::all_of(rest.begin(), rest.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("/-._~%!$&'()*+,;=:").find(c) != std::string_view::npos;
  });
  if (!valid_path)
    errors.push_back(invalid(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  return errors;
}

}  // namespace kapi::validation

#include "server/validation/names.h"

namespace kapi::validation {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

std::string max_length_message(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matches_dns1123_label(std::string_view value) {
  if (value.empty() || !is_lower_alnum(value.front()) || !is_lower_alnum(value.back())) return false;
  for (char c : value)
    if (!is_lower_alnum(c) && c != '-') return false;
  return true;
}

const char kDns1123LabelMessage[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char kDns1123SubdomainMessage[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char kDns1035LabelMessage[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const char kConfigMapKeyMessage[] =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

}  // namespace

std::vector<std::string> is_dns1123_label(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 63) errors.push_back(max_length_message(63));
  if (!matches_dns1123_label(value)) errors.push_back(kDns1123LabelMessage);
  return errors;
}

std::vector<std::string> is_dns1123_subdomain(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 253) errors.push_back(max_length_message(253));
  bool valid = !value.empty();
  for (std::size_t start = 0; valid && start <= value.size();) {
    auto dot = value.find('.', start);
    auto label = value.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    valid = matches_dns1123_label(label);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!valid) errors.push_back(kDns1123SubdomainMessage);
  return errors;
}

std::vector<std::string> is_dns1035_label(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 63) errors.push_back(max_length_message(63));
  if (!matches_dns1123_label(value) || value.front() < 'a' || value.front() > 'z') errors.push_back(kDns1035LabelMessage);
  return errors;
}

std::vector<std::string> is_config_map_key(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 253) errors.push_back(max_length_message(253));
  bool valid = !value.empty();
  for (char c : value)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') valid = false;
  if (!valid) errors.push_back(kConfigMapKeyMessage);
  if (value == ".") errors.push_back("must not be '.'");
  else if (value == "..") errors.push_back("must not be '..'");
  else if (value.starts_with("..")) errors.push_back("must not start with '..'");
  return errors;
}

std::vector<std::string> is_valid_path_segment_name(std::string_view value) {
  std::vector<std::string> errors;
  if (value == "." || value == "..") return {"may not be '" + std::string(value) + "'"};
  for (std::string_view bad : {"/", "%"})
    if (value.find(bad) != std::string_view::npos) errors.push_back("may not contain '" + std::string(bad) + "'");
  return errors;
}

}  // namespace kapi::validation

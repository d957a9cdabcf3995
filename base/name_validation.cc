#include "base/name_validation.h"

#include <algorithm>
#include <initializer_list>

namespace kapi::validation {
namespace {

// The wording and regexes of k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.32), which kube puts in its errors.
constexpr std::string_view kQualifiedNameFormat = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
constexpr std::size_t kQualifiedNameMaxLength = 63;
constexpr std::string_view kLabelValueFormat = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueRule =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character";
constexpr std::size_t kLabelValueMaxLength = 63;
std::string max_length_error(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::string regex_error(std::string_view rule, std::string_view format, std::initializer_list<std::string_view> examples) {
  std::string message(rule);
  message += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) message += " or ";
    first = false;
    message += '\'';
    message += example;
    message += "', ";
  }
  message += "regex used for validation is '";
  message += format;
  message += "')";
  return message;
}

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_qualified_name_part(std::string_view name) {
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
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
  if (value.size() > 63) errors.push_back(max_length_error(63));
  if (!matches_dns1123_label(value)) errors.push_back(kDns1123LabelMessage);
  return errors;
}

std::vector<std::string> is_dns1123_subdomain(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 253) errors.push_back(max_length_error(253));
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
  if (value.size() > 63) errors.push_back(max_length_error(63));
  if (!matches_dns1123_label(value) || value.front() < 'a' || value.front() > 'z') errors.push_back(kDns1035LabelMessage);
  return errors;
}

std::vector<std::string> is_config_map_key(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 253) errors.push_back(max_length_error(253));
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

std::vector<std::string> is_qualified_name(std::string_view key) {
  std::vector<std::string> errors;
  std::string_view name = key;
  const std::size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      errors.push_back("a qualified name " +
                       regex_error(kQualifiedNameRule, kQualifiedNameFormat, {"MyName", "my.name", "123-abc"}) +
                       " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errors;
    }
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errors.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& message : is_dns1123_subdomain(prefix))
        errors.push_back("prefix part " + message);
    }
  }
  if (name.empty()) {
    errors.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errors.push_back("name part " + max_length_error(kQualifiedNameMaxLength));
  }
  if (!is_qualified_name_part(name)) {
    errors.push_back("name part " + regex_error(kQualifiedNameRule, kQualifiedNameFormat,
                                                {"MyName", "my.name", "123-abc"}));
  }
  return errors;
}

std::vector<std::string> is_valid_label_value(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kLabelValueMaxLength) errors.push_back(max_length_error(kLabelValueMaxLength));
  if (!value.empty() && !is_qualified_name_part(value)) {
    errors.push_back(regex_error(kLabelValueRule, kLabelValueFormat, {"MyValue", "my_value", "12345"}));
  }
  return errors;
}

}  // namespace kapi::validation

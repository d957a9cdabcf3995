#include "server/apis/core/core_validation.h"

#include "base/go_time.h"
#include "server/registry/table.h"

#include <arpa/inet.h>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace kapi::apis::core {

std::string inclusive_range_error(std::int64_t low, std::int64_t high) {
  return "must be between " + std::to_string(low) + " and " + std::to_string(high) + ", inclusive";
}

std::vector<std::string> port_number_errors(std::int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {inclusive_range_error(1, 65535)};
}

std::vector<std::string> port_name_errors(std::string_view name) {
  std::vector<std::string> errors;
  if (name.size() > 15) errors.push_back("must be no more than 15 characters");
  const bool charset_ok =
      !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      });
  if (!charset_ok) errors.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (std::none_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
    errors.push_back("must contain at least one letter (a-z)");
  if (name.find("--") != std::string_view::npos) errors.push_back("must not contain consecutive hyphens");
  if (!name.empty() && (name.front() == '-' || name.back() == '-'))
    errors.push_back("must not begin or end with a hyphen");
  return errors;
}

bool is_ipv4(std::string_view text) {
  in_addr address{};
  return inet_pton(AF_INET, std::string(text).c_str(), &address) == 1;
}

bool is_ip(std::string_view text) {
  in6_addr address{};
  return is_ipv4(text) || inet_pton(AF_INET6, std::string(text).c_str(), &address) == 1;
}

validation::ErrorList ip_errors(const validation::Path& path, std::string_view value) {
  if (is_ip(value)) return {};
  return {validation::invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")};
}

validation::ErrorList non_special_ip_errors(const validation::Path& path, std::string_view value) {
  const std::string text(value);
  in_addr v4{};
  in6_addr v6{};
  validation::ErrorList errors;
  bool unspecified = false, loopback = false, link_local = false, link_local_multicast = false;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    const std::uint32_t ip = ntohl(v4.s_addr);
    unspecified = ip == 0;
    loopback = (ip >> 24) == 127;
    link_local = (ip >> 16) == 0xa9fe;
    link_local_multicast = (ip >> 8) == 0xe00000;
  } else if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    const unsigned char* b = v6.s6_addr;
    unspecified = IN6_IS_ADDR_UNSPECIFIED(&v6);
    loopback = IN6_IS_ADDR_LOOPBACK(&v6);
    link_local = b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
    link_local_multicast = b[0] == 0xff && (b[1] & 0x0f) == 0x02;
  } else {
    errors.push_back(validation::invalid(path, value, "must be a valid IP address"));
    return errors;
  }
  if (unspecified) errors.push_back(validation::invalid(path, value, "may not be unspecified (" + text + ")"));
  if (loopback) errors.push_back(validation::invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (link_local)
    errors.push_back(validation::invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  if (link_local_multicast)
    errors.push_back(
        validation::invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  return errors;
}

void append(validation::ErrorList& errors, validation::ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

const std::vector<std::string>& supported_port_protocols() {
  static const std::vector<std::string> kProtocols{"SCTP", "TCP", "UDP"};
  return kProtocols;
}

validation::ErrorList protocol_errors(const validation::Path& path, std::string_view protocol) {
  if (protocol.empty()) return {validation::required(path)};
  const auto& supported = supported_port_protocols();
  if (std::find(supported.begin(), supported.end(), protocol) == supported.end())
    return {validation::not_supported(path, protocol, supported)};
  return {};
}

std::string format_labels(const boost::json::object* labels) {
  if (!labels || labels->empty()) return "<none>";
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [key, value] : *labels)
    pairs.emplace_back(std::string(key), value.is_string() ? std::string(value.as_string()) : "");
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [key, value] : pairs) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

std::int64_t parse_time(std::string_view text) {
  const auto time = base::parse_rfc3339(text);
  return time ? time->seconds : -1;
}

std::string since(std::string_view timestamp) {
  const std::int64_t then = parse_time(timestamp);
  if (then < 0) return "<unknown>";
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return registry::human_duration(std::chrono::seconds(now.count() - then));
}

}  // namespace kapi::apis::core

#pragma once
// Checks that several core/v1 kinds share (pkg/apis/core/validation and apimachinery's util/validation): port
// numbers and names, IP addresses, protocols, with kube's messages word for word.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::core {

// validation.InclusiveRangeError: "must be between 1 and 65535, inclusive".
std::string inclusive_range_error(std::int64_t low, std::int64_t high);
// validation.IsValidPortNum.
std::vector<std::string> port_number_errors(std::int64_t port);
// validation.IsValidPortName (an IANA_SVC_NAME: at most 15 characters, a letter, no "--", ...).
std::vector<std::string> port_name_errors(std::string_view name);

// netutils.ParseIPSloppy accepting it (IPv4 or IPv6).
bool is_ip(std::string_view text);
bool is_ipv4(std::string_view text);
// validation.IsValidIP: "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)".
validation::ErrorList ip_errors(const validation::Path& path, std::string_view value);

// ValidateNonSpecialIP: not unspecified, loopback or link-local (endpoint addresses, external IPs).
validation::ErrorList non_special_ip_errors(const validation::Path& path, std::string_view value);

// Appends `more` to `errors`.
void append(validation::ErrorList& errors, validation::ErrorList more);

// The protocols of container, service and endpoint ports, sorted as kube lists them in NotSupported errors.
const std::vector<std::string>& supported_port_protocols();
// Required when empty, NotSupported when unknown.
validation::ErrorList protocol_errors(const validation::Path& path, std::string_view protocol);

// labels.FormatLabels / the selector cells of kube's printers: "a=b,c=d" sorted by key, "<none>" when empty.
std::string format_labels(const boost::json::object* labels);

// Seconds since the epoch of an RFC 3339 time ("2026-11-29T21:08:00Z", fractions dropped); -1 when it is not one.
std::int64_t parse_time(std::string_view text);
// translateTimestampSince: the human duration since `timestamp`, "<unknown>" when it is unset.
std::string since(std::string_view timestamp);

}  // namespace kapi::apis::core

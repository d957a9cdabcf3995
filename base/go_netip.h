#pragma once
// IP addresses and prefixes as Go's net/netip parses and prints them (Go 1.23, which kube 1.32 builds with):
// ParseAddr and ParsePrefix with their exact error texts, Addr.String's canonical forms (RFC 5952 for IPv6), and
// the address classes (IsLoopback, IsGlobalUnicast, ...). Kube's CEL ip and cidr libraries expose all of these.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace kapi::base {

struct GoAddr {
  // An IPv4 address keeps its four bytes in bytes[12..15] with is4 set; an IPv6 address uses all sixteen.
  std::array<std::uint8_t, 16> bytes{};
  bool is4 = false;
  std::string zone;  // IPv6 scoped addressing zone ("eth0"), empty when none

  bool is6() const { return !is4; }
  bool is4in6() const;  // ::ffff:a.b.c.d
  int bit_len() const { return is4 ? 32 : 128; }

  bool is_unspecified() const;
  bool is_loopback() const;
  bool is_multicast() const;
  bool is_link_local_multicast() const;
  bool is_link_local_unicast() const;
  bool is_global_unicast() const;

  // Addr.String: "192.0.2.1", "2001:db8::1", "::ffff:1.2.3.4", "fe80::1%eth0".
  std::string to_string() const;

  friend bool operator==(const GoAddr&, const GoAddr&) = default;
};

struct GoPrefix {
  GoAddr addr;  // as written, host bits kept
  int bits = 0;

  GoPrefix masked() const;           // Prefix.Masked
  bool contains(const GoAddr& ip) const;  // Prefix.Contains
  std::string to_string() const;     // "10.0.0.0/8"

  friend bool operator==(const GoPrefix&, const GoPrefix&) = default;
};

// The parse error's text, exactly as Go's error prints it.
struct GoParseError {
  std::string message;
};

// netip.ParseAddr: `ParseAddr("1.2.3"): IPv4 address too short`.
std::variant<GoAddr, GoParseError> parse_go_addr(std::string_view text);
// netip.ParsePrefix: `netip.ParsePrefix("1.2.3.4/33"): prefix length out of range`.
std::variant<GoPrefix, GoParseError> parse_go_prefix(std::string_view text);

}  // namespace kapi::base

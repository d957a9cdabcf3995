// kube's ip and cidr libraries (library/ip_test.go, cidr_test.go) with Go's net/netip messages.
#include "cel/ext/kube_types.h"
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::net_test {
namespace {

using testing::call;
using testing::error_of;

Value ip(std::string s) { return call(ip_library(), "string_to_ip", {Value(std::move(s))}); }
Value cidr(std::string s) { return call(cidr_library(), "string_to_cidr", {Value(std::move(s))}); }
Value on_ip(std::string_view id, Value v) { return call(ip_library(), id, {std::move(v)}); }
Value on_cidr(std::string_view id, std::vector<Value> args) { return call(cidr_library(), id, std::move(args)); }

TEST(CelIP, ParseAndClassify) {
  EXPECT_EQ(ip("192.168.0.1").type_name(), "net.IP");
  EXPECT_EQ(error_of(ip("192.168.0.1.0")),
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): "
            "IPv4 address too long");
  EXPECT_EQ(error_of(ip("2001:db8:::68")),
            "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): "
            "each colon-separated field must have at least one digit (at \":68\")");
  EXPECT_EQ(error_of(ip("fe80::1%eth0")), "IP address \"fe80::1%eth0\" with zone value is not allowed");
  EXPECT_EQ(error_of(ip("::ffff:1.2.3.4")), "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
  EXPECT_EQ(error_of(ip("01.2.3.4")),
            "IP Address \"01.2.3.4\" parse error during conversion from string: ParseAddr(\"01.2.3.4\"): IPv4 field "
            "has octet with leading zero");
  EXPECT_TRUE(equals(on_ip("ip_family", ip("192.168.0.1")), Value(std::int64_t{4})));
  EXPECT_TRUE(equals(on_ip("ip_family", ip("2001:db8::68")), Value(std::int64_t{6})));
  EXPECT_TRUE(equals(on_ip("is_ip", "192.168.0.1"), Value(true)));
  EXPECT_TRUE(equals(on_ip("is_ip", "192.168.0.1.0"), Value(false)));
  EXPECT_TRUE(equals(on_ip("ip_is_canonical", "127.0.0.1"), Value(true)));
  EXPECT_TRUE(equals(on_ip("ip_is_canonical", "2001:db8::68"), Value(true)));
  EXPECT_TRUE(equals(on_ip("ip_is_canonical", "2001:DB8::68"), Value(false)));
  EXPECT_TRUE(equals(on_ip("ip_is_canonical", "2001:db8:0:0:0::68"), Value(false)));
  const std::pair<const char*, std::pair<const char*, bool>> kClasses[] = {
      {"ip_is_unspecified", {"0.0.0.0", true}},           {"ip_is_unspecified", {"127.0.0.1", false}},
      {"ip_is_unspecified", {"::", true}},                {"ip_is_unspecified", {"::1", false}},
      {"ip_is_loopback", {"127.0.0.1", true}},            {"ip_is_loopback", {"1.2.3.4", false}},
      {"ip_is_loopback", {"::1", true}},                  {"ip_is_loopback", {"2001:db8::abcd", false}},
      {"ip_is_link_local_multicast", {"224.0.0.1", true}}, {"ip_is_link_local_multicast", {"224.0.1.1", false}},
      {"ip_is_link_local_multicast", {"ff02::1", true}},  {"ip_is_link_local_multicast", {"fd00::1", false}},
      {"ip_is_link_local_unicast", {"169.254.169.254", true}}, {"ip_is_link_local_unicast", {"192.168.0.1", false}},
      {"ip_is_link_local_unicast", {"fe80::1", true}},    {"ip_is_link_local_unicast", {"fd80::1", false}},
      {"ip_is_global_unicast", {"192.168.0.1", true}},    {"ip_is_global_unicast", {"255.255.255.255", false}},
      {"ip_is_global_unicast", {"2001:db8::abcd", true}}, {"ip_is_global_unicast", {"ff00::1", false}},
  };
  for (const auto& [id, c] : kClasses) EXPECT_TRUE(equals(on_ip(id, ip(c.first)), Value(c.second))) << id << " " << c.first;
}

TEST(CelIP, CanonicalStrings) {
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("192.168.0.1")), Value("192.168.0.1")));
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("2001:0db8:0000:0000:0001:0000:0000:0001")), Value("2001:db8::1:0:0:1")));
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("::")), Value("::")));
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("1:0:0:0:0:0:0:0")), Value("1::")));
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("1:2:3:4:5:6:7:0")), Value("1:2:3:4:5:6:7:0")));
  EXPECT_TRUE(equals(on_ip("ip_to_string", ip("::1.2.3.4")), Value("::102:304")));
  EXPECT_TRUE(equals(ip("2001:DB8::68"), ip("2001:db8::68")));
}

TEST(CelCIDR, ParseAndContain) {
  EXPECT_EQ(cidr("192.168.0.0/24").type_name(), "net.CIDR");
  EXPECT_EQ(error_of(cidr("192.168.0.0/")),
            "network address parse error during conversion from string: network address parse error during "
            "conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"");
  EXPECT_EQ(error_of(cidr("2001:db8::/")),
            "network address parse error during conversion from string: network address parse error during "
            "conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"");
  EXPECT_EQ(error_of(cidr("10.0.0.0/33")),
            "network address parse error during conversion from string: network address parse error during "
            "conversion from string: netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range");
  EXPECT_EQ(error_of(cidr("10.0.0.0")),
            "network address parse error during conversion from string: network address parse error during "
            "conversion from string: netip.ParsePrefix(\"10.0.0.0\"): no '/'");
  const std::tuple<const char*, const char*, const char*, bool> kCases[] = {
      {"cidr_contains_ip_ip", "192.168.0.0/24", "192.168.0.1", true},
      {"cidr_contains_ip_ip", "192.168.0.0/24", "192.168.1.1", false},
      {"cidr_contains_ip_string", "192.168.0.0/24", "192.168.0.1", true},
      {"cidr_contains_ip_string", "192.168.0.0/24", "192.168.1.1", false},
      {"cidr_contains_cidr", "192.168.0.0/24", "192.168.0.0/25", true},
      {"cidr_contains_cidr", "192.168.0.0/24", "192.168.0.0/23", false},
      {"cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/25", true},
      {"cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/23", false},
      {"cidr_contains_cidr_string", "192.168.0.0/16", "192.168.10.0/24", true},
      {"cidr_contains_cidr_string", "192.168.1.0/24", "192.168.2.0/24", false},
      {"cidr_contains_ip_ip", "2001:db8::/32", "2001:db8::1", true},
      {"cidr_contains_ip_ip", "2001:db8::/32", "2001:dc8::1", false},
      {"cidr_contains_cidr", "2001:db8::/32", "2001:db8::/33", true},
      {"cidr_contains_cidr", "2001:db8::/32", "2001:db8::/31", false},
      {"cidr_contains_ip_ip", "0.0.0.0/0", "10.1.2.3", true},
      {"cidr_contains_ip_ip", "0.0.0.0/0", "::1", false},
  };
  for (const auto& [id, outer, inner, expected] : kCases) {
    const std::string which = id;
    Value arg = which == "cidr_contains_ip_ip" ? ip(inner) : which == "cidr_contains_cidr" ? cidr(inner) : Value(inner);
    EXPECT_TRUE(equals(on_cidr(id, {cidr(outer), arg}), Value(expected))) << id << " " << outer << " " << inner;
  }
  EXPECT_EQ(error_of(on_cidr("cidr_contains_ip_string", {cidr("10.0.0.0/8"), "nope"})), "no such overload");
}

TEST(CelCIDR, Accessors) {
  EXPECT_TRUE(equals(on_cidr("cidr_ip", {cidr("192.168.0.0/24")}), ip("192.168.0.0")));
  EXPECT_TRUE(equals(on_cidr("cidr_ip", {cidr("192.168.0.1/24")}), ip("192.168.0.1")));
  EXPECT_TRUE(equals(on_cidr("cidr_masked", {cidr("192.168.0.1/24")}), cidr("192.168.0.0/24")));
  EXPECT_TRUE(equals(on_cidr("cidr_masked", {cidr("2001:db8:1::/32")}), cidr("2001:db8::/32")));
  EXPECT_FALSE(equals(cidr("192.168.0.1/24"), on_cidr("cidr_masked", {cidr("192.168.0.1/24")})));
  EXPECT_TRUE(equals(on_cidr("cidr_prefix_length", {cidr("192.168.0.0/24")}), Value(std::int64_t{24})));
  EXPECT_TRUE(equals(on_cidr("cidr_prefix_length", {cidr("::1/128")}), Value(std::int64_t{128})));
  EXPECT_TRUE(equals(on_cidr("cidr_to_string", {cidr("192.168.0.0/24")}), Value("192.168.0.0/24")));
  EXPECT_TRUE(equals(on_cidr("is_cidr", {"192.168.0.0/24"}), Value(true)));
  EXPECT_TRUE(equals(on_cidr("is_cidr", {"192.168.0.0"}), Value(false)));
  EXPECT_TRUE(equals(on_cidr("is_cidr", {"::ffff:1.2.3.4/120"}), Value(false)));
}

}  // namespace
}  // namespace kapi::cel::ext::net_test

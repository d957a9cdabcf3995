// kube's ip and cidr libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go) over Go's net/netip as
// base/go_netip.h models it: zones and IPv4-mapped IPv6 addresses are refused, with kube's messages.
#include "base/go_quote.h"
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

// parseIPAddr: the address, or kube's error text.
std::variant<base::GoAddr, std::string> parse_ip(const std::string& raw) {
  auto parsed = base::parse_go_addr(raw);
  if (auto* error = std::get_if<base::GoParseError>(&parsed))
    return "IP Address " + base::go_quote(raw) + " parse error during conversion from string: " + error->message;
  base::GoAddr& addr = std::get<base::GoAddr>(parsed);
  if (!addr.zone.empty()) return "IP address " + base::go_quote(raw) + " with zone value is not allowed";
  if (addr.is4in6()) return "IPv4-mapped IPv6 address " + base::go_quote(raw) + " is not allowed";
  return std::move(addr);
}

// parseCIDR, whose message kube's cidr() wraps once more.
std::variant<base::GoPrefix, std::string> parse_cidr(const std::string& raw) {
  auto parsed = base::parse_go_prefix(raw);
  if (auto* error = std::get_if<base::GoParseError>(&parsed))
    return "network address parse error during conversion from string: " + error->message;
  base::GoPrefix& prefix = std::get<base::GoPrefix>(parsed);
  if (prefix.addr.is4in6()) return "IPv4-mapped IPv6 address " + base::go_quote(raw) + " is not allowed";
  return std::move(prefix);
}

Value string_to_ip(const Value& arg) {
  auto parsed = parse_ip(arg.get<std::string>());
  if (auto* error = std::get_if<std::string>(&parsed)) return error_value(*error);
  return make_opaque<IPValue>(std::get<base::GoAddr>(std::move(parsed)));
}

Value string_to_cidr(const Value& arg) {
  auto parsed = parse_cidr(arg.get<std::string>());
  if (auto* error = std::get_if<std::string>(&parsed))
    return error_value("network address parse error during conversion from string: " + *error);
  return make_opaque<CIDRValue>(std::get<base::GoPrefix>(std::move(parsed)));
}

template <typename F>
FunctionImpl on_ip(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const auto* ip = opaque_as<IPValue>(args[0]);
    if (!ip) return Value::no_such_overload(name);
    return f(ip->addr());
  };
}

template <typename F>
FunctionImpl on_cidr(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const auto* cidr = opaque_as<CIDRValue>(args[0]);
    if (!cidr) return Value::no_such_overload(name);
    return f(cidr->prefix(), args);
  };
}

// cidrContainsIP: a bad IP string reaches it as an error value, which kube answers with "no such overload".
Value contains_ip(const base::GoPrefix& prefix, const Value& ip) {
  const auto* addr = opaque_as<IPValue>(ip);
  if (!addr) return Value::error(ErrorCode::kNoSuchOverload, "no such overload");  // types.MaybeNoSuchOverloadErr
  return prefix.contains(addr->addr());
}

// cidrContainsCIDR: a bad CIDR string's parse error is the result.
Value contains_cidr(const base::GoPrefix& prefix, const Value& other) {
  if (other.is_error()) return other;
  const auto* cidr = opaque_as<CIDRValue>(other);
  if (!cidr) return Value::no_such_overload("containsCIDR");
  const base::GoPrefix& inner = cidr->prefix();
  base::GoPrefix outer_bits_of_inner{inner.addr, prefix.bits};
  if (inner.addr.bit_len() != prefix.addr.bit_len()) return false;
  const bool equal_masked = prefix.masked() == outer_bits_of_inner.masked();
  return equal_masked && prefix.bits <= inner.bits;
}

}  // namespace

bool IPValue::equals(const Opaque& other) const {
  const auto* ip = dynamic_cast<const IPValue*>(&other);
  return ip && addr_ == ip->addr_;
}

bool CIDRValue::equals(const Opaque& other) const {
  const auto* cidr = dynamic_cast<const CIDRValue*>(&other);
  return cidr && prefix_ == cidr->prefix_;
}

Library ip_library() {
  const Type ip = ip_type(), s = Type::string_type(), b = Type::bool_type();
  Library lib{.name = "kubernetes.net.ip"};
  lib.types = {ip};
  auto predicate = [&](const char* name, const char* id, bool (base::GoAddr::*test)() const) {
    return Function{name, {member_overload(id, {ip}, b, on_ip(name, [test](const base::GoAddr& a) -> Value {
                                              return (a.*test)();
                                            }))}};
  };
  lib.functions = {
      Function{"ip", {global_overload("string_to_ip", {s}, ip,
                                      [](std::span<const Value> args) { return string_to_ip(args[0]); })}},
      Function{"family", {member_overload("ip_family", {ip}, Type::int_type(),
                                          on_ip("family", [](const base::GoAddr& a) -> Value {
                                            return std::int64_t{a.is4 ? 4 : 6};
                                          }))}},
      Function{"ip.isCanonical", {global_overload("ip_is_canonical", {s}, b, [](std::span<const Value> args) {
                 const std::string& raw = args[0].get<std::string>();
                 auto parsed = parse_ip(raw);
                 if (auto* error = std::get_if<std::string>(&parsed)) return error_value(*error);
                 return Value(std::get<base::GoAddr>(parsed).to_string() == raw);
               })}},
      predicate("isUnspecified", "ip_is_unspecified", &base::GoAddr::is_unspecified),
      predicate("isLoopback", "ip_is_loopback", &base::GoAddr::is_loopback),
      predicate("isLinkLocalMulticast", "ip_is_link_local_multicast", &base::GoAddr::is_link_local_multicast),
      predicate("isLinkLocalUnicast", "ip_is_link_local_unicast", &base::GoAddr::is_link_local_unicast),
      predicate("isGlobalUnicast", "ip_is_global_unicast", &base::GoAddr::is_global_unicast),
      Function{"isIP", {global_overload("is_ip", {s}, b, [](std::span<const Value> args) -> Value {
                 return std::holds_alternative<base::GoAddr>(parse_ip(args[0].get<std::string>()));
               })}},
      Function{"string", {global_overload("ip_to_string", {ip}, s,
                                          on_ip("string", [](const base::GoAddr& a) -> Value {
                                            return a.to_string();
                                          }))}},
  };
  return lib;
}

Library cidr_library() {
  const Type cidr = cidr_type(), ip = ip_type(), s = Type::string_type(), b = Type::bool_type();
  Library lib{.name = "net.cidr"};
  lib.types = {cidr};
  lib.functions = {
      Function{"cidr", {global_overload("string_to_cidr", {s}, cidr,
                                        [](std::span<const Value> args) { return string_to_cidr(args[0]); })}},
      Function{"containsIP",
               {member_overload("cidr_contains_ip_string", {cidr, s}, b,
                                on_cidr("containsIP", [](const base::GoPrefix& p, auto args) {
                                  return contains_ip(p, string_to_ip(args[1]));
                                })),
                member_overload("cidr_contains_ip_ip", {cidr, ip}, b,
                                on_cidr("containsIP", [](const base::GoPrefix& p, auto args) {
                                  return contains_ip(p, args[1]);
                                }))}},
      Function{"containsCIDR",
               {member_overload("cidr_contains_cidr_string", {cidr, s}, b,
                                on_cidr("containsCIDR", [](const base::GoPrefix& p, auto args) {
                                  return contains_cidr(p, string_to_cidr(args[1]));
                                })),
                member_overload("cidr_contains_cidr", {cidr, cidr}, b,
                                on_cidr("containsCIDR", [](const base::GoPrefix& p, auto args) {
                                  return contains_cidr(p, args[1]);
                                }))}},
      Function{"ip", {member_overload("cidr_ip", {cidr}, ip,
                                      on_cidr("ip", [](const base::GoPrefix& p, auto) -> Value {
                                        return make_opaque<IPValue>(p.addr);
                                      }))}},
      Function{"prefixLength", {member_overload("cidr_prefix_length", {cidr}, Type::int_type(),
                                                on_cidr("prefixLength", [](const base::GoPrefix& p, auto) -> Value {
                                                  return std::int64_t{p.bits};
                                                }))}},
      Function{"masked", {member_overload("cidr_masked", {cidr}, cidr,
                                          on_cidr("masked", [](const base::GoPrefix& p, auto) -> Value {
                                            return make_opaque<CIDRValue>(p.masked());
                                          }))}},
      Function{"isCIDR", {global_overload("is_cidr", {s}, b, [](std::span<const Value> args) -> Value {
                 return std::holds_alternative<base::GoPrefix>(parse_cidr(args[0].get<std::string>()));
               })}},
      Function{"string", {global_overload("cidr_to_string", {cidr}, s,
                                          on_cidr("string", [](const base::GoPrefix& p, auto) -> Value {
                                            return p.to_string();
                                          }))}},
  };
  return lib;
}

}  // namespace kapi::cel::ext

// Go's net/netip (netip.go, Go 1.23): ParseAddr, ParsePrefix, Addr.String and the address classes.
#include "base/go_netip.h"

#include "base/go_quote.h"

#include <charconv>

namespace kapi::base {
namespace {

std::string addr_error(std::string_view in, std::string_view message, std::string_view at = {}) {
  std::string text = "ParseAddr(" + go_quote(in) + "): " + std::string(message);
  if (!at.empty()) text += " (at " + go_quote(at) + ")";
  return text;
}

// parseIPv4; `in` is what the error names (the whole address when IPv4 trails an IPv6 one).
std::variant<GoAddr, GoParseError> parse_ipv4(std::string_view s) {
  std::array<std::uint8_t, 4> fields{};
  int value = 0, position = 0, digits = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && value == 0) return GoParseError{addr_error(s, "IPv4 field has octet with leading zero")};
      value = value * 10 + (c - '0');
      ++digits;
      if (value > 255) return GoParseError{addr_error(s, "IPv4 field has value >255")};
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.')
        return GoParseError{addr_error(s, "IPv4 field must have at least one digit", s.substr(i))};
      if (position == 3) return GoParseError{addr_error(s, "IPv4 address too long")};
      fields[position++] = static_cast<std::uint8_t>(value);
      value = 0;
      digits = 0;
    } else {
      return GoParseError{addr_error(s, "unexpected character", s.substr(i))};
    }
  }
  if (position < 3) return GoParseError{addr_error(s, "IPv4 address too short")};
  fields[3] = static_cast<std::uint8_t>(value);
  GoAddr addr;
  addr.is4 = true;
  addr.bytes[10] = addr.bytes[11] = 0xff;
  for (int i = 0; i < 4; ++i) addr.bytes[12 + i] = fields[i];
  return addr;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::variant<GoAddr, GoParseError> parse_ipv6(std::string_view in) {
  std::string_view s = in;
  std::string zone;
  if (const auto percent = s.find('%'); percent != std::string_view::npos) {
    zone = std::string(s.substr(percent + 1));
    s = s.substr(0, percent);
    if (zone.empty()) return GoParseError{addr_error(in, "zone must be a non-empty string")};
  }
  GoAddr addr;
  addr.zone = zone;
  std::array<std::uint8_t, 16>& ip = addr.bytes;
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return addr;
  }
  int i = 0;
  while (i < 16) {
    std::size_t off = 0;
    std::uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int digit = hex_value(s[off]);
      if (digit < 0) break;
      acc = (acc << 4) + static_cast<std::uint32_t>(digit);
      if (acc > 0xffff) return GoParseError{addr_error(in, "IPv6 field has value >=2^16", s)};
    }
    if (off == 0) return GoParseError{addr_error(in, "each colon-separated field must have at least one digit", s)};
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12)
        return GoParseError{addr_error(in, "embedded IPv4 address must replace the final 2 fields of the address", s)};
      if (i + 4 > 16)
        return GoParseError{
            addr_error(in, "too many hex fields to fit an embedded IPv4 at the end of the address", s)};
      auto ip4 = parse_ipv4(s);
      if (auto* error = std::get_if<GoParseError>(&ip4)) return GoParseError{addr_error(in, error->message, s)};
      const GoAddr& v4 = std::get<GoAddr>(ip4);
      for (int k = 0; k < 4; ++k) ip[i + k] = v4.bytes[12 + k];
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<std::uint8_t>(acc >> 8);
    ip[i + 1] = static_cast<std::uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') return GoParseError{addr_error(in, "unexpected character, want colon", s)};
    if (s.size() == 1) return GoParseError{addr_error(in, "colon must be followed by more characters", s)};
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return GoParseError{addr_error(in, "multiple :: in address", s)};
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return GoParseError{addr_error(in, "trailing garbage after address", s)};
  if (i < 16) {
    if (ellipsis < 0) return GoParseError{addr_error(in, "address string too short")};
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    for (int j = ellipsis + n - 1; j >= ellipsis; --j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return GoParseError{addr_error(in, "the :: must expand to at least one field of zeros")};
  }
  return addr;
}

std::uint16_t word(const GoAddr& addr, int index) {
  return static_cast<std::uint16_t>(addr.bytes[2 * index] << 8 | addr.bytes[2 * index + 1]);
}

std::string ipv4_string(const GoAddr& addr) {
  std::string out;
  for (int i = 12; i < 16; ++i) {
    if (i > 12) out += '.';
    out += std::to_string(addr.bytes[i]);
  }
  return out;
}

// Addr.Unmap: an IPv4-mapped IPv6 address as the IPv4 address it wraps.
GoAddr unmapped(const GoAddr& addr) {
  GoAddr out = addr;
  if (addr.is4in6()) {
    out.is4 = true;
    out.zone.clear();
  }
  return out;
}

}  // namespace

bool GoAddr::is4in6() const {
  if (is4) return false;
  for (int i = 0; i < 10; ++i)
    if (bytes[i] != 0) return false;
  return bytes[10] == 0xff && bytes[11] == 0xff;
}

bool GoAddr::is_unspecified() const {
  if (!zone.empty()) return false;
  for (int i = is4 ? 12 : 0; i < 16; ++i)
    if (bytes[i] != 0) return false;
  return true;
}

bool GoAddr::is_loopback() const {
  const GoAddr ip = unmapped(*this);
  if (ip.is4) return ip.bytes[12] == 127;
  for (int i = 0; i < 15; ++i)
    if (ip.bytes[i] != 0) return false;
  return ip.bytes[15] == 1;
}

bool GoAddr::is_multicast() const {
  const GoAddr ip = unmapped(*this);
  if (ip.is4) return (ip.bytes[12] & 0xf0) == 0xe0;
  return ip.bytes[0] == 0xff;
}

bool GoAddr::is_link_local_multicast() const {
  const GoAddr ip = unmapped(*this);
  if (ip.is4) return ip.bytes[12] == 224 && ip.bytes[13] == 0 && ip.bytes[14] == 0;
  return (word(ip, 0) & 0xff0f) == 0xff02;
}

bool GoAddr::is_link_local_unicast() const {
  const GoAddr ip = unmapped(*this);
  if (ip.is4) return ip.bytes[12] == 169 && ip.bytes[13] == 254;
  return (word(ip, 0) & 0xffc0) == 0xfe80;
}

bool GoAddr::is_global_unicast() const {
  const GoAddr ip = unmapped(*this);
  if (ip.is4) {
    const bool broadcast = ip.bytes[12] == 255 && ip.bytes[13] == 255 && ip.bytes[14] == 255 && ip.bytes[15] == 255;
    if (ip.is_unspecified() || broadcast) return false;
  } else if (ip.is_unspecified() && ip.zone.empty()) {
    return false;
  }
  return !ip.is_loopback() && !ip.is_multicast() && !ip.is_link_local_unicast();
}

std::string GoAddr::to_string() const {
  if (is4) return ipv4_string(*this);
  std::string out;
  if (is4in6()) {
    out = "::ffff:" + ipv4_string(*this);
  } else {
    // The longest run of two or more zero words becomes "::" (the first such run on a tie), as RFC 5952 says.
    int zero_start = -1, zero_end = -1;
    for (int i = 0; i < 8; ++i) {
      int j = i;
      while (j < 8 && word(*this, j) == 0) ++j;
      if (j - i >= 2 && j - i > zero_end - zero_start) {
        zero_start = i;
        zero_end = j;
      }
    }
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 0; i < 8; ++i) {
      if (i == zero_start) {
        out += "::";
        i = zero_end;
        if (i >= 8) break;
      } else if (i > 0) {
        out += ':';
      }
      const std::uint16_t w = word(*this, i);
      bool started = false;
      for (int shift = 12; shift >= 0; shift -= 4) {
        const int nibble = (w >> shift) & 0xf;
        if (nibble != 0 || started || shift == 0) {
          out += kHex[nibble];
          started = true;
        }
      }
    }
  }
  if (!zone.empty()) out += "%" + zone;
  return out;
}

GoPrefix GoPrefix::masked() const {
  GoPrefix out{addr, bits};
  out.addr.zone.clear();
  const int first = addr.is4 ? 12 : 0;
  for (int i = first; i < 16; ++i) {
    const int bit_offset = (i - first) * 8;
    if (bit_offset >= bits) {
      out.addr.bytes[i] = 0;
    } else if (bits - bit_offset < 8) {
      out.addr.bytes[i] &= static_cast<std::uint8_t>(0xff << (8 - (bits - bit_offset)));
    }
  }
  return out;
}

bool GoPrefix::contains(const GoAddr& ip) const {
  if (!ip.zone.empty() || ip.bit_len() != addr.bit_len()) return false;
  GoPrefix other{ip, bits};
  return other.masked().addr.bytes == masked().addr.bytes;
}

std::string GoPrefix::to_string() const { return addr.to_string() + "/" + std::to_string(bits); }

std::variant<GoAddr, GoParseError> parse_go_addr(std::string_view text) {
  for (char c : text) {
    if (c == '.') return parse_ipv4(text);
    if (c == ':') return parse_ipv6(text);
    if (c == '%') return GoParseError{addr_error(text, "missing IPv6 address")};
  }
  return GoParseError{addr_error(text, "unable to parse IP")};
}

std::variant<GoPrefix, GoParseError> parse_go_prefix(std::string_view text) {
  const auto prefix_error = [&](std::string_view message) {
    return GoParseError{"netip.ParsePrefix(" + go_quote(text) + "): " + std::string(message)};
  };
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos) return prefix_error("no '/'");
  auto parsed = parse_go_addr(text.substr(0, slash));
  if (auto* error = std::get_if<GoParseError>(&parsed)) return prefix_error(error->message);
  GoAddr addr = std::get<GoAddr>(std::move(parsed));
  if (addr.is6() && !addr.zone.empty()) return prefix_error("IPv6 zones cannot be present in a prefix");
  const std::string_view bits_text = text.substr(slash + 1);
  const std::string bad_bits = "bad bits after slash: " + go_quote(bits_text);
  // strconv.Atoi would take a sign or leading zeros; ParsePrefix refuses them first.
  if (bits_text.size() > 1 && (bits_text[0] < '1' || bits_text[0] > '9')) return prefix_error(bad_bits);
  int bits = 0;
  const auto [end, ec] = std::from_chars(bits_text.data(), bits_text.data() + bits_text.size(), bits);
  if (bits_text.empty() || ec != std::errc() || end != bits_text.data() + bits_text.size())
    return prefix_error(bad_bits);
  if (bits < 0 || bits > addr.bit_len()) return prefix_error("prefix length out of range");
  return GoPrefix{std::move(addr), bits};
}

}  // namespace kapi::base

#include "server/apiextensions/schema/formats.h"

#include "base/go_regexp.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace kapi::apiextensions::schema {
namespace {

// go-openapi's patterns run on Go's regexp, so here on RE2 too: linear in the text, however long (a megabyte of
// base64 for `byte`), where a backtracking engine takes a stack frame per repetition and overflows it.
RE2 go_regexp(const std::string& pattern) { return RE2(pattern, base::go_regexp_options()); }

// go-openapi compares format names without their dashes.
std::string normalized(std::string_view format) {
  std::string out;
  for (char c : format)
    if (c != '-') out += c;
  return out;
}

// The string formats of kube 1.32's CRDs (apiserver/validation/formats.go), all registered in strfmt.Default.
bool is_supported_string_format(const std::string& name) {
  static const std::array<std::string_view, 25> kFormats = {
      "bsonobjectid", "uri",    "email",  "hostname",   "ipv4", "ipv6",     "cidr", "mac",      "uuid",
      "uuid3",        "uuid4",  "uuid5",  "isbn",       "isbn10", "isbn13", "creditcard", "ssn", "hexcolor",
      "rgbcolor",     "byte",   "password", "date",     "duration", "datetime", "quantity"};
  return std::find(kFormats.begin(), kFormats.end(), name) != kFormats.end();
}

bool is_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

int to_int(std::string_view digits) {
  int value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return value;
}

// time.Parse("2006-01-02", text): four-digit year, a month 01-12 and a day that exists in that month.
bool is_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  std::string_view year = text.substr(0, 4), month = text.substr(5, 2), day = text.substr(8, 2);
  if (!is_digits(year) || !is_digits(month) || !is_digits(day)) return false;
  int y = to_int(year), m = to_int(month), d = to_int(day);
  if (m < 1 || m > 12 || d < 1) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

// strfmt.IsDateTime: a date, "t" (either case), then hh:mm:ss with an optional fraction and a zone.
bool is_date_time(std::string_view text) {
  if (text.size() < 4) return false;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::size_t t = lower.find('t');
  if (t == std::string::npos || !is_date(std::string_view(lower).substr(0, t))) return false;
  std::size_t next_t = lower.find('t', t + 1);
  std::string time = lower.substr(t + 1, next_t == std::string::npos ? std::string::npos : next_t - t - 1);
  static const RE2 kTime = go_regexp("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  std::string hours, minutes, seconds;
  if (!RE2::PartialMatch(time, kTime, &hours, &minutes, &seconds)) return false;
  return hours <= "23" && minutes <= "59" && seconds <= "59";
}

bool is_ipv4_address(const std::string& text) {
  in_addr v4{};
  return inet_pton(AF_INET, text.c_str(), &v4) == 1;
}
bool is_ipv6_address(const std::string& text) {
  in6_addr v6{};
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1;
}

// net.ParseCIDR: an address and a decimal prefix length within its bits.
bool is_cidr(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  std::string address(text.substr(0, slash));
  std::string_view prefix = text.substr(slash + 1);
  if (!is_digits(prefix) || prefix.size() > 3) return false;
  int bits = is_ipv4_address(address) ? 32 : is_ipv6_address(address) ? 128 : -1;
  return bits > 0 && to_int(prefix) <= bits;
}

// net.ParseMAC: 6, 8 or 20 octets as hex pairs separated by ':' or '-', or as dot-separated groups of four.
bool is_mac(std::string_view text) {
  auto hex = [](std::string_view part, std::size_t width) {
    return part.size() == width &&
           std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isxdigit(c); });
  };
  auto valid_octets = [](std::size_t n) { return n == 6 || n == 8 || n == 20; };
  if (text.size() >= 14 && text[4] == '.') {
    std::size_t groups = 0;
    for (std::size_t i = 0; i < text.size(); i += 5, ++groups) {
      if (!hex(text.substr(i, 4), 4)) return false;
      if (i + 4 < text.size() && text[i + 4] != '.') return false;
    }
    return (text.size() + 1) % 5 == 0 && valid_octets(groups * 2);
  }
  if (text.size() < 14 || (text[2] != ':' && text[2] != '-')) return false;
  char separator = text[2];
  std::size_t octets = 0;
  for (std::size_t i = 0; i < text.size(); i += 3, ++octets) {
    if (!hex(text.substr(i, 2), 2)) return false;
    if (i + 2 < text.size() && text[i + 2] != separator) return false;
  }
  return (text.size() + 1) % 3 == 0 && valid_octets(octets);
}

// strfmt.IsHostname. Its pattern allows Unicode letters and symbols (\p{L}, \p{S}); each multi-byte UTF-8
// character stands in here as one letter, and the ASCII symbols are listed.
bool is_hostname(std::string_view text) {
  std::string folded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      folded += static_cast<char>(c);
    } else {
      folded += 'a';
      while (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80) ++i;
    }
  }
  static const std::string kChar = "[a-zA-Z0-9$+<=>^`|~]";
  static const std::string kCharOrDash = "[a-zA-Z0-9$+<=>^`|~-]";
  static const RE2 kHostname = go_regexp("^(" + kChar + "((-?" + kChar + "{0,62})?)|(" + kChar + "((" +
                                         kCharOrDash + "{0,61}" + kChar + ")?)(\\.)){1,}(" + kChar + ")(-?" + kChar +
                                         "){1,62})$");
  if (text.size() > 255 || !RE2::FullMatch(folded, kHostname)) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    if ((dot == std::string_view::npos ? text.size() : dot) - start > 63) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool matches(const RE2& pattern, std::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace

std::string effective_format(std::string_view type, std::string_view format, bool int_or_string) {
  if (format.empty()) return "";
  // x-kubernetes-int-or-string makes the type ["integer","string"], which kube treats as no single type.
  std::string_view single_type = int_or_string ? std::string_view() : type;
  if (single_type.empty() || single_type == "string")
    return is_supported_string_format(normalized(format)) ? std::string(format) : "";
  if (single_type == "integer") return format == "int32" || format == "int64" ? std::string(format) : "";
  if (single_type == "number") return format == "float" || format == "double" ? std::string(format) : "";
  return "";
}

bool is_registered_string_format(std::string_view format) { return is_supported_string_format(normalized(format)); }

bool matches_string_format(std::string_view format, std::string_view text) {
  std::string name = normalized(format);
  std::string value(text);
  if (name == "date") return is_date(text);
  if (name == "datetime") return is_date_time(text);
  if (name == "byte") {
    static const RE2 kBase64 =
        go_regexp("^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$");
    return matches(kBase64, text);
  }
  if (name == "uuid" || name == "uuid3" || name == "uuid4" || name == "uuid5") {
    static const RE2 kUUID = go_regexp("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
    static const RE2 kUUID3 = go_regexp("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
    static const RE2 kUUID4 =
        go_regexp("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
    static const RE2 kUUID5 =
        go_regexp("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
    const RE2& pattern = name == "uuid" ? kUUID : name == "uuid3" ? kUUID3 : name == "uuid4" ? kUUID4 : kUUID5;
    return matches(pattern, text);
  }
  // govalidator.IsIPv4/IsIPv6: net.ParseIP accepts it and it has the family's separator.
  if (name == "ipv4") return value.find('.') != std::string::npos && (is_ipv4_address(value) || is_ipv6_address(value));
  if (name == "ipv6") return value.find(':') != std::string::npos && (is_ipv4_address(value) || is_ipv6_address(value));
  if (name == "cidr") return is_cidr(text);
  if (name == "mac") return is_mac(text);
  if (name == "hostname") return is_hostname(text);
  if (name == "hexcolor") {
    static const RE2 kHexColor = go_regexp("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
    return matches(kHexColor, text);
  }
  if (name == "bsonobjectid")
    return text.size() == 24 && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c); });
  return true;
}

}  // namespace kapi::apiextensions::schema

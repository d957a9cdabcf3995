// Go's net/url (url.go, Go 1.23): parse, parseAuthority, parseHost, setPath, unescape/escape, EscapedPath,
// splitHostPort and ParseQuery, with Go's error texts.
#include "base/go_url.h"

#include "base/go_quote.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace kapi::base {
namespace {

enum class Encoding { kPath, kPathSegment, kHost, kZone, kUserPassword, kQueryComponent, kFragment };

// A parse step's error: the text Go's inner error prints (url.Error wraps it with the operation and URL).
struct Failure {
  std::string message;
};

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

unsigned char unhex(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned char>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned char>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned char>(c - 'A' + 10);
  return 0;
}

bool should_escape(unsigned char c, Encoding mode) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;
  if (mode == Encoding::kHost || mode == Encoding::kZone) {
    switch (c) {
      case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
      case '=': case ':': case '[': case ']': case '<': case '>': case '"':
        return false;
      default: break;
    }
  }
  switch (c) {
    case '-': case '_': case '.': case '~':
      return false;
    case '$': case '&': case '+': case ',': case '/': case ':': case ';': case '=': case '?': case '@':
      switch (mode) {
        case Encoding::kPath: return c == '?';
        case Encoding::kPathSegment: return c == '/' || c == ';' || c == ',' || c == '?';
        case Encoding::kUserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
        case Encoding::kQueryComponent: return true;
        case Encoding::kFragment: return false;
        default: break;
      }
      break;
    default: break;
  }
  if (mode == Encoding::kFragment && (c == '!' || c == '(' || c == ')' || c == '*')) return false;
  return true;
}

std::variant<std::string, Failure> unescape(std::string_view s, Encoding mode) {
  std::size_t percents = 0;
  bool has_plus = false;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      ++percents;
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) {
        return Failure{"invalid URL escape " + go_quote(s.substr(i, std::min<std::size_t>(3, s.size() - i)))};
      }
      const std::string_view escape = s.substr(i, 3);
      if (mode == Encoding::kHost && unhex(s[i + 1]) < 8 && escape != "%25")
        return Failure{"invalid URL escape " + go_quote(escape)};
      if (mode == Encoding::kZone) {
        const unsigned char v = static_cast<unsigned char>(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
        if (escape != "%25" && v != ' ' && should_escape(v, Encoding::kHost))
          return Failure{"invalid URL escape " + go_quote(escape)};
      }
      i += 3;
    } else if (c == '+') {
      has_plus = mode == Encoding::kQueryComponent;
      ++i;
    } else {
      if ((mode == Encoding::kHost || mode == Encoding::kZone) && c < 0x80 && should_escape(c, mode))
        return Failure{"invalid character " + go_quote(s.substr(i, 1)) + " in host name"};
      ++i;
    }
  }
  if (percents == 0 && !has_plus) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out += static_cast<char>(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+') {
      out += mode == Encoding::kQueryComponent ? ' ' : '+';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string escape(std::string_view s, Encoding mode) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == ' ' && mode == Encoding::kQueryComponent) {
      out += '+';
    } else if (should_escape(c, mode)) {
      out += '%';
      out += kUpperHex[c >> 4];
      out += kUpperHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

bool valid_optional_port(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return std::all_of(port.begin() + 1, port.end(), [](char b) { return b >= '0' && b <= '9'; });
}

bool valid_userinfo(std::string_view s) {
  for (char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) continue;
    if (std::string_view("-._:~!$&'()*+,;=%@").find(c) != std::string_view::npos) continue;
    return false;
  }
  return true;
}

bool valid_encoded(std::string_view s, Encoding mode) {
  for (char ch : s) {
    if (std::string_view("!$&'()*+,;=:@[]%").find(ch) != std::string_view::npos) continue;
    if (should_escape(static_cast<unsigned char>(ch), mode)) return false;
  }
  return true;
}

std::variant<std::string, Failure> parse_host(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    const auto close = host.rfind(']');
    if (close == std::string_view::npos) return Failure{"missing ']' in host"};
    const std::string_view colon_port = host.substr(close + 1);
    if (!valid_optional_port(colon_port)) return Failure{"invalid port " + go_quote(colon_port) + " after host"};
    const auto zone = host.substr(0, close).find("%25");
    if (zone != std::string_view::npos) {
      auto part1 = unescape(host.substr(0, zone), Encoding::kHost);
      if (auto* f = std::get_if<Failure>(&part1)) return *f;
      auto part2 = unescape(host.substr(zone, close - zone), Encoding::kZone);
      if (auto* f = std::get_if<Failure>(&part2)) return *f;
      auto part3 = unescape(host.substr(close), Encoding::kHost);
      if (auto* f = std::get_if<Failure>(&part3)) return *f;
      return std::get<std::string>(part1) + std::get<std::string>(part2) + std::get<std::string>(part3);
    }
  } else if (const auto colon = host.rfind(':'); colon != std::string_view::npos) {
    const std::string_view colon_port = host.substr(colon);
    if (!valid_optional_port(colon_port)) return Failure{"invalid port " + go_quote(colon_port) + " after host"};
  }
  return unescape(host, Encoding::kHost);
}

std::optional<Failure> parse_authority(std::string_view authority, GoUrl& url) {
  const auto at = authority.rfind('@');
  auto host = parse_host(at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (auto* f = std::get_if<Failure>(&host)) return *f;
  url.host = std::get<std::string>(std::move(host));
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view userinfo = authority.substr(0, at);
  if (!valid_userinfo(userinfo)) return Failure{"net/url: invalid userinfo"};
  const auto colon = userinfo.find(':');
  auto username = unescape(userinfo.substr(0, colon), Encoding::kUserPassword);
  if (auto* f = std::get_if<Failure>(&username)) return *f;
  url.has_user = true;
  url.username = std::get<std::string>(std::move(username));
  if (colon != std::string_view::npos) {
    auto password = unescape(userinfo.substr(colon + 1), Encoding::kUserPassword);
    if (auto* f = std::get_if<Failure>(&password)) return *f;
    url.password = std::get<std::string>(std::move(password));
    url.password_set = true;
  }
  return std::nullopt;
}

std::optional<Failure> set_path(std::string_view escaped, GoUrl& url) {
  auto path = unescape(escaped, Encoding::kPath);
  if (auto* f = std::get_if<Failure>(&path)) return *f;
  url.path = std::get<std::string>(std::move(path));
  url.raw_path = escape(url.path, Encoding::kPath) == escaped ? "" : std::string(escaped);
  return std::nullopt;
}

// url.getScheme: the scheme when the text starts with one; an error only for a leading ':'.
std::variant<std::pair<std::string_view, std::string_view>, Failure> split_scheme(std::string_view raw) {
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return std::pair{std::string_view{}, raw};
      continue;
    }
    if (c == ':') {
      if (i == 0) return Failure{"missing protocol scheme"};
      return std::pair{raw.substr(0, i), raw.substr(i + 1)};
    }
    return std::pair{std::string_view{}, raw};
  }
  return std::pair{std::string_view{}, raw};
}

std::variant<GoUrl, Failure> parse(std::string_view raw, bool via_request) {
  if (std::any_of(raw.begin(), raw.end(), [](char c) { return static_cast<unsigned char>(c) < ' ' || c == 0x7f; }))
    return Failure{"net/url: invalid control character in URL"};
  if (raw.empty() && via_request) return Failure{"empty url"};
  GoUrl url;
  if (raw == "*") {
    url.path = "*";
    return url;
  }
  auto scheme = split_scheme(raw);
  if (auto* f = std::get_if<Failure>(&scheme)) return *f;
  auto [scheme_text, rest] = std::get<0>(scheme);
  url.scheme = std::string(scheme_text);
  std::transform(url.scheme.begin(), url.scheme.end(), url.scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!rest.empty() && rest.back() == '?' && std::count(rest.begin(), rest.end(), '?') == 1) {
    url.force_query = true;
    rest.remove_suffix(1);
  } else if (const auto question = rest.find('?'); question != std::string_view::npos) {
    url.raw_query = std::string(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  if (rest.empty() || rest[0] != '/') {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);
      return url;
    }
    if (via_request) return Failure{"invalid URI for request"};
    const std::string_view segment = rest.substr(0, rest.find('/'));
    if (segment.find(':') != std::string_view::npos)
      return Failure{"first path segment in URL cannot contain colon"};
  }
  const bool has_authority = rest.substr(0, 2) == "//";
  if (has_authority && (!url.scheme.empty() || (!via_request && rest.substr(0, 3) != "///"))) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const auto slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (auto failure = parse_authority(authority, url)) return *failure;
  }
  if (auto failure = set_path(rest, url)) return *failure;
  return url;
}

std::pair<std::string_view, std::string_view> split_host_port(std::string_view host_port) {
  std::string_view host = host_port, port;
  const auto colon = host.rfind(':');
  if (colon != std::string_view::npos && valid_optional_port(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, port};
}

GoUrlError url_error(std::string_view url, const Failure& failure) {
  return GoUrlError{"parse " + go_quote(url) + ": " + failure.message};
}

}  // namespace

std::string GoUrl::hostname() const { return std::string(split_host_port(host).first); }
std::string GoUrl::port() const { return std::string(split_host_port(host).second); }

std::string GoUrl::escaped_path() const {
  if (!raw_path.empty() && valid_encoded(raw_path, Encoding::kPath)) {
    auto unescaped = unescape(raw_path, Encoding::kPath);
    if (auto* p = std::get_if<std::string>(&unescaped); p && *p == path) return raw_path;
  }
  if (path == "*") return "*";
  return escape(path, Encoding::kPath);
}

std::vector<std::pair<std::string, std::vector<std::string>>> GoUrl::query() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> values;
  std::string_view rest = raw_query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    const auto equals = pair.find('=');
    auto key = unescape(pair.substr(0, equals), Encoding::kQueryComponent);
    auto value = unescape(equals == std::string_view::npos ? std::string_view{} : pair.substr(equals + 1),
                          Encoding::kQueryComponent);
    if (std::holds_alternative<Failure>(key) || std::holds_alternative<Failure>(value)) continue;
    const std::string& k = std::get<std::string>(key);
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& entry) { return entry.first == k; });
    if (it == values.end()) it = values.insert(values.end(), {k, {}});
    it->second.push_back(std::get<std::string>(std::move(value)));
  }
  return values;
}

std::variant<GoUrl, GoUrlError> parse_go_url(std::string_view text) {
  const auto hash = text.find('#');
  const std::string_view without_fragment = text.substr(0, hash);
  auto parsed = parse(without_fragment, false);
  if (auto* f = std::get_if<Failure>(&parsed)) return url_error(without_fragment, *f);
  GoUrl url = std::get<GoUrl>(std::move(parsed));
  if (hash == std::string_view::npos) return url;
  auto fragment = unescape(text.substr(hash + 1), Encoding::kFragment);
  if (auto* f = std::get_if<Failure>(&fragment)) return url_error(text, *f);
  url.fragment = std::get<std::string>(std::move(fragment));
  return url;
}

std::variant<GoUrl, GoUrlError> parse_go_request_uri(std::string_view text) {
  auto parsed = parse(text, true);
  if (auto* f = std::get_if<Failure>(&parsed)) return url_error(text, *f);
  return std::get<GoUrl>(std::move(parsed));
}

}  // namespace kapi::base

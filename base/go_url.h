#pragma once
// URLs as Go's net/url parses them (url.go, Go 1.23, which kube 1.32 builds with): Parse and ParseRequestURI with
// their exact error texts, and the accessors kube's CEL url library and format library expose (Hostname, Port,
// EscapedPath, Query).
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kapi::base {

struct GoUrl {
  std::string scheme;  // lower-cased
  std::string opaque;
  bool has_user = false;
  std::string username, password;
  bool password_set = false;
  std::string host;      // host or host:port, unescaped
  std::string path;      // unescaped
  std::string raw_path;  // the escaped path as written, when it differs from the default escaping of path
  bool force_query = false;
  std::string raw_query;
  std::string fragment;

  std::string hostname() const;      // URL.Hostname: host without port and brackets
  std::string port() const;          // URL.Port
  std::string escaped_path() const;  // URL.EscapedPath
  // URL.Query: key -> values in the order they appear; malformed pairs are dropped, as Go drops them.
  std::vector<std::pair<std::string, std::vector<std::string>>> query() const;
};

struct GoUrlError {
  std::string message;  // url.Error's text: `parse "x": invalid URI for request`
};

std::variant<GoUrl, GoUrlError> parse_go_url(std::string_view text);              // url.Parse
std::variant<GoUrl, GoUrlError> parse_go_request_uri(std::string_view text);      // url.ParseRequestURI

}  // namespace kapi::base

// URL query strings, decoded the way Go's net/url does it, because kube-apiserver's behaviour (which parameter wins,
// what a malformed pair means) follows from `req.URL.Query()`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::http {

// Go's url.unescape: "%XY" becomes one byte; with plus_as_space (query components) '+' becomes ' '.
// A '%' not followed by two hex digits makes the whole input invalid (std::nullopt), as in Go.
std::optional<std::string> percent_decode(std::string_view encoded, bool plus_as_space);

// Go's url.QueryEscape: keeps A-Z a-z 0-9 - _ . ~, turns ' ' into '+', escapes every other byte as %XX.
std::string percent_encode_query_component(std::string_view raw);

// Go's url.PathEscape-like escaping of a whole path (mode encodePath): '/' and the sub-delimiters $ & + , : ; = @
// stay as they are, everything else outside the unreserved set becomes %XX. This is what URL.EscapedPath() gives for
// a path that arrived without a usable raw form.
std::string percent_encode_path(std::string_view raw);

// The (key, value) pairs of a query string, in the order they appeared, keys possibly repeated.
class QueryParams {
 public:
  using Pair = std::pair<std::string, std::string>;
  using const_iterator = std::vector<Pair>::const_iterator;

  QueryParams() = default;

  // Go's url.ParseQuery semantics, including what it silently drops (URL.Query() ignores the error):
  //  - pairs are separated by '&'; a pair containing a raw ';' is skipped (Go >= 1.17);
  //  - empty pairs ("a=1&&b=2") are skipped; "k" alone means key "k" with value "";
  //  - the key/value split is at the first '='; both sides are percent-decoded with '+' as space;
  //  - a pair whose key or value has an invalid escape is skipped, the rest is still parsed.
  static QueryParams parse(std::string_view raw_query);

  // The first value of key (Go's Values.Get), distinguishing "absent" from "present but empty".
  std::optional<std::string_view> get(std::string_view key) const;
  bool has(std::string_view key) const;
  // Every value of key, in order of appearance (Go's Values[key]).
  std::vector<std::string_view> all(std::string_view key) const;

  // The undecoded query string this was parsed from (Go's URL.RawQuery).
  std::string_view raw() const { return raw_; }

  const_iterator begin() const { return pairs_.begin(); }
  const_iterator end() const { return pairs_.end(); }
  std::size_t size() const { return pairs_.size(); }
  bool empty() const { return pairs_.empty(); }

 private:
  std::string raw_;
  std::vector<Pair> pairs_;
};

}  // namespace kapi::http

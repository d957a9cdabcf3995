#pragma once
// HTTP header fields in arrival order, looked up case-insensitively (field names are case-insensitive).
#include "server/http/query.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::http {

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

inline bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

// A user extra's key from the rest of a header name after its prefix (Impersonate-Extra-, X-Remote-Extra-), as
// kube reads it: lower-cased, then percent-decoded; a key that is not valid %-encoding is kept as it came.
inline std::string user_extra_key(std::string_view header_suffix) {
  std::string key(header_suffix);
  std::transform(key.begin(), key.end(), key.begin(),
                 [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
  if (auto decoded = percent_decode(key, false)) return std::move(*decoded);
  return key;
}

struct HeaderField {
  std::string name;
  std::string value;
};

class Headers {
 public:
  std::optional<std::string_view> get(std::string_view name) const {
    for (const auto& field : fields_)
      if (iequals(field.name, name)) return std::string_view(field.value);
    return std::nullopt;
  }
  std::vector<std::string_view> all(std::string_view name) const {
    std::vector<std::string_view> values;
    for (const auto& field : fields_)
      if (iequals(field.name, name)) values.emplace_back(field.value);
    return values;
  }
  bool has(std::string_view name) const { return get(name).has_value(); }
  void add(std::string name, std::string value) {
    // A request or a response carries a handful: room for them at once, not a regrowth for each doubling.
    if (fields_.capacity() == 0) fields_.reserve(kTypicalFields);
    fields_.push_back({std::move(name), std::move(value)});
  }
  void set(std::string name, std::string value) {
    remove(name);
    add(std::move(name), std::move(value));
  }
  void remove(std::string_view name) {
    std::erase_if(fields_, [&](const HeaderField& field) { return iequals(field.name, name); });
  }
  auto begin() const { return fields_.begin(); }
  auto end() const { return fields_.end(); }
  std::size_t size() const { return fields_.size(); }
  bool empty() const { return fields_.empty(); }

 private:
  static constexpr std::size_t kTypicalFields = 12;
  std::vector<HeaderField> fields_;
};

}  // namespace kapi::http

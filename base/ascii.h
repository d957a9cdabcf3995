#pragma once
// Go's strings functions on ASCII text, where kube's code compares with ASCII words (verbs, keywords, flags): for
// those, strings.ToLower and strings.TrimSpace give the same results as these.
#include <string>
#include <string_view>

namespace kapi::base {

inline std::string ascii_lowercase(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return lowered;
}

// strings.TrimSpace for ASCII white space.
inline std::string_view trim_ascii_space(std::string_view text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace kapi::base

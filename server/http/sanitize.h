#pragma once
// kube's responsewriters sanitizer: text from the request (a path, a header, a name) that goes back in an error
// message never reads as HTML, so &, < and > become entities.
#include <string>
#include <string_view>

namespace kapi::http {

inline std::string html_sanitized(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace kapi::http

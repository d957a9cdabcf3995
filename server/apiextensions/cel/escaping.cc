// apiserver/pkg/cel/escaping.go: Escape and Unescape.
#include "server/apiextensions/cel/escaping.h"

#include <array>
#include <algorithm>

namespace kapi::apiextensions::cel {
namespace {

bool is_reserved(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kReserved = {
      "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
      "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void"};
  return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end() || name == "while";
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::optional<std::string> escape(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return std::nullopt;
  if (is_reserved(name)) return "__" + std::string(name) + "__";
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (is_identifier_char(c)) {
      out += c;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view escaped) {
  // Matches of `__[^_]+__`, left to right, as Go's regexp finds them.
  std::string out;
  std::size_t i = 0;
  while (i < escaped.size()) {
    if (escaped.compare(i, 2, "__") == 0) {
      std::size_t start = i + 2, end = start;
      while (end < escaped.size() && escaped[end] != '_') ++end;
      if (end > start && escaped.compare(end, 2, "__") == 0) {
        std::string_view contents = escaped.substr(start, end - start);
        if (contents == "underscores") out += "__";
        else if (contents == "dot") out += '.';
        else if (contents == "dash") out += '-';
        else if (contents == "slash") out += '/';
        else if (is_reserved(contents)) {
          if (end + 2 - i != escaped.size()) return std::nullopt;
          out += contents;
        } else {
          return std::nullopt;
        }
        i = end + 2;
        continue;
      }
    }
    out += escaped[i++];
  }
  return out;
}

}  // namespace kapi::apiextensions::cel

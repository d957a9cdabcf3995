// apiextensions-apiserver pkg/apiserver/schema/cel/validation.go: ValidFieldPath and unescapeSingleQuote.
#include "server/apiextensions/cel/field_path.h"

#include <optional>
#include <vector>

namespace kapi::apiextensions::cel {
namespace {

using schema::Schema;

// The scanner's tokens: '.', '[' and ']' alone; a single-quoted string up to its closing unescaped quote; any
// other run of characters up to the next delimiter.
std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\'') {
      std::size_t j = i + 1;
      while (j < text.size() && !(text[j] == '\'' && text[j - 1] != '\\')) ++j;
      if (j < text.size()) ++j;
      out.emplace_back(text.substr(i, j - i));
      i = j;
      continue;
    }
    if (text[i] == '.' || text[i] == '[' || text[i] == ']') {
      out.emplace_back(1, text[i]);
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] != '.' && text[j] != '[' && text[j] != ']') ++j;
    out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::variant<std::string, std::string> unescape_single_quote(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    char d = s[++i];
    switch (d) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\'': out += '\''; break;
      case '\\': out += '\\'; break;
      default: return std::variant<std::string, std::string>(std::in_place_index<1>, "invalid escape char \\" + std::string(1, d));
    }
  }
  return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(out));
}

}  // namespace

std::variant<FieldPathResult, std::string> valid_field_path(std::string_view json_path, const Schema& root,
                                                            bool allow_array_notation) {
  std::string path;
  const Schema* schema = &root;
  auto append = [&](const std::string& name, bool named) -> std::optional<std::string> {
    if (!named) {
      path += "[" + name + "]";
      schema = schema->additional_properties_schema();
      return std::nullopt;
    }
    path += (path.empty() ? "" : ".") + name;
    const Schema* property = schema->property(name);
    if (!property) return "does not refer to a valid field";
    schema = property;
    return std::nullopt;
  };
  auto is_named = [&]() -> std::optional<bool> {
    if (!schema) return std::nullopt;
    if (!schema->properties.empty()) return true;
    if (schema->additional_properties) return false;
    return std::nullopt;
  };
  std::vector<std::string> tokens = tokens_of(json_path);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token == "[") {
      if (!allow_array_notation) return std::string("array notation is not allowed");
      if (++i >= tokens.size()) return std::string("unexpected end of JSON path");
      const std::string& quoted = tokens[i];
      if (quoted.size() < 2 || quoted.front() != '\'' || quoted.back() != '\'')
        return "expected single quoted string but got " + quoted;
      auto unescaped = unescape_single_quote(std::string_view(quoted).substr(1, quoted.size() - 2));
      if (unescaped.index() == 1) return "invalid string literal: " + std::get<1>(unescaped);
      auto named = is_named();
      if (!named) return std::string("does not refer to a valid field");
      if (auto error = append(std::get<0>(unescaped), *named)) return *error;
      if (++i >= tokens.size()) return std::string("unexpected end of JSON path");
      if (tokens[i] != "]") return "expected ] but got " + tokens[i];
    } else if (token == ".") {
      if (++i >= tokens.size()) return std::string("unexpected end of JSON path");
      auto named = is_named();
      if (!named) return std::string("does not refer to a valid field");
      if (auto error = append(tokens[i], *named)) return *error;
    } else {
      return "expected [ or . but got: " + token;
    }
  }
  return FieldPathResult{path, schema};
}

}  // namespace kapi::apiextensions::cel

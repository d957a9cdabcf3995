#include "server/apiextensions/jsonpath.h"

#include <boost/json.hpp>

#include <cctype>
#include <charconv>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '$'; }

std::string_view read_name(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && name_char(text[n])) ++n;
  std::string_view name = text.substr(0, n);
  text.remove_prefix(n);
  return name;
}

std::optional<std::string> read_quoted(std::string_view& text) {
  if (text.empty() || (text[0] != '\'' && text[0] != '"')) return std::nullopt;
  const char quote = text[0];
  auto end = text.find(quote, 1);
  if (end == std::string_view::npos) return std::nullopt;
  std::string out(text.substr(1, end - 1));
  text.remove_prefix(end + 1);
  return out;
}

}  // namespace

std::optional<JsonPath> JsonPath::parse(std::string_view text) {
  JsonPath out;
  // kube wraps the column's path as "{<path>}"; the braces may also be given.
  if (text.starts_with('{') && text.ends_with('}')) text = text.substr(1, text.size() - 2);
  if (text.empty()) return std::nullopt;
  while (!text.empty()) {
    Step step;
    if (text[0] == '.') {
      text.remove_prefix(1);
      if (!text.empty() && text[0] == '*') {
        text.remove_prefix(1);
        step.kind = Step::Kind::Wildcard;
      } else {
        std::string_view name = read_name(text);
        if (name.empty()) return std::nullopt;
        step.name = std::string(name);
      }
    } else if (text[0] == '[') {
      text.remove_prefix(1);
      if (auto quoted = read_quoted(text)) {
        step.name = std::move(*quoted);
      } else if (!text.empty() && text[0] == '*') {
        text.remove_prefix(1);
        step.kind = Step::Kind::Wildcard;
      } else if (text.starts_with("?(@")) {
        text.remove_prefix(3);
        step.kind = Step::Kind::Filter;
        while (!text.empty() && text[0] == '.') {
          text.remove_prefix(1);
          std::string_view name = read_name(text);
          if (name.empty()) return std::nullopt;
          step.filter_path.emplace_back(name);
        }
        while (!text.empty() && text[0] == ' ') text.remove_prefix(1);
        if (!text.starts_with("==")) return std::nullopt;
        text.remove_prefix(2);
        while (!text.empty() && text[0] == ' ') text.remove_prefix(1);
        if (auto quoted = read_quoted(text)) {
          step.filter_value = json::string(*quoted);
        } else {
          auto close = text.find(')');
          if (close == std::string_view::npos) return std::nullopt;
          std::string_view literal = text.substr(0, close);
          while (!literal.empty() && literal.back() == ' ') literal.remove_suffix(1);
          boost::system::error_code error;
          step.filter_value = json::parse(literal, error);
          if (error) return std::nullopt;
          text.remove_prefix(literal.size());
          while (!text.empty() && text[0] == ' ') text.remove_prefix(1);
        }
        if (!text.starts_with(')')) return std::nullopt;
        text.remove_prefix(1);
      } else {
        step.kind = Step::Kind::Index;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), step.index);
        if (error != std::errc()) return std::nullopt;
        text.remove_prefix(static_cast<std::size_t>(end - text.data()));
      }
      if (!text.starts_with(']')) return std::nullopt;
      text.remove_prefix(1);
    } else {
      return std::nullopt;
    }
    out.steps_.push_back(std::move(step));
  }
  return out;
}

std::vector<const json::value*> JsonPath::find(const json::value& root) const {
  std::vector<const json::value*> current{&root};
  for (const auto& step : steps_) {
    std::vector<const json::value*> next;
    for (const json::value* value : current) {
      switch (step.kind) {
        case Step::Kind::Field:
          if (value->is_object())
            if (const json::value* member = value->as_object().if_contains(step.name)) next.push_back(member);
          break;
        case Step::Kind::Index:
          if (value->is_array()) {
            const auto& array = value->as_array();
            long index = step.index < 0 ? static_cast<long>(array.size()) + step.index : step.index;
            if (index >= 0 && static_cast<std::size_t>(index) < array.size()) next.push_back(&array[index]);
          }
          break;
        case Step::Kind::Wildcard:
          if (value->is_array())
            for (const auto& item : value->as_array()) next.push_back(&item);
          else if (value->is_object())
            for (const auto& member : value->as_object()) next.push_back(&member.value());
          break;
        case Step::Kind::Filter:
          if (!value->is_array()) break;
          for (const auto& item : value->as_array()) {
            const json::value* probe = &item;
            for (const auto& name : step.filter_path) {
              probe = probe->is_object() ? probe->as_object().if_contains(name) : nullptr;
              if (!probe) break;
            }
            if (probe && *probe == step.filter_value) next.push_back(&item);
          }
          break;
      }
    }
    current = std::move(next);
  }
  return current;
}

std::optional<std::vector<std::string>> JsonPath::field_names() const {
  std::vector<std::string> out;
  for (const auto& step : steps_) {
    if (step.kind != Step::Kind::Field) return std::nullopt;
    out.push_back(step.name);
  }
  return out;
}

}  // namespace kapi::apiextensions

#include "server/selectors/field_selector.h"

#include "base/utf8.h"

#include <algorithm>

namespace kapi::selectors {
namespace {

using FieldOperator = FieldRequirement::Operator;

// The selector's comma-separated terms; an escaped comma (`\,`) stays inside its term, backslash and all.
std::vector<std::string_view> split_terms(std::string_view selector) {
  std::vector<std::string_view> terms;
  if (selector.empty()) return terms;
  std::size_t start = 0;
  bool escaped = false;
  for (std::size_t i = 0; i < selector.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (selector[i] == '\\') {
      escaped = true;
    } else if (selector[i] == ',') {
      terms.push_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(selector.substr(start));
  return terms;
}

struct Term {
  std::string_view field;
  FieldOperator op;
  std::string_view raw_value;
};

// The first operator in the term splits it; `!=` and `==` win over `=` where they start at the same place, so
// `a==b` is a and b, not a and `=b`. A field cannot escape anything.
std::optional<Term> split_term(std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    const std::string_view rest = term.substr(i);
    if (rest.starts_with("!=")) return Term{term.substr(0, i), FieldOperator::NotEquals, rest.substr(2)};
    if (rest.starts_with("==")) return Term{term.substr(0, i), FieldOperator::Equals, rest.substr(2)};
    if (rest.starts_with("=")) return Term{term.substr(0, i), FieldOperator::Equals, rest.substr(1)};
  }
  return std::nullopt;
}

// fields.UnescapeValue. Go walks the value rune by rune only when it holds `\`, `,` or `=`, rewriting malformed
// UTF-8 as U+FFFD on the way; otherwise the value is kept byte for byte.
std::string unescape_value(std::string_view raw) {
  if (raw.find_first_of("\\,=") == std::string_view::npos) return std::string(raw);
  std::string value;
  value.reserve(raw.size());
  bool escaped = false;
  while (!raw.empty()) {
    const base::Rune rune = base::decode_rune(raw);
    raw.remove_prefix(rune.width);
    const char32_t c = rune.value;
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=') {
        std::string sequence = "\\";
        base::append_utf8(sequence, c);
        throw SelectorParseError("invalid field selector: invalid escape sequence: " + sequence);
      }
      value += static_cast<char>(c);
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',' || c == '=') {
      // Go prints the rune with %v: its number.
      throw SelectorParseError("invalid field selector: unescaped character in value: " +
                               std::to_string(static_cast<int>(c)));
    } else {
      base::append_utf8(value, c);
    }
  }
  if (escaped) throw SelectorParseError("invalid field selector: invalid escape sequence: \\");
  return value;
}

}  // namespace

std::string escape_field_value(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string FieldRequirement::to_string() const {
  return field + (op == FieldOperator::Equals ? "=" : "!=") + escape_field_value(value);
}

FieldSelector FieldSelector::parse(std::string_view text) {
  std::vector<std::string_view> parts = split_terms(text);
  // Kube sorts the terms as written, before reading them: that order is the one String() prints and the one in
  // which a bad term is found.
  std::sort(parts.begin(), parts.end());
  std::vector<FieldRequirement> requirements;
  requirements.reserve(parts.size());
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    const std::optional<Term> term = split_term(part);
    if (!term) {
      throw SelectorParseError("invalid selector: '" + std::string(text) + "'; can't understand '" +
                               std::string(part) + "'");
    }
    FieldRequirement requirement{std::string(term->field), term->op, unescape_value(term->raw_value)};
    // A term with neither field nor value (`=`, `!=`) selects nothing in particular: kube drops it.
    if (requirement.field.empty() && requirement.value.empty()) continue;
    requirements.push_back(std::move(requirement));
  }
  return FieldSelector(std::move(requirements));
}

bool FieldSelector::matches(const FieldMap& fields) const {
  return matches([&fields](std::string_view field) -> std::optional<std::string_view> {
    const auto it = fields.find(field);
    if (it == fields.end()) return std::nullopt;
    return it->second;
  });
}

std::optional<std::string_view> FieldSelector::exact_value(std::string_view field) const {
  for (const auto& requirement : requirements_) {
    if (requirement.op == FieldOperator::Equals && requirement.field == field) return requirement.value;
  }
  return std::nullopt;
}

std::string FieldSelector::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].to_string();
  }
  return out;
}

std::vector<std::string> FieldSelector::fields() const {
  std::vector<std::string> names;
  for (const auto& requirement : requirements_) {
    if (std::find(names.begin(), names.end(), requirement.field) == names.end()) names.push_back(requirement.field);
  }
  return names;
}

}  // namespace kapi::selectors

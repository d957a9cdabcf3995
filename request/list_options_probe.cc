#include "request/list_options_probe.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace kapi::request {
namespace {

// ---- small Go-compatible helpers -------------------------------------------------------------------------------

bool is_ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// For comparisons with ASCII words this equals Go's strings.ToLower: no non-ASCII rune lowers into them.
std::string ascii_lowercase(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  return lowered;
}

// Length of the well-formed UTF-8 sequence at text[i], or 0 where Go's decoder would yield RuneError of width 1.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
  const auto in = [](unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (in(b0, 0xC2, 0xDF)) return in(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (in(b0, 0xE0, 0xEF)) {
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (in(b0, 0xF0, 0xF4)) {
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// fields.UnescapeValue. Its slow path re-encodes rune by rune, which turns malformed UTF-8 into U+FFFD.
std::optional<std::string> unescape_field_value(std::string_view raw) {
  if (raw.find_first_of("\\,=") == std::string_view::npos) return std::string(raw);
  std::string out;
  bool in_slash = false;
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t length = utf8_sequence_length(raw, i);
    const std::string_view rune = raw.substr(i, length == 0 ? 1 : length);
    i += rune.size();
    const char c = rune.size() == 1 ? rune[0] : '\0';
    if (in_slash) {
      if (c != '\\' && c != ',' && c != '=') return std::nullopt;
      out.push_back(c);
      in_slash = false;
      continue;
    }
    if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      return std::nullopt;
    } else if (length == 0) {
      out += "\xEF\xBF\xBD";
    } else {
      out += rune;
    }
  }
  if (in_slash) return std::nullopt;
  return out;
}

// k8s.io/apimachinery/pkg/api/validation/path.IsValidPathSegmentName.
bool is_valid_path_segment_name(std::string_view name) {
  return name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('%') == std::string_view::npos;
}

// ---- label selector validation (labels.Parse) ------------------------------------------------------------------

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_label_name_form(std::string_view s) {
  if (s.empty() || !is_ascii_alnum(s.front()) || !is_ascii_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_ascii_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// IsDNS1123Subdomain: at most 253 chars of dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])? labels.
bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  const auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(), [&](char c) { return lower_alnum(c) || c == '-'; })) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// validation.IsLabelKey (a.k.a. IsQualifiedName).
bool is_valid_label_key(std::string_view key) {
  std::string_view name = key;
  if (const std::size_t slash = key.find('/'); slash != std::string_view::npos) {
    name = key.substr(slash + 1);
    if (name.find('/') != std::string_view::npos) return false;
    if (!is_dns1123_subdomain(key.substr(0, slash))) return false;
  }
  return name.size() <= 63 && is_label_name_form(name);
}

// validation.IsValidLabelValue.
bool is_valid_label_value(std::string_view value) {
  return value.empty() || (value.size() <= 63 && is_label_name_form(value));
}

enum class LabelToken {
  kError, kEndOfString, kClosedPar, kComma, kDoesNotExist, kDoubleEquals, kEquals, kGreaterThan, kIdentifier, kIn,
  kLessThan, kNotEquals, kNotIn, kOpenPar,
};

std::optional<LabelToken> literal_token(std::string_view s) {
  static constexpr std::pair<std::string_view, LabelToken> kLiterals[] = {
      {")", LabelToken::kClosedPar},  {",", LabelToken::kComma},        {"!", LabelToken::kDoesNotExist},
      {"==", LabelToken::kDoubleEquals}, {"=", LabelToken::kEquals},    {">", LabelToken::kGreaterThan},
      {"in", LabelToken::kIn},        {"<", LabelToken::kLessThan},     {"!=", LabelToken::kNotEquals},
      {"notin", LabelToken::kNotIn},  {"(", LabelToken::kOpenPar},
  };
  for (const auto& [text, token] : kLiterals) {
    if (text == s) return token;
  }
  return std::nullopt;
}

struct ScannedItem {
  LabelToken token;
  std::string literal;
};

// labels.Lexer, byte for byte: a NUL byte reads like the end of input, as in Go.
class LabelLexer {
 public:
  explicit LabelLexer(std::string_view input) : input_(input) {}

  ScannedItem lex() {
    char c = read();
    while (is_whitespace(c)) c = read();
    if (c == 0) return {LabelToken::kEndOfString, ""};
    unread();
    return is_special(c) ? scan_special() : scan_identifier_or_keyword();
  }

 private:
  static bool is_whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  static bool is_special(char c) { return std::string_view("=!(),><").find(c) != std::string_view::npos; }

  char read() { return pos_ < input_.size() ? input_[pos_++] : '\0'; }
  void unread() { --pos_; }

  ScannedItem scan_identifier_or_keyword() {
    std::string buffer;
    for (char c = read(); c != 0; c = read()) {
      if (is_special(c) || is_whitespace(c)) {
        unread();
        break;
      }
      buffer.push_back(c);
    }
    const auto keyword = literal_token(buffer);
    return {keyword.value_or(LabelToken::kIdentifier), std::move(buffer)};
  }

  ScannedItem scan_special() {
    std::string buffer;
    ScannedItem last{LabelToken::kError, ""};
    for (char c = read(); c != 0; c = read()) {
      if (!is_special(c)) {
        unread();
        break;
      }
      buffer.push_back(c);
      if (const auto token = literal_token(buffer)) {
        last = {*token, buffer};
      } else if (last.token != LabelToken::kError) {
        unread();
        break;
      }
    }
    return last;
  }

  std::string_view input_;
  std::size_t pos_ = 0;
};

// labels.Parser, reduced to "does it parse and validate".
class LabelSelectorChecker {
 public:
  explicit LabelSelectorChecker(std::string_view selector) {
    LabelLexer lexer(selector);
    do {
      items_.push_back(lexer.lex());
    } while (items_.back().token != LabelToken::kEndOfString);
  }

  bool valid() {
    for (;;) {
      const LabelToken token = lookahead(kValues);
      if (token == LabelToken::kEndOfString) return true;
      if (token != LabelToken::kIdentifier && token != LabelToken::kDoesNotExist) return false;
      if (!requirement()) return false;
      const LabelToken after = consume(kValues).token;
      if (after == LabelToken::kEndOfString) return true;
      if (after != LabelToken::kComma) return false;
      const LabelToken next = lookahead(kValues);
      if (next != LabelToken::kIdentifier && next != LabelToken::kDoesNotExist) return false;
    }
  }

 private:
  // In a value position the keywords "in"/"notin" are ordinary identifiers.
  enum Context { kKeyAndOperator, kValues };

  static LabelToken in_context(LabelToken token, Context context) {
    if (context == kValues && (token == LabelToken::kIn || token == LabelToken::kNotIn)) return LabelToken::kIdentifier;
    return token;
  }
  const ScannedItem& current() const { return items_[std::min(position_, items_.size() - 1)]; }
  LabelToken lookahead(Context context) const { return in_context(current().token, context); }
  ScannedItem consume(Context context) {
    ScannedItem item{in_context(current().token, context), current().literal};
    ++position_;
    return item;
  }

  bool requirement() {
    ScannedItem key = consume(kValues);
    const bool does_not_exist = key.token == LabelToken::kDoesNotExist;
    if (does_not_exist) key = consume(kValues);
    if (key.token != LabelToken::kIdentifier || !is_valid_label_key(key.literal)) return false;
    const LabelToken next = lookahead(kValues);
    if (does_not_exist || next == LabelToken::kEndOfString || next == LabelToken::kComma) return true;

    const LabelToken op = consume(kKeyAndOperator).token;
    std::vector<std::string> values;
    switch (op) {
      case LabelToken::kIn:
      case LabelToken::kNotIn:
        if (!value_set(values)) return false;
        break;
      case LabelToken::kEquals:
      case LabelToken::kDoubleEquals:
      case LabelToken::kNotEquals:
      case LabelToken::kGreaterThan:
      case LabelToken::kLessThan:
        if (!exact_value(values)) return false;
        break;
      default:
        return false;
    }
    const bool numeric = op == LabelToken::kGreaterThan || op == LabelToken::kLessThan;
    return std::all_of(values.begin(), values.end(), [&](const std::string& value) {
      return is_valid_label_value(value) && (!numeric || parses_as_int64(value));
    });
  }

  bool value_set(std::vector<std::string>& values) {
    if (consume(kValues).token != LabelToken::kOpenPar) return false;
    const LabelToken next = lookahead(kValues);
    if (next == LabelToken::kClosedPar) {
      consume(kValues);
      values.emplace_back();
      return true;
    }
    if (next != LabelToken::kIdentifier && next != LabelToken::kComma) return false;
    return identifier_list(values) && consume(kValues).token == LabelToken::kClosedPar;
  }

  bool identifier_list(std::vector<std::string>& values) {
    for (;;) {
      ScannedItem item = consume(kValues);
      if (item.token == LabelToken::kIdentifier) {
        values.push_back(std::move(item.literal));
        const LabelToken next = lookahead(kValues);
        if (next == LabelToken::kComma) continue;
        return next == LabelToken::kClosedPar;
      }
      if (item.token != LabelToken::kComma) return false;
      // Empty entries ("(,a)", "(a,)", "(a,,b)") stand for the empty value.
      if (values.empty()) values.emplace_back();
      const LabelToken next = lookahead(kValues);
      if (next == LabelToken::kClosedPar) {
        values.emplace_back();
        return true;
      }
      if (next == LabelToken::kComma) values.emplace_back();
    }
  }

  bool exact_value(std::vector<std::string>& values) {
    const LabelToken next = lookahead(kValues);
    if (next == LabelToken::kEndOfString || next == LabelToken::kComma) {
      values.emplace_back();
      return true;
    }
    ScannedItem item = consume(kValues);
    if (item.token != LabelToken::kIdentifier) return false;
    values.push_back(std::move(item.literal));
    return true;
  }

  std::vector<ScannedItem> items_;
  std::size_t position_ = 0;
};

}  // namespace

// ---- public ----------------------------------------------------------------------------------------------------

bool parses_as_int64(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (limit - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

bool query_value_is_true(std::string_view value) {
  const std::string lowered = ascii_lowercase(value);
  // strings.EqualFold also folds U+017F LATIN SMALL LETTER LONG S to 's'.
  return lowered != "0" && lowered != "false" && lowered != "fal\xC5\xBF" "e";
}

std::optional<std::vector<FieldSelectorTerm>> parse_field_selector(std::string_view selector) {
  std::vector<std::string_view> parts;
  if (!selector.empty()) {
    std::size_t start = 0;
    bool in_slash = false;
    for (std::size_t i = 0; i < selector.size(); ++i) {
      if (in_slash) {
        in_slash = false;
      } else if (selector[i] == '\\') {
        in_slash = true;
      } else if (selector[i] == ',') {
        parts.push_back(selector.substr(start, i - start));
        start = i + 1;
      }
    }
    parts.push_back(selector.substr(start));
  }
  std::sort(parts.begin(), parts.end());

  std::vector<FieldSelectorTerm> terms;
  for (const std::string_view part : parts) {
    if (part.empty()) continue;
    // The first operator occurrence splits; at one position "!=" and "==" are preferred over "=".
    std::size_t at = 0;
    std::size_t op_length = 0;
    bool equals = true;
    for (; at < part.size(); ++at) {
      const std::string_view rest = part.substr(at);
      if (rest.starts_with("!=")) {
        op_length = 2;
        equals = false;
        break;
      }
      if (rest.starts_with("==")) {
        op_length = 2;
        break;
      }
      if (rest.starts_with("=")) {
        op_length = 1;
        break;
      }
    }
    if (op_length == 0) return std::nullopt;
    auto value = unescape_field_value(part.substr(at + op_length));
    if (!value) return std::nullopt;
    terms.push_back({std::string(part.substr(0, at)), equals, std::move(*value)});
  }
  return terms;
}

std::optional<std::string> field_selector_exact_match(const std::vector<FieldSelectorTerm>& terms,
                                                      std::string_view field) {
  for (const auto& term : terms) {
    if (term.equals && term.field == field) return term.value;
  }
  return std::nullopt;
}

bool label_selector_is_valid(std::string_view selector) { return LabelSelectorChecker(selector).valid(); }

ListOptionsProbe probe_list_options(const http::QueryParams& query) {
  ListOptionsProbe probe;
  const auto watch = query.get("watch");
  const auto field_terms = parse_field_selector(query.get("fieldSelector").value_or(""));
  const auto integer_or_absent = [&](std::string_view key) {
    const auto value = query.get(key);
    return !value || parses_as_int64(*value);
  };
  probe.decoded = field_terms.has_value() && label_selector_is_valid(query.get("labelSelector").value_or("")) &&
                  integer_or_absent("timeoutSeconds") && integer_or_absent("limit");
  if (!probe.decoded) {
    // NewRequestInfo's fallback reads `watch` itself, with strings.ToLower rather than EqualFold.
    if (watch) {
      const std::string lowered = ascii_lowercase(*watch);
      probe.watch = lowered != "false" && lowered != "0";
    }
    return probe;
  }
  probe.watch = watch && query_value_is_true(*watch);
  if (auto name = field_selector_exact_match(*field_terms, "metadata.name");
      name && is_valid_path_segment_name(*name)) {
    probe.field_selector_name = std::move(name);
  }
  return probe;
}

}  // namespace kapi::request

// Literal values as cel-go's parser (parser/parser.go VisitInt/VisitUint/VisitDouble, parser/unescape.go) reads
// them.
#include "cel/parser/literals.h"

#include <cmath>
#include <cstdlib>

#include "base/utf8.h"

namespace kapi::cel::parser {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// strconv.ParseUint's digits in a base, refusing overflow.
std::optional<std::uint64_t> parse_magnitude(std::string_view digits) {
  int base = 10;
  if (digits.starts_with("0x")) {
    base = 16;
    digits.remove_prefix(2);
  }
  if (digits.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : digits) {
    int d = hex_value(c);
    if (d < 0 || d >= base) return std::nullopt;
    if (value > (UINT64_MAX - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) return std::nullopt;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return value;
}

// Normalises newlines as cel-go does before unescaping: \r\n and \r become \n.
std::string normalize_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

Unescaped unescape_literal(std::string_view quoted_text, bool is_bytes) {
  const std::string normalized = normalize_newlines(quoted_text);
  std::string_view value = normalized;
  const Unescaped failed{std::nullopt, "unable to unescape string"};
  if (value.size() < 2) return failed;
  bool raw = false;
  if (value[0] == 'r' || value[0] == 'R') {
    value.remove_prefix(1);
    raw = true;
  }
  const std::size_t n = value.size();
  if (n < 2 || value[0] != value[n - 1] || (value[0] != '"' && value[0] != '\'')) return failed;
  if (n >= 6 && (value.starts_with("'''") || value.starts_with("\"\"\""))) {
    if (!value.ends_with(value.substr(0, 3))) return failed;
    value = value.substr(3, n - 6);
  } else {
    value = value.substr(1, n - 2);
  }
  if (raw || value.find('\\') == std::string_view::npos) return {std::string(value), {}};

  std::string out;
  out.reserve(value.size());
  std::size_t i = 0;
  while (i < value.size()) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      // Text outside escapes is re-encoded rune by rune, so stray bytes become U+FFFD.
      base::Rune rune = base::decode_rune(value.substr(i));
      base::append_utf8(out, rune.value);
      i += rune.width;
      continue;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (i + 1 >= value.size()) return {std::nullopt, "unable to unescape string, found '\\' as last character"};
    const char e = value[i + 1];
    i += 2;
    char32_t rune = 0;
    bool encode = false;  // whether rune is a code point to UTF-8 encode rather than a byte
    switch (e) {
      case 'a': rune = '\a'; break;
      case 'b': rune = '\b'; break;
      case 'f': rune = '\f'; break;
      case 'n': rune = '\n'; break;
      case 'r': rune = '\r'; break;
      case 't': rune = '\t'; break;
      case 'v': rune = '\v'; break;
      case '\\': rune = '\\'; break;
      case '\'': rune = '\''; break;
      case '"': rune = '"'; break;
      case '`': rune = '`'; break;
      case '?': rune = '?'; break;
      case 'x':
      case 'X':
      case 'u':
      case 'U': {
        std::size_t digits = 2;
        encode = true;
        if (e == 'x' || e == 'X') {
          encode = !is_bytes;
        } else {
          if (is_bytes) return failed;
          digits = e == 'u' ? 4 : 8;
        }
        if (value.size() - i < digits) return failed;
        std::uint32_t v = 0;
        for (std::size_t j = 0; j < digits; ++j) {
          int d = hex_value(value[i + j]);
          if (d < 0) return failed;
          v = (v << 4) | static_cast<std::uint32_t>(d);
        }
        i += digits;
        if (!is_bytes && v > 0x10FFFF) return failed;
        rune = v;
        break;
      }
      case '0':
      case '1':
      case '2':
      case '3': {
        if (value.size() - i < 2) return {std::nullopt, "unable to unescape octal sequence in string"};
        std::uint32_t v = static_cast<std::uint32_t>(e - '0');
        for (std::size_t j = 0; j < 2; ++j) {
          char d = value[i + j];
          if (d < '0' || d > '7') return {std::nullopt, "unable to unescape octal sequence in string"};
          v = v * 8 + static_cast<std::uint32_t>(d - '0');
        }
        i += 2;
        rune = v;
        encode = !is_bytes;
        break;
      }
      default: return failed;
    }
    if (rune < 0x80 || !encode) out += static_cast<char>(static_cast<unsigned char>(rune & 0xFF));
    else base::append_utf8(out, rune);
  }
  return {std::move(out), {}};
}

std::optional<std::int64_t> parse_int_literal(std::string_view sign, std::string_view digits) {
  std::optional<std::uint64_t> magnitude = parse_magnitude(digits);
  if (!magnitude) return std::nullopt;
  if (sign == "-") {
    if (*magnitude > static_cast<std::uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);
  }
  if (*magnitude > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*magnitude);
}

std::optional<std::uint64_t> parse_uint_literal(std::string_view digits) { return parse_magnitude(digits); }

std::optional<double> parse_double_literal(std::string_view sign, std::string_view digits) {
  std::string text(sign);
  text += digits;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  // Go's ParseFloat refuses only overflow; underflow rounds to zero or a subnormal.
  if (std::isinf(value)) return std::nullopt;
  return value;
}

}  // namespace kapi::cel::parser

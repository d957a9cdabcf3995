// cel-go's string.format (ext/formatting.go, v0.22): the clauses %s %d %f %e %b %x %X %o with an optional
// precision, Go's text for each value, and cel-go's error texts. %f and %e go through golang.org/x/text's printer
// for the en_US locale, which groups digits and writes scientific notation as "2.718280 × 10⁰⁰".
#include "cel/ext/strings_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "base/go_quote.h"
#include "base/go_strconv.h"
#include "base/go_time.h"
#include "base/utf8.h"
#include "cel/ext/ext_util.h"

namespace kapi::cel::ext {
namespace {

constexpr int kDefaultPrecision = 6;

// fmt's %.Nf.
std::string go_format_fixed(double d, int precision) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  std::vector<char> buf(static_cast<std::size_t>(precision) + 400);
  std::snprintf(buf.data(), buf.size(), "%.*f", precision, d);
  return buf.data();
}

// x/text's en_US %.Nf: grouped integer digits, "∞" for infinities.
std::string localized_fixed(double d, int precision) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "∞" : "-∞";
  std::string digits = go_format_fixed(std::fabs(d), precision);
  const auto point = digits.find('.');
  std::string whole = digits.substr(0, point), fraction = point == std::string::npos ? "" : digits.substr(point);
  std::string grouped;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  return (std::signbit(d) ? "-" : "") + grouped + fraction;
}

// x/text's en_US %.Ne: "1.052033 × 10⁰³", the exponent in superscript digits (at least two).
std::string localized_scientific(double d, int precision) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "∞" : "-∞";
  std::vector<char> buf(static_cast<std::size_t>(precision) + 64);
  std::snprintf(buf.data(), buf.size(), "%.*e", precision, std::fabs(d));
  const std::string text = buf.data();
  const auto e_at = text.find('e');
  const int exponent = std::stoi(text.substr(e_at + 1));
  static constexpr const char* kSuperscript[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string exponent_digits = std::to_string(std::abs(exponent));
  if (exponent_digits.size() < 2) exponent_digits.insert(0, "0");
  std::string out = (std::signbit(d) ? "-" : "") + text.substr(0, e_at) + "\u202f×\u202f10";
  if (exponent < 0) out += "⁻";
  for (char c : exponent_digits) out += kSuperscript[c - '0'];
  return out;
}

std::string rfc3339_nano(const Timestamp& t) {
  std::string text = base::format_rfc3339(t.seconds);
  if (t.nanos == 0) return text;
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%09d", t.nanos);
  std::string f = fraction;
  while (f.back() == '0') f.pop_back();
  text.insert(text.size() - 1, f);
  return text;
}

std::string duration_string(const Duration& d) {
  const double seconds =
      static_cast<double>(d.nanos / 1'000'000'000) + static_cast<double>(d.nanos % 1'000'000'000) / 1e9;
  return base::go_format_float_fixed(seconds) + "s";
}

std::string type_name_of(const Value& v) { return v.type_name(); }

std::string string_clause_error(const Value& v) {
  return "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, "
         "and timestamps, was given " + type_name_of(v);
}

bool is_integer(const Value& v) { return v.is<std::int64_t>() || v.is<std::uint64_t>(); }

std::string decimal(const Value& v) {
  return v.is<std::int64_t>() ? std::to_string(v.get<std::int64_t>()) : std::to_string(v.get<std::uint64_t>());
}

std::optional<std::string> format_list(const List& list, std::string& error);
std::optional<std::string> format_map(const Map& map, std::string& error);

// The %s text of a value (FormatString); errors say why there is none.
std::optional<std::string> format_string(const Value& v, std::string& error) {
  if (const List* list = v.as_list()) return format_list(*list, error);
  if (const Map* map = v.as_map()) return format_map(*map, error);
  std::string text = value_to_format_string(v, error);
  if (!error.empty()) return std::nullopt;
  return text;
}

// quoteForCEL: strings and bytes as literals, non-finite doubles quoted.
std::string quote_for_cel(const Value& v, const std::string& text) {
  if (v.is<std::string>()) return base::go_quote(text);
  if (v.is<Bytes>()) return "b" + base::go_quote(text);
  if (const double* d = v.get_if<double>(); d && !std::isfinite(*d)) return base::go_quote(text);
  return text;
}

// clauseForType: how a list element or map value prints inside %s.
std::optional<std::string> format_member(const Value& v, std::string& error) {
  std::optional<std::string> text;
  if (is_integer(v)) {
    text = decimal(v);
  } else if (v.is<Timestamp>()) {
    text = "timestamp(" + base::go_quote(rfc3339_nano(v.get<Timestamp>())) + ")";
  } else if (v.is<Duration>()) {
    text = "duration(" + base::go_quote(duration_string(v.get<Duration>())) + ")";
  } else if (v.is<double>()) {
    text = go_format_fixed(v.get<double>(), kDefaultPrecision);
  } else if (v.is<std::string>() || v.is<Bytes>() || v.is<bool>() || v.is_null() || v.is<TypeValue>() ||
             v.as_list() || v.as_map()) {
    text = format_string(v, error);
  } else {
    error = "no formatting function for " + type_name_of(v);
  }
  if (!text) return std::nullopt;
  return quote_for_cel(v, *text);
}

std::optional<std::string> format_list(const List& list, std::string& error) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto member = format_member(list.at(i), error);
    if (!member) return std::nullopt;
    if (i > 0) out += ", ";
    out += *member;
  }
  return out + "]";
}

std::optional<std::string> format_map(const Map& map, std::string& error) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < map.size(); ++i) {
    const Value key = map.key_at(i);
    std::optional<std::string> key_text;
    if (key.is<std::string>() || key.is<bool>()) {
      key_text = format_string(key, error);
    } else if (is_integer(key)) {
      key_text = decimal(key);
    } else {
      error = "no formatting function for map key of type " + type_name_of(key);
      return std::nullopt;
    }
    if (!key_text) return std::nullopt;
    auto value = format_member(*map.find(key), error);
    if (!value) return std::nullopt;
    pairs.emplace_back(quote_for_cel(key, *key_text), *value);
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0) out += ", ";
    out += pairs[i].first + ":" + pairs[i].second;
  }
  return out + "}";
}

// %f and %e take doubles, and the strings "NaN", "Infinity", "-Infinity".
std::optional<double> float_argument(const Value& v) {
  if (const double* d = v.get_if<double>()) return *d;
  if (const std::string* s = v.get_if<std::string>()) {
    if (*s == "NaN") return std::nan("");
    if (*s == "Infinity") return INFINITY;
    if (*s == "-Infinity") return -INFINITY;
  }
  return std::nullopt;
}

template <typename Unsigned>
std::string in_base(Unsigned value, int base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  if (value == 0) return "0";
  std::string out;
  for (; value != 0; value /= static_cast<Unsigned>(base)) out.insert(out.begin(), digits[value % base]);
  return out;
}

std::optional<std::string> integer_in_base(const Value& v, int base, bool upper) {
  if (const auto* u = v.get_if<std::uint64_t>()) return in_base(*u, base, upper);
  if (const auto* i = v.get_if<std::int64_t>()) {
    const std::uint64_t magnitude = *i < 0 ? 0 - static_cast<std::uint64_t>(*i) : static_cast<std::uint64_t>(*i);
    return (*i < 0 ? "-" : "") + in_base(magnitude, base, upper);
  }
  return std::nullopt;
}

// One clause applied to its argument; the error text is cel-go's.
std::optional<std::string> apply_clause(char verb, std::optional<int> precision, const Value& arg,
                                        std::string& error) {
  const std::string type = type_name_of(arg);
  switch (verb) {
    case 's': {
      auto text = format_string(arg, error);
      if (!text && error.empty()) error = string_clause_error(arg);
      return text;
    }
    case 'd':
      if (is_integer(arg)) return decimal(arg);
      error = "decimal clause can only be used on integers, was given " + type;
      return std::nullopt;
    case 'f':
      if (auto d = float_argument(arg)) return localized_fixed(*d, precision.value_or(kDefaultPrecision));
      error = "fixed-point clause can only be used on doubles, was given " + type;
      return std::nullopt;
    case 'e':
      if (auto d = float_argument(arg)) return localized_scientific(*d, precision.value_or(kDefaultPrecision));
      error = "scientific clause can only be used on doubles, was given " + type;
      return std::nullopt;
    case 'b':
      if (const bool* b = arg.get_if<bool>()) return std::string(*b ? "1" : "0");
      if (auto text = integer_in_base(arg, 2, false)) return text;
      error = "only integers and bools can be formatted as binary, was given " + type;
      return std::nullopt;
    case 'x':
    case 'X': {
      const bool upper = verb == 'X';
      const std::string* bytes = arg.is<std::string>() ? &arg.get<std::string>()
                                 : arg.is<Bytes>()     ? &arg.get<Bytes>().data
                                                       : nullptr;
      if (bytes) {
        std::string out;
        for (unsigned char c : *bytes) {
          const std::string h = in_base<unsigned>(c, 16, upper);
          out += (h.size() < 2 ? "0" : "") + h;
        }
        return out;
      }
      if (auto text = integer_in_base(arg, 16, upper)) return text;
      error = "only integers, byte buffers, and strings can be formatted as hex, was given " + type;
      return std::nullopt;
    }
    case 'o':
      if (auto text = integer_in_base(arg, 8, false)) return text;
      error = "octal clause can only be used on integers, was given " + type;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string value_to_format_string(const Value& v, std::string& error) {
  if (is_integer(v)) return decimal(v);
  if (const double* d = v.get_if<double>()) return base::go_format_float(*d);
  if (const bool* b = v.get_if<bool>()) return *b ? "true" : "false";
  if (const std::string* s = v.get_if<std::string>()) return *s;
  if (const Bytes* b = v.get_if<Bytes>()) {
    if (base::valid_utf8(b->data) != b->data) error = "invalid UTF-8 in bytes, cannot convert to string";
    return b->data;
  }
  if (const Timestamp* t = v.get_if<Timestamp>()) return rfc3339_nano(*t);
  if (const Duration* d = v.get_if<Duration>()) return duration_string(*d);
  if (const TypeValue* t = v.get_if<TypeValue>()) return t->name;
  if (v.is_null()) return "null";
  error = string_clause_error(v);
  return "";
}

Value string_format(std::span<const Value> args) {
  const std::string& format = args[0].get<std::string>();
  const List* list = args[1].as_list();
  if (!list) return Value::no_such_overload("format");
  std::string out;
  std::size_t arg_index = 0;
  for (std::size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out += format[i++];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (arg_index >= list->size()) return error_value("index " + std::to_string(arg_index) + " out of range");
    if (i + 1 >= format.size()) return error_value("unexpected end of string");
    std::size_t at = i + 1;
    std::optional<int> precision;
    if (format[at] == '.') {
      ++at;
      std::string digits;
      while (at < format.size() && format[at] >= '0' && format[at] <= '9') digits += format[at++];
      if (at >= format.size())
        return error_value(
            "could not parse formatting clause: error while parsing precision: could not find end of precision "
            "specifier");
      if (digits.empty() || digits.size() > 9)
        return error_value("could not parse formatting clause: error while parsing precision: error while "
                           "converting precision to integer: strconv.Atoi: parsing " + base::go_quote(digits) +
                           ": invalid syntax");
      precision = std::stoi(digits);
      // Go's printer refuses a precision of a million or more (the clause prints as "%!(NOVERB)"); kapi refuses it
      // outright rather than build such a string.
      if (*precision >= 1'000'000)
        return error_value("could not parse formatting clause: error while parsing precision: precision too large");
    }
    const char verb = format[at];
    if (std::string_view("sdfebxXo").find(verb) == std::string_view::npos) {
      std::string clause;
      base::append_utf8(clause, static_cast<unsigned char>(verb));  // rune(byte), as cel-go prints it
      return error_value("could not parse formatting clause: unrecognized formatting clause \"" + clause + "\"");
    }
    std::string error;
    auto text = apply_clause(verb, precision, list->at(arg_index), error);
    if (!text) return error_value("error during formatting: " + error);
    out += *text;
    i = at + 1;
    ++arg_index;
  }
  return out;
}

std::string quote_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : base::valid_utf8(text)) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out += c;
    }
  }
  return out + "\"";
}

}  // namespace kapi::cel::ext

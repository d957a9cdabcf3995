#include "server/patch/go_json.h"

#include "base/go_quote.h"
#include "base/go_strconv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace kapi::patch::detail {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// json's quoteChar: the byte as a Go rune literal (string(c) is the rune U+0000..U+00FF), where '"' needs no escape.
std::string quote_char(unsigned char c) { return base::go_quote_rune(c); }

// encoding/json's scanner (scanner.go): the same states, so the same first error with the same words.
class GoScanner {
 public:
  std::string check(std::string_view data) {
    for (char ch : data) {
      step(static_cast<unsigned char>(ch));
      if (!error_.empty()) return error_;
    }
    if (end_top_) return "";
    step(' ');
    if (end_top_ || !error_.empty()) return error_;
    return "unexpected end of JSON input";
  }

 private:
  enum class State {
    kBeginValueOrEmpty, kBeginValue, kBeginStringOrEmpty, kBeginString, kEndValue, kEndTop,
    kInString, kInStringEsc, kInStringEscU, kInStringEscU1, kInStringEscU12, kInStringEscU123,
    kNeg, kOne, kZero, kDot, kDot0, kE, kESign, kE0,
    kT, kTr, kTru, kF, kFa, kFal, kFals, kN, kNu, kNul, kError,
  };
  enum class Parse { kObjectKey, kObjectValue, kArrayValue };

  void fail(unsigned char c, std::string_view context) {
    state_ = State::kError;
    error_ = "invalid character " + quote_char(c) + " " + std::string(context);
  }

  void push(unsigned char c, Parse parse, State next) {
    state_ = next;
    stack_.push_back(parse);
    if (stack_.size() > kMaxNestingDepth) fail(c, "exceeded max depth");
  }

  void pop() {
    stack_.pop_back();
    if (stack_.empty()) {
      state_ = State::kEndTop;
      end_top_ = true;
    } else {
      state_ = State::kEndValue;
    }
  }

  void literal(unsigned char c, unsigned char expected, State next, std::string_view context) {
    if (c == expected) {
      state_ = next;
    } else {
      fail(c, context);
    }
  }

  void begin_value(unsigned char c) {
    if (is_space(c)) return;
    switch (c) {
      case '{': return push(c, Parse::kObjectKey, State::kBeginStringOrEmpty);
      case '[': return push(c, Parse::kArrayValue, State::kBeginValueOrEmpty);
      case '"': state_ = State::kInString; return;
      case '-': state_ = State::kNeg; return;
      case '0': state_ = State::kZero; return;
      case 't': state_ = State::kT; return;
      case 'f': state_ = State::kF; return;
      case 'n': state_ = State::kN; return;
      default: break;
    }
    if (c >= '1' && c <= '9') {
      state_ = State::kOne;
      return;
    }
    fail(c, "looking for beginning of value");
  }

  void begin_string(unsigned char c) {
    if (is_space(c)) return;
    if (c == '"') {
      state_ = State::kInString;
      return;
    }
    fail(c, "looking for beginning of object key string");
  }

  void end_value(unsigned char c) {
    if (stack_.empty()) {
      state_ = State::kEndTop;
      end_top_ = true;
      return end_top(c);
    }
    if (is_space(c)) {
      state_ = State::kEndValue;
      return;
    }
    switch (stack_.back()) {
      case Parse::kObjectKey:
        if (c == ':') {
          stack_.back() = Parse::kObjectValue;
          state_ = State::kBeginValue;
          return;
        }
        return fail(c, "after object key");
      case Parse::kObjectValue:
        if (c == ',') {
          stack_.back() = Parse::kObjectKey;
          state_ = State::kBeginString;
          return;
        }
        if (c == '}') return pop();
        return fail(c, "after object key:value pair");
      case Parse::kArrayValue:
        if (c == ',') {
          state_ = State::kBeginValue;
          return;
        }
        if (c == ']') return pop();
        return fail(c, "after array element");
    }
  }

  void end_top(unsigned char c) {
    if (!is_space(c)) fail(c, "after top-level value");
  }

  void after_zero(unsigned char c) {
    if (c == '.') {
      state_ = State::kDot;
    } else if (c == 'e' || c == 'E') {
      state_ = State::kE;
    } else {
      end_value(c);
    }
  }

  void exponent_sign(unsigned char c) {
    if (is_digit(c)) {
      state_ = State::kE0;
    } else {
      fail(c, "in exponent of numeric literal");
    }
  }

  void step(unsigned char c) {
    switch (state_) {
      case State::kBeginValueOrEmpty:
        if (is_space(c)) return;
        if (c == ']') return end_value(c);
        return begin_value(c);
      case State::kBeginValue: return begin_value(c);
      case State::kBeginStringOrEmpty:
        if (is_space(c)) return;
        if (c == '}') {
          stack_.back() = Parse::kObjectValue;
          return end_value(c);
        }
        return begin_string(c);
      case State::kBeginString: return begin_string(c);
      case State::kEndValue: return end_value(c);
      case State::kEndTop: return end_top(c);
      case State::kInString:
        if (c == '"') {
          state_ = State::kEndValue;
        } else if (c == '\\') {
          state_ = State::kInStringEsc;
        } else if (c < 0x20) {
          fail(c, "in string literal");
        }
        return;
      case State::kInStringEsc:
        if (c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't' || c == '\\' || c == '/' || c == '"') {
          state_ = State::kInString;
        } else if (c == 'u') {
          state_ = State::kInStringEscU;
        } else {
          fail(c, "in string escape code");
        }
        return;
      case State::kInStringEscU:
      case State::kInStringEscU1:
      case State::kInStringEscU12:
      case State::kInStringEscU123:
        if (!is_hex(c)) return fail(c, "in \\u hexadecimal character escape");
        state_ = state_ == State::kInStringEscU123 ? State::kInString : static_cast<State>(static_cast<int>(state_) + 1);
        return;
      case State::kNeg:
        if (c == '0') {
          state_ = State::kZero;
        } else if (c >= '1' && c <= '9') {
          state_ = State::kOne;
        } else {
          fail(c, "in numeric literal");
        }
        return;
      case State::kOne:
        if (is_digit(c)) return;
        return after_zero(c);
      case State::kZero: return after_zero(c);
      case State::kDot:
        if (is_digit(c)) {
          state_ = State::kDot0;
        } else {
          fail(c, "after decimal point in numeric literal");
        }
        return;
      case State::kDot0:
        if (is_digit(c)) return;
        if (c == 'e' || c == 'E') {
          state_ = State::kE;
          return;
        }
        return end_value(c);
      case State::kE:
        if (c == '+' || c == '-') {
          state_ = State::kESign;
          return;
        }
        return exponent_sign(c);
      case State::kESign: return exponent_sign(c);
      case State::kE0:
        if (is_digit(c)) return;
        return end_value(c);
      case State::kT: return literal(c, 'r', State::kTr, "in literal true (expecting 'r')");
      case State::kTr: return literal(c, 'u', State::kTru, "in literal true (expecting 'u')");
      case State::kTru: return literal(c, 'e', State::kEndValue, "in literal true (expecting 'e')");
      case State::kF: return literal(c, 'a', State::kFa, "in literal false (expecting 'a')");
      case State::kFa: return literal(c, 'l', State::kFal, "in literal false (expecting 'l')");
      case State::kFal: return literal(c, 's', State::kFals, "in literal false (expecting 's')");
      case State::kFals: return literal(c, 'e', State::kEndValue, "in literal false (expecting 'e')");
      case State::kN: return literal(c, 'u', State::kNu, "in literal null (expecting 'u')");
      case State::kNu: return literal(c, 'l', State::kNul, "in literal null (expecting 'l')");
      case State::kNul: return literal(c, 'l', State::kEndValue, "in literal null (expecting 'l')");
      case State::kError: return;
    }
  }

  State state_ = State::kBeginValue;
  std::vector<Parse> stack_;
  bool end_top_ = false;
  std::string error_;
};
bool fits_int64(const boost::json::value& v) {
  return v.is_int64() || (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}

double as_double(const boost::json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return static_cast<double>(v.get_int64());
}

}  // namespace

std::string go_syntax_error(std::string_view text) { return GoScanner().check(text); }

std::optional<boost::json::value> parse_json(std::string_view text, std::string& error) {
  boost::json::parse_options options;
  options.max_depth = kMaxNestingDepth;
  options.allow_invalid_utf8 = true;  // Go's decoder accepts (and replaces) invalid UTF-8
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec, {}, options);
  if (!ec) return value;
  error = go_syntax_error(text);
  if (error.empty()) error = ec.message();  // valid to Go, yet not representable here (e.g. 1e999)
  return std::nullopt;
}

GoType go_type(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return GoType::kNil;
    case boost::json::kind::bool_: return GoType::kBool;
    case boost::json::kind::int64: return GoType::kInt64;
    case boost::json::kind::uint64: return fits_int64(value) ? GoType::kInt64 : GoType::kFloat64;
    case boost::json::kind::double_: return GoType::kFloat64;
    case boost::json::kind::string: return GoType::kString;
    case boost::json::kind::object: return GoType::kMap;
    case boost::json::kind::array: return GoType::kSlice;
  }
  return GoType::kNil;
}

bool go_equal(const boost::json::value& a, const boost::json::value& b) {
  GoType type = go_type(a);
  if (type != go_type(b)) return false;
  switch (type) {
    case GoType::kNil: return true;
    case GoType::kBool: return a.get_bool() == b.get_bool();
    case GoType::kInt64: return boost::json::value_to<std::int64_t>(a) == boost::json::value_to<std::int64_t>(b);
    case GoType::kFloat64: return as_double(a) == as_double(b);
    case GoType::kString: return a.get_string() == b.get_string();
    case GoType::kMap: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        const boost::json::value* other = y.if_contains(member.key());
        if (!other || !go_equal(member.value(), *other)) return false;
      }
      return true;
    }
    case GoType::kSlice: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                        [](const auto& l, const auto& r) { return go_equal(l, r); });
    }
  }
  return false;
}

std::string go_value(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "<nil>";
    case boost::json::kind::bool_: return value.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(value.get_int64());
    case boost::json::kind::uint64:
      return fits_int64(value) ? std::to_string(value.get_uint64()) : base::go_format_float(as_double(value));
    case boost::json::kind::double_: return base::go_format_float(value.get_double());
    case boost::json::kind::string: return std::string(value.get_string());
    case boost::json::kind::array: {
      std::string out = "[";
      for (const auto& element : value.get_array()) {
        if (out.size() > 1) out += ' ';
        out += go_value(element);
      }
      return out + "]";
    }
    case boost::json::kind::object: {
      // fmt prints maps in key order.
      std::vector<const boost::json::key_value_pair*> members;
      for (const auto& member : value.get_object()) members.push_back(&member);
      std::sort(members.begin(), members.end(), [](auto* l, auto* r) { return l->key() < r->key(); });
      std::string out = "map[";
      for (const auto* member : members) {
        if (out.size() > 4) out += ' ';
        out.append(member->key()).append(":").append(go_value(member->value()));
      }
      return out + "]";
    }
  }
  return "";
}

std::string go_sharp_value(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "interface {}(nil)";
    case boost::json::kind::bool_: return value.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(value.get_int64());
    case boost::json::kind::uint64: return std::to_string(value.get_uint64());
    case boost::json::kind::double_: return base::go_format_float(value.get_double());
    case boost::json::kind::string: return base::go_quote(value.get_string());
    case boost::json::kind::array: {
      std::string out = "[]interface {}{";
      bool first = true;
      for (const auto& element : value.get_array()) {
        if (!first) out += ", ";
        first = false;
        out += go_sharp_value(element);
      }
      return out + "}";
    }
    case boost::json::kind::object: {
      // fmt prints maps in key order.
      std::vector<const boost::json::key_value_pair*> members;
      for (const auto& member : value.get_object()) members.push_back(&member);
      std::sort(members.begin(), members.end(), [](auto* l, auto* r) { return l->key() < r->key(); });
      std::string out = "map[string]interface {}{";
      bool first = true;
      for (const auto* member : members) {
        if (!first) out += ", ";
        first = false;
        out += base::go_quote(member->key()) + ":" + go_sharp_value(member->value());
      }
      return out + "}";
    }
  }
  return "";
}

std::string go_type_name(const boost::json::value& value) {
  switch (go_type(value)) {
    case GoType::kNil: return "%!s(<nil>)";
    case GoType::kBool: return "bool";
    case GoType::kInt64: return "int64";
    case GoType::kFloat64: return "float64";
    case GoType::kString: return "string";
    case GoType::kMap: return "map[string]interface {}";
    case GoType::kSlice: return "[]interface {}";
  }
  return "";
}

std::string go_string_verb(const boost::json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  if (value.is_null()) return "%!s(<nil>)";
  return "%!s(" + go_type_name(value) + "=" + go_value(value) + ")";
}

}  // namespace kapi::patch::detail

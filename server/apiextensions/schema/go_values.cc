#include "server/apiextensions/schema/go_values.h"

#include "base/go_strconv.h"
#include "base/utf8.h"
#include "server/patch/go_json.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;

bool is_integer(const json::value& value) { return value.is_int64() || value.is_uint64(); }

bool fits_int64(const json::value& v) {
  return v.is_int64() ||
         (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}
std::int64_t int64_of(const json::value& v) { return v.is_int64() ? v.get_int64() : static_cast<std::int64_t>(v.get_uint64()); }
double double_of(const json::value& v) {
  return v.is_double() ? v.get_double() : v.is_int64() ? static_cast<double>(v.get_int64()) : static_cast<double>(v.get_uint64());
}

}  // namespace

// swag.IsFloat64AJSONInteger: a float that holds an integer within JSON's exact range, allowing for rounding.
bool is_float_a_json_integer(double f) {
  constexpr double kMaxJSONFloat = 9007199254740992.0;  // 2^53
  if (std::isnan(f) || std::isinf(f) || f < -kMaxJSONFloat || f > kMaxJSONFloat) return false;
  double rounded = std::trunc(f);
  if (f == rounded) return true;
  double diff = std::abs(f - rounded);
  if (rounded == 0) return diff < 1e-9 * std::numeric_limits<double>::denorm_min();
  return diff / (std::abs(f) + std::abs(rounded)) < 1e-9;
}

// basicCommonValidator's enum match: reflect.DeepEqual after converting the value to each enum member's Go type
// where Go allows the conversion (numbers between int64 and float64, an int64 to a one-rune string).
bool go_enum_matches(const json::value& data, const json::value& member) {
  if (data.is_null() || member.is_null()) return false;
  bool data_number = data.is_number(), member_number = member.is_number();
  if (data_number && member_number) {
    if (fits_int64(member)) return fits_int64(data) ? int64_of(data) == int64_of(member)
                                            : static_cast<std::int64_t>(double_of(data)) == int64_of(member);
    return member.is_double() && double_of(data) == member.get_double();
  }
  if (data_number && member.is_string() && fits_int64(data)) {
    // Go's string(rune(n)): U+FFFD for what is not a Unicode scalar value.
    const std::int64_t rune = int64_of(data);
    std::string utf8;
    base::append_utf8(utf8, rune < 0 || rune > 0x10FFFF ? base::kRuneError : static_cast<char32_t>(rune));
    return member.get_string() == utf8;
  }
  return go_deep_equal(data, member);
}
std::string go_number(const json::value& number) {
  if (number.is_int64()) return std::to_string(number.get_int64());
  if (number.is_uint64()) return std::to_string(number.get_uint64());
  if (number.is_double()) return base::go_format_float(number.get_double());
  return "";
}

std::string field_error_value(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return validation::quoted("null");
    case json::kind::string: return validation::quoted(value.get_string());
    case json::kind::bool_:
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return value.is_bool() ? (value.get_bool() ? "true" : "false") : go_number(value);
    default: return patch::detail::go_sharp_value(value);
  }
}

bool go_deep_equal(const json::value& a, const json::value& b) {
  if (is_integer(a) && is_integer(b)) {
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const json::value& signed_one = a.is_int64() ? a : b;
    const json::value& unsigned_one = a.is_int64() ? b : a;
    return signed_one.get_int64() >= 0 &&
           static_cast<std::uint64_t>(signed_one.get_int64()) == unsigned_one.get_uint64();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::null: return true;
    case json::kind::bool_: return a.get_bool() == b.get_bool();
    case json::kind::double_: return a.get_double() == b.get_double();
    case json::kind::string: return a.get_string() == b.get_string();
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                        [](const json::value& l, const json::value& r) { return go_deep_equal(l, r); });
    }
    case json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        const json::value* other = y.if_contains(member.key());
        if (!other || !go_deep_equal(member.value(), *other)) return false;
      }
      return true;
    }
    default: return false;
  }
}

std::string openapi_type_of(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "";
}

}  // namespace kapi::apiextensions::schema

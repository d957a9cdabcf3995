// Type conversions of cel-go's standard library (common/stdlib/standard.go; the ConvertToType methods of
// common/types): strings parse as Go's strconv (ParseInt, ParseUint, ParseFloat, ParseBool), time.Parse(RFC3339)
// and time.ParseDuration do; numbers convert with range checks; a failed conversion reports
// "type conversion error from 'string' to 'int'" as cel-go does.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "base/go_strconv.h"
#include "base/utf8.h"
#include "cel/stdlib/builders.h"
#include "cel/stdlib/format.h"
#include "cel/stdlib/time_util.h"

namespace kapi::cel::stdlib {
namespace {

using I = std::int64_t;
using U = std::uint64_t;

Value conversion_error(std::string_view from, std::string_view to) {
  return error(ErrorCode::kInvalidArgument,
               "type conversion error from '" + std::string(from) + "' to '" + std::string(to) + "'");
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// strconv.ParseFloat(s, 64) for decimal forms and Go's spellings of infinity and NaN; out of range is an error.
std::optional<double> parse_double(std::string_view text) {
  bool negative = false;
  std::string_view body = text;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (iequals(body, "nan") && body.size() == text.size()) return std::numeric_limits<double>::quiet_NaN();
  if (body.empty() || body.front() == '+' || body.front() == '-' || std::isalpha(static_cast<unsigned char>(body.front()))) {
    return std::nullopt;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
  if (ec != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<bool> parse_bool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

bool valid_utf8(std::string_view text) {
  while (!text.empty()) {
    base::Rune rune = base::decode_rune(text);
    if (!rune.valid) return false;
    text.remove_prefix(rune.width);
  }
  return true;
}

Value identity(std::span<const Value> args) { return args[0]; }

}  // namespace

std::vector<Function> conversion_functions() {
  const Type i = Type::int_type(), u = Type::uint_type(), d = Type::double_type(), s = Type::string_type(),
             b = Type::bool_type(), by = Type::bytes_type(), ts = Type::timestamp(), du = Type::duration();
  std::vector<Function> out;
  out.push_back({"type", {global("type", {type_param_a()}, Type::type_of(type_param_a()),
                                 [](std::span<const Value> a) { return Value(TypeValue{a[0].type_name()}); })}});
  out.push_back({"dyn", {global("to_dyn", {type_param_a()}, Type::dyn(), identity)}});
  out.push_back({"bool", {global("bool_to_bool", {b}, b, identity),
                          global("string_to_bool", {s}, b, [](std::span<const Value> a) {
                            auto parsed = parse_bool(a[0].get<std::string>());
                            return parsed ? Value(*parsed) : conversion_error("string", "bool");
                          })}});
  out.push_back({"bytes", {global("bytes_to_bytes", {by}, by, identity),
                           global("string_to_bytes", {s}, by, [](std::span<const Value> a) {
                             return Value(Bytes{a[0].get<std::string>()});
                           })}});
  out.push_back(
      {"double",
       {global("double_to_double", {d}, d, identity),
        global("int64_to_double", {i}, d, [](std::span<const Value> a) { return Value(static_cast<double>(a[0].get<I>())); }),
        global("string_to_double", {s}, d,
               [](std::span<const Value> a) {
                 auto parsed = parse_double(a[0].get<std::string>());
                 return parsed ? Value(*parsed) : conversion_error("string", "double");
               }),
        global("uint64_to_double", {u}, d,
               [](std::span<const Value> a) { return Value(static_cast<double>(a[0].get<U>())); })}});
  out.push_back({"duration", {global("duration_to_duration", {du}, du, identity),
                              // Declared, but cel-go v0.22's Int.ConvertToType has no duration case.
                              global("int64_to_duration", {i}, du,
                                     [](std::span<const Value>) {
                                       return conversion_error("int", "google.protobuf.Duration");
                                     }),
                              global("string_to_duration", {s}, du, [](std::span<const Value> a) {
                                return duration_from_string(a[0].get<std::string>());
                              })}});
  out.push_back(
      {"int",
       {global("int64_to_int64", {i}, i, identity),
        global("double_to_int64", {d}, i,
               [](std::span<const Value> a) {
                 double v = a[0].get<double>();
                 if (!std::isfinite(v) || v <= -9223372036854775808.0 || v >= 9223372036854775807.0) return overflow();
                 return Value(static_cast<I>(v));
               }),
        global("duration_to_int64", {du}, i, [](std::span<const Value> a) { return Value(a[0].get<Duration>().nanos); }),
        global("string_to_int64", {s}, i,
               [](std::span<const Value> a) {
                 const base::GoParsed<I> parsed = base::go_parse_int(a[0].get<std::string>());
                 return parsed ? Value(parsed.value) : conversion_error("string", "int");
               }),
        global("timestamp_to_int64", {ts}, i,
               [](std::span<const Value> a) { return Value(a[0].get<Timestamp>().seconds); }),
        global("uint64_to_int64", {u}, i, [](std::span<const Value> a) {
          U v = a[0].get<U>();
          if (v > static_cast<U>(INT64_MAX)) return overflow();
          return Value(static_cast<I>(v));
        })}});
  out.push_back(
      {"string",
       {global("string_to_string", {s}, s, identity),
        global("bool_to_string", {b}, s,
               [](std::span<const Value> a) { return Value(a[0].get<bool>() ? "true" : "false"); }),
        global("bytes_to_string", {by}, s,
               [](std::span<const Value> a) {
                 const std::string& data = a[0].get<Bytes>().data;
                 if (!valid_utf8(data)) {
                   return error(ErrorCode::kInvalidArgument, "invalid UTF-8 in bytes, cannot convert to string");
                 }
                 return Value(data);
               }),
        global("double_to_string", {d}, s, [](std::span<const Value> a) { return Value(base::go_format_float(a[0].get<double>())); }),
        global("duration_to_string", {du}, s,
               [](std::span<const Value> a) { return Value(duration_to_string(a[0].get<Duration>())); }),
        global("int64_to_string", {i}, s, [](std::span<const Value> a) { return Value(std::to_string(a[0].get<I>())); }),
        global("timestamp_to_string", {ts}, s,
               [](std::span<const Value> a) { return Value(timestamp_to_string(a[0].get<Timestamp>())); }),
        global("uint64_to_string", {u}, s, [](std::span<const Value> a) { return Value(std::to_string(a[0].get<U>())); })}});
  out.push_back({"timestamp", {global("timestamp_to_timestamp", {ts}, ts, identity),
                               global("int64_to_timestamp", {i}, ts,
                                      [](std::span<const Value> a) {
                                        I v = a[0].get<I>();
                                        if (v < kMinUnixSeconds || v > kMaxUnixSeconds) {
                                          return error(ErrorCode::kOverflow, "timestamp overflow");
                                        }
                                        return Value(Timestamp{v, 0});
                                      }),
                               global("string_to_timestamp", {s}, ts, [](std::span<const Value> a) {
                                 return timestamp_from_string(a[0].get<std::string>());
                               })}});
  out.push_back(
      {"uint",
       {global("uint64_to_uint64", {u}, u, identity),
        global("double_to_uint64", {d}, u,
               [](std::span<const Value> a) {
                 double v = a[0].get<double>();
                 if (!std::isfinite(v) || v < 0 || v >= 18446744073709551616.0) return uint_overflow();
                 return Value(static_cast<U>(v));
               }),
        global("int64_to_uint64", {i}, u,
               [](std::span<const Value> a) {
                 I v = a[0].get<I>();
                 if (v < 0) return uint_overflow();
                 return Value(static_cast<U>(v));
               }),
        global("string_to_uint64", {s}, u, [](std::span<const Value> a) {
          const base::GoParsed<U> parsed = base::go_parse_uint(a[0].get<std::string>());
          return parsed ? Value(parsed.value) : conversion_error("string", "uint");
        })}});
  return out;
}

}  // namespace kapi::cel::stdlib

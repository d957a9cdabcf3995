// The standard library's implementations called by overload id (cel-go's common/types tests and cel-spec's
// simple tests: integer_math, fp_math, conversions, timestamps, string), independent of the parser.
#include <gtest/gtest.h>

#include <cmath>

#include "cel/env.h"

namespace kapi::cel::stdlib_test {
namespace {

const Env& env() {
  static const Env instance = standard_env();
  return instance;
}

const Overload* find_overload(std::string_view overload_id) {
  for (const auto& [name, function] : env().functions()) {
    for (const Overload& overload : function.overloads) {
      if (overload.id == overload_id) return &overload;
    }
  }
  return nullptr;
}

std::string call(std::string_view overload_id, std::vector<Value> args) {
  const Overload* overload = find_overload(overload_id);
  if (!overload) return "<unknown overload " + std::string(overload_id) + ">";
  if (!overload->impl) return "<no impl>";
  return debug_string(overload->impl(args));
}

Value I(std::int64_t v) { return Value(v); }
Value U(std::uint64_t v) { return Value(v); }
Value S(std::string v) { return Value(std::move(v)); }

TEST(CelStdlib, DeclaresCelGoOverloadIds) {
  for (std::string_view id : {"add_int64", "add_uint64", "add_double", "add_string", "add_bytes", "add_list",
                              "add_timestamp_duration", "add_duration_timestamp", "add_duration_duration",
                              "size_string", "string_size", "size_list", "list_size", "contains_string", "matches",
                              "matches_string", "int64_to_string", "string_to_int64", "timestamp_to_year_with_tz",
                              "timestamp_to_seconds_tz", "less_int64_double", "greater_equals_uint64_int64",
                              "optional_of", "optional_none", "optional_orValue_value", "in_list", "in_map",
                              "logical_not", "to_dyn", "type"}) {
    EXPECT_NE(find_overload(id), nullptr) << id;
  }
}

TEST(CelStdlib, IntegerMath) {
  EXPECT_EQ(call("add_int64", {I(INT64_MAX), I(1)}), "error: integer overflow");
  EXPECT_EQ(call("subtract_int64", {I(INT64_MIN), I(1)}), "error: integer overflow");
  EXPECT_EQ(call("multiply_int64", {I(INT64_MAX), I(2)}), "error: integer overflow");
  EXPECT_EQ(call("divide_int64", {I(INT64_MIN), I(-1)}), "error: integer overflow");
  EXPECT_EQ(call("divide_int64", {I(1), I(0)}), "error: division by zero");
  EXPECT_EQ(call("modulo_int64", {I(1), I(0)}), "error: modulus by zero");
  EXPECT_EQ(call("modulo_int64", {I(-5), I(3)}), "-2");
  EXPECT_EQ(call("negate_int64", {I(INT64_MIN)}), "error: integer overflow");
  EXPECT_EQ(call("subtract_uint64", {U(1), U(2)}), "error: unsigned integer overflow");
  EXPECT_EQ(call("add_uint64", {U(UINT64_MAX), U(1)}), "error: unsigned integer overflow");
  EXPECT_EQ(call("divide_uint64", {U(1), U(0)}), "error: division by zero");
  EXPECT_EQ(call("divide_double", {Value(1.0), Value(0.0)}), debug_string(Value(INFINITY)));
}

TEST(CelStdlib, CrossTypeComparisons) {
  EXPECT_EQ(call("less_int64_double", {I(1), Value(1.5)}), "true");
  EXPECT_EQ(call("less_int64_uint64", {I(-1), U(0)}), "true");
  EXPECT_EQ(call("greater_uint64_int64", {U(UINT64_MAX), I(INT64_MAX)}), "true");
  EXPECT_EQ(call("less_double", {Value(NAN), Value(1.0)}), "error: NaN values cannot be ordered");
  EXPECT_EQ(call("less_equals_double_uint64", {Value(-0.5), U(0)}), "true");
  EXPECT_EQ(call("less_string", {S("a"), S("b")}), "true");
  EXPECT_EQ(call("greater_bool", {Value(true), Value(false)}), "true");
}

TEST(CelStdlib, Conversions) {
  EXPECT_EQ(call("string_to_int64", {S("-42")}), "-42");
  EXPECT_EQ(call("string_to_int64", {S("+7")}), "7");
  EXPECT_EQ(call("string_to_int64", {S("1_000")}), "error: type conversion error from 'string' to 'int'");
  EXPECT_EQ(call("string_to_int64", {S("9223372036854775808")}), "error: type conversion error from 'string' to 'int'");
  EXPECT_EQ(call("string_to_int64", {S("-9223372036854775808")}), "-9223372036854775808");
  EXPECT_EQ(call("string_to_uint64", {S("-1")}), "error: type conversion error from 'string' to 'uint'");
  EXPECT_EQ(call("string_to_double", {S("1e3")}), "1000");
  EXPECT_EQ(call("string_to_double", {S("-Inf")}), debug_string(Value(-INFINITY)));
  EXPECT_EQ(call("string_to_double", {S("abc")}), "error: type conversion error from 'string' to 'double'");
  EXPECT_EQ(call("string_to_bool", {S("True")}), "true");
  EXPECT_EQ(call("string_to_bool", {S("yes")}), "error: type conversion error from 'string' to 'bool'");
  EXPECT_EQ(call("double_to_int64", {Value(-1.9)}), "-1");
  EXPECT_EQ(call("double_to_int64", {Value(1e19)}), "error: integer overflow");
  EXPECT_EQ(call("double_to_uint64", {Value(-1.0)}), "error: unsigned integer overflow");
  EXPECT_EQ(call("int64_to_uint64", {I(-1)}), "error: unsigned integer overflow");
  EXPECT_EQ(call("uint64_to_int64", {U(UINT64_MAX)}), "error: integer overflow");
  EXPECT_EQ(call("double_to_string", {Value(1.5)}), "\"1.5\"");
  EXPECT_EQ(call("double_to_string", {Value(1e6)}), "\"1e+06\"");
  EXPECT_EQ(call("double_to_string", {Value(123456.0)}), "\"123456\"");
  EXPECT_EQ(call("double_to_string", {Value(0.0001)}), "\"0.0001\"");
  EXPECT_EQ(call("double_to_string", {Value(0.00001)}), "\"1e-05\"");
  EXPECT_EQ(call("double_to_string", {Value(-0.0)}), "\"-0\"");
  EXPECT_EQ(call("bytes_to_string", {Value(Bytes{"\xff"})}), "error: invalid UTF-8 in bytes, cannot convert to string");
  EXPECT_EQ(call("int64_to_duration", {I(1)}),
            "error: type conversion error from 'int' to 'google.protobuf.Duration'");  // as cel-go v0.22
  EXPECT_EQ(call("type", {Value::list({})}), "list");
  EXPECT_EQ(call("type", {Value(TypeValue{"int"})}), "type");
}

TEST(CelStdlib, TimestampsAndDurations) {
  EXPECT_EQ(call("string_to_duration", {S("1h2m3.5s")}), "duration(3723500000000ns)");
  EXPECT_EQ(call("duration_to_string", {Value(Duration{3723500000000})}), "\"3723.5s\"");
  EXPECT_EQ(call("duration_to_string", {Value(Duration{-1500000})}), "\"-0.0015s\"");
  EXPECT_EQ(call("string_to_duration", {S("1d")}),
            "error: type conversion error from 'string' to 'google.protobuf.Duration'");
  EXPECT_EQ(call("string_to_timestamp", {S("2009-02-13T23:31:30Z")}), "timestamp(1234567890s+0ns)");
  EXPECT_EQ(call("string_to_timestamp", {S("2009-02-13T23:31:30.120+01:00")}), "timestamp(1234564290s+120000000ns)");
  EXPECT_EQ(call("timestamp_to_string", {Value(Timestamp{1234567890, 120000000})}), "\"2009-02-13T23:31:30.12Z\"");
  EXPECT_EQ(call("timestamp_to_string", {Value(Timestamp{-62135596800, 0})}), "\"0001-01-01T00:00:00Z\"");
  EXPECT_EQ(call("int64_to_timestamp", {I(253402300800)}), "error: timestamp overflow");
  EXPECT_EQ(call("add_timestamp_duration", {Value(Timestamp{253402300799, 0}), Value(Duration{1000000000})}),
            "error: timestamp overflow");
  EXPECT_EQ(call("subtract_timestamp_timestamp", {Value(Timestamp{10, 0}), Value(Timestamp{9, 500000000})}),
            "duration(500000000ns)");
  Value ts(Timestamp{1234567890, 0});  // 2009-02-13T23:31:30Z, a Friday
  EXPECT_EQ(call("timestamp_to_year", {ts}), "2009");
  EXPECT_EQ(call("timestamp_to_month", {ts}), "1");
  EXPECT_EQ(call("timestamp_to_day_of_year", {ts}), "43");
  EXPECT_EQ(call("timestamp_to_day_of_month", {ts}), "12");
  EXPECT_EQ(call("timestamp_to_day_of_month_1_based", {ts}), "13");
  EXPECT_EQ(call("timestamp_to_day_of_week", {ts}), "5");
  EXPECT_EQ(call("timestamp_to_hours", {ts}), "23");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("+05:30")}), "5");
  EXPECT_EQ(call("timestamp_to_minutes_with_tz", {ts, S("+05:30")}), "1");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("-08:00")}), "15");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("America/Los_Angeles")}), "15");
  EXPECT_EQ(call("timestamp_to_day_of_week_with_tz", {ts, S("Asia/Tokyo")}), "6");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("Mars/Olympus")}), "error: unknown time zone Mars/Olympus");
  EXPECT_EQ(call("duration_to_hours", {Value(Duration{-3723500000000})}), "-1");
  EXPECT_EQ(call("duration_to_minutes", {Value(Duration{3723500000000})}), "62");
  EXPECT_EQ(call("duration_to_milliseconds", {Value(Duration{3723500000000})}), "3723500");
}

// Found through the fuzz harness (tests/fuzz/cel_fuzz.cc): absl opened any path given as a zone, so
// `t.getHours('/dev/stdin')` waited on the server's standard input. Go's time.LoadLocation refuses such names.
TEST(CelStdlib, TimeZoneNamesCannotNameFiles) {
  Value ts(Timestamp{1234567890, 0});
  for (const char* name : {"/dev/stdin", "../../../../dev/stdin", "Europe/../UTC", "\\UTC", "/etc/localtime"})
    EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S(name)}), "error: time: invalid location name") << name;
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("Europe/Paris")}), "0");
}

// absl remembers every zone name it is asked to load, found or not, so distinct unknown names (built by a rule, or
// read from objects) grew memory for the life of the server; they are now refused before absl sees them, with Go's
// errors.
TEST(CelStdlib, UnknownTimeZoneNamesNeverReachAbsl) {
  Value ts(Timestamp{1234567890, 0});
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("Zone12345")}), "error: unknown time zone Zone12345");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("America")}), "error: unknown time zone America");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S(std::string("Asia/Tokyo\0x", 12))}), "error: invalid argument");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("Asia/Tokyo")}), "8");
}

// Found through the fuzz harness: an offset's hours were an int multiplied by 60, which overflowed for
// "999999999:00" (UBSan). cel-go reads both parts as Go ints and its arithmetic wraps, so every offset applies,
// beyond ±24 hours too; only what strconv.Atoi refuses is an error.
TEST(CelStdlib, FixedOffsetsOfAnySizeApplyAsGoDoes) {
  Value ts(Timestamp{1234567890, 0});  // 2009-02-13T23:31:30Z
  EXPECT_EQ(call("timestamp_to_day_of_month_1_based_with_tz", {ts, S("+25:00")}), "15");
  EXPECT_EQ(call("timestamp_to_year_with_tz", {ts, S("999999999:00")}), "2100");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("999999999:00")}), "1");
  EXPECT_EQ(call("timestamp_to_minutes_with_tz", {ts, S("153722867:0")}), "14");  // the Duration wraps: -1011s
  EXPECT_EQ(call("timestamp_to_minutes_with_tz", {ts, S("-9223372036854775808:-9223372036854775808")}), "31");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("9223372036854775808:00")}),
            "error: strconv.Atoi: parsing \"9223372036854775808\": value out of range");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("99999999999999999999x:00")}),
            "error: strconv.Atoi: parsing \"99999999999999999999x\": value out of range");
  EXPECT_EQ(call("timestamp_to_hours_with_tz", {ts, S("+1:3x")}),
            "error: strconv.Atoi: parsing \"3x\": invalid syntax");
}

TEST(CelStdlib, StringsAndContainers) {
  EXPECT_EQ(call("size_string", {S("h\xc3\xa9llo")}), "5");
  EXPECT_EQ(call("size_string", {S("\xff\xfe")}), "2");
  EXPECT_EQ(call("contains_string", {S("hello"), S("ell")}), "true");
  EXPECT_EQ(call("starts_with_string", {S("hello"), S("he")}), "true");
  EXPECT_EQ(call("ends_with_string", {S("hello"), S("lo")}), "true");
  EXPECT_EQ(call("matches_string", {S("hello"), S("l+")}), "true");
  EXPECT_EQ(call("matches", {S("hello"), S("^l+$")}), "false");
  EXPECT_EQ(call("matches_string", {S("hello"), S("(")}).rfind("error: error parsing regexp: ", 0), 0u);
  EXPECT_EQ(call("in_list", {U(1), Value::list({I(2), Value(1.0)})}), "true");
  EXPECT_EQ(call("in_map", {Value(2.0), Value::map({{I(2), S("x")}})}), "true");
  EXPECT_EQ(call("in_map", {S("k"), Value::map({{I(2), S("x")}})}), "false");
  EXPECT_EQ(call("add_list", {Value::list({I(1)}), Value::list({I(2)})}), "[1, 2]");
}

TEST(CelStdlib, Optionals) {
  EXPECT_EQ(call("optional_ofNonZeroValue", {S("")}), "optional.none()");
  EXPECT_EQ(call("optional_ofNonZeroValue", {Value()}), "optional.none()");
  EXPECT_EQ(call("optional_ofNonZeroValue", {I(3)}), "optional(3)");
  EXPECT_EQ(call("optional_value", {Value::optional_none()}), "error: optional.none() dereference");
  EXPECT_EQ(call("optional_hasValue", {Value::optional_of(I(1))}), "true");
}

}  // namespace
}  // namespace kapi::cel::stdlib_test

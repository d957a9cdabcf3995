// cel-go's string.format cases (ext/strings_test.go, v0.22), run through the string_format overload.
#include <cmath>

#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::strings_format_test {
namespace {

using testing::call;
using testing::error_of;

std::string format(std::string text, std::vector<Value> args) {
  Value v = call(strings_library(), "string_format", {Value(std::move(text)), Value::list(std::move(args))});
  return v.is<std::string>() ? v.get<std::string>() : "<error: " + error_of(v) + ">";
}

std::string format_error(std::string text, std::vector<Value> args) {
  return error_of(call(strings_library(), "string_format", {Value(std::move(text)), Value::list(std::move(args))}));
}

Value I(std::int64_t i) { return Value(i); }
Value U(std::uint64_t u) { return Value(u); }

TEST(CelStringFormat, Substitutions) {
  EXPECT_EQ(format("no substitution", {}), "no substitution");
  EXPECT_EQ(format("str is %s and some more", {"filler"}), "str is filler and some more");
  EXPECT_EQ(format("%% and also %%", {}), "% and also %");
  EXPECT_EQ(format("%%%s%%", {"text"}), "%text%");
  EXPECT_EQ(format("%d %d %d, %s %s %s, %d %d %d, %s %s %s",
                   {I(1), I(2), I(3), "A", "B", "C", I(4), I(5), I(6), "D", "E", "F"}),
            "1 2 3, A B C, 4 5 6, D E F");
  EXPECT_EQ(format("%.3f", {1.2345}), "1.234");
  EXPECT_EQ(format("this is 5 in binary: %b", {I(5)}), "this is 5 in binary: 101");
  EXPECT_EQ(format("unsigned 64 in binary: %b", {U(64)}), "unsigned 64 in binary: 1000000");
  EXPECT_EQ(format("bit set from bool: %b", {true}), "bit set from bool: 1");
  EXPECT_EQ(format("%o", {I(11)}), "13");
  EXPECT_EQ(format("this is an unsigned octal: %o", {U(65535)}), "this is an unsigned octal: 177777");
  EXPECT_EQ(format("%x is 20 in hexadecimal", {I(30)}), "1e is 20 in hexadecimal");
  EXPECT_EQ(format("%X is 20 in hexadecimal", {I(30)}), "1E is 20 in hexadecimal");
  EXPECT_EQ(format("%X is 6000 in hexadecimal", {U(6000)}), "1770 is 6000 in hexadecimal");
  EXPECT_EQ(format("%x", {"Hello world!"}), "48656c6c6f20776f726c6421");
  EXPECT_EQ(format("%X", {Bytes{"byte string"}}), "6279746520737472696E67");
  EXPECT_EQ(format("%x", {I(-26)}), "-1a");
}

TEST(CelStringFormat, FloatsInTheEnglishLocale) {
  EXPECT_EQ(format("%.6e", {1052.032911275}), "1.052033\u202f\u00d7\u202f10\u2070\u00b3");
  EXPECT_EQ(format("%f", {2.71828}), "2.718280");
  EXPECT_EQ(format("%e", {2.71828}), "2.718280\u202f\u00d7\u202f10\u2070\u2070");
  EXPECT_EQ(format("%f", {"NaN"}), "NaN");
  EXPECT_EQ(format("%f", {"Infinity"}), "∞");
  EXPECT_EQ(format("%f", {"-Infinity"}), "-∞");
  EXPECT_EQ(format("%.2f", {1234567.891}), "1,234,567.89");
}

TEST(CelStringFormat, StringClauseOnEveryKind) {
  EXPECT_EQ(format("%d", {U(64)}), "64");
  EXPECT_EQ(format("null: %s", {Value()}), "null: null");
  EXPECT_EQ(format("%s", {I(999999999999)}), "999999999999");
  EXPECT_EQ(format("some bytes: %s", {Bytes{"xyz"}}), "some bytes: xyz");
  EXPECT_EQ(format("type is %s", {TypeValue{"string"}}), "type is string");
  EXPECT_EQ(format("%s", {Timestamp{1675467080, 0}}), "2023-02-03T23:31:20Z");
  EXPECT_EQ(format("%s", {Duration{6347'000'000'000}}), "6347s");
  EXPECT_EQ(format("%s", {Duration{1'500'000'000}}), "1.5s");
  EXPECT_EQ(format("%s", {1e6}), "1e+06");
  EXPECT_EQ(format("%s", {64.2}), "64.2");
  EXPECT_EQ(format("%s", {0.00001}), "1e-05");
  EXPECT_EQ(format("true bool: %s, false bool: %s", {true, false}), "true bool: true, false bool: false");
  EXPECT_EQ(format("%s", {Value::list({"abc", 3.14, Value(), Value::list({I(9), I(8), I(7), I(6)}),
                                       Timestamp{1675467080, 0}})}),
            R"(["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")])");
  EXPECT_EQ(format("%s", {Value::map({{"key1", Bytes{"xyz"}},
                                      {"key5", Value()},
                                      {"key2", Duration{7200'000'000'000}},
                                      {"key4", true},
                                      {"key3", 2.71828}})}),
            R"({"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null})");
  EXPECT_EQ(format("map with multiple key types: %s",
                   {Value::map({{I(1), "value1"}, {U(2), "value2"}, {true, std::nan("")}})}),
            R"(map with multiple key types: {1:"value1", 2:"value2", true:"NaN"})");
}

TEST(CelStringFormat, Errors) {
  EXPECT_EQ(format_error("%a", {I(1)}), "could not parse formatting clause: unrecognized formatting clause \"a\"");
  EXPECT_EQ(format_error("%d %d %d", {I(0), I(1)}), "index 2 out of range");
  EXPECT_EQ(format_error("string is %b", {"abc"}),
            "error during formatting: only integers and bools can be formatted as binary, was given string");
  EXPECT_EQ(format_error("%d", {Duration{1}}),
            "error during formatting: decimal clause can only be used on integers, was given "
            "google.protobuf.Duration");
  EXPECT_EQ(format_error("octal: %o", {"a string"}),
            "error during formatting: octal clause can only be used on integers, was given string");
  EXPECT_EQ(format_error("double is %x", {0.5}),
            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given "
            "double");
  EXPECT_EQ(format_error("double is %E", {0.5}), "could not parse formatting clause: unrecognized formatting clause \"E\"");
  EXPECT_EQ(format_error("null: %d", {Value()}),
            "error during formatting: decimal clause can only be used on integers, was given null_type");
  EXPECT_EQ(format_error("null: %e", {Value()}),
            "error during formatting: scientific clause can only be used on doubles, was given null_type");
  EXPECT_EQ(format_error("null: %f", {Value()}),
            "error during formatting: fixed-point clause can only be used on doubles, was given null_type");
  EXPECT_EQ(format_error("%", {I(1)}), "unexpected end of string");
  EXPECT_EQ(format_error("%.1000000f", {1.0}),
            "could not parse formatting clause: error while parsing precision: precision too large");
  EXPECT_EQ(format_error("%.3", {1.0}),
            "could not parse formatting clause: error while parsing precision: could not find end of precision "
            "specifier");
}

}  // namespace
}  // namespace kapi::cel::ext::strings_format_test

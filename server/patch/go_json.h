#pragma once
// The text Go's encoding/json and fmt produce, so that patch errors read as kube-apiserver's do: the syntax error
// a client gets for a malformed body, and the `%v` rendering of values that strategicpatch puts in its messages.
#include <boost/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::patch::detail {

// encoding/json allows 10000 levels, but Go's stacks grow and ours do not: patching recurses once per level, and
// 1000 levels keep that within a reactor thread's stack even with sanitizer-sized frames. No Kubernetes object
// comes near it.
inline constexpr std::size_t kMaxNestingDepth = 1000;

// Parses `text`; on failure returns nullopt and sets `error` to Go's message for that input
// (e.g. "invalid character 'x' looking for beginning of value", "unexpected end of JSON input").
std::optional<boost::json::value> parse_json(std::string_view text, std::string& error);

// Go's SyntaxError message for `text`, or "" when it is valid JSON.
std::string go_syntax_error(std::string_view text);

// fmt's %v of the value json.Unmarshal into interface{} would hold: map[a:1 b:[x y]], <nil>, 1.5e+06.
std::string go_value(const boost::json::value& value);

// fmt's %#v of that value: map[string]interface {}{"a":1}, []interface {}{"x", 2}, "text", 1.5, true,
// interface {}(nil).
std::string go_sharp_value(const boost::json::value& value);

// reflect.TypeOf(v).String() for that value ("map[string]interface {}", "[]interface {}", "string", "int64",
// "float64", "bool"), or fmt's "%!s(<nil>)" for null, as %s renders a nil reflect.Type.
std::string go_type_name(const boost::json::value& value);

// fmt's %s of the value: the string itself, else the "%!s(int64=1)" fmt writes for a wrong verb.
std::string go_string_verb(const boost::json::value& value);

// The dynamic type Go gives a decoded value (ints kept as int64, as kube's decoders keep them); values of
// different Go types never compare equal in strategicpatch, even 1 and 1.0.
enum class GoType { kNil, kBool, kInt64, kFloat64, kString, kMap, kSlice };
GoType go_type(const boost::json::value& value);

// Go's == on two decoded values of comparable types; maps and slices (which Go cannot compare and would panic
// on) compare deeply here.
bool go_equal(const boost::json::value& a, const boost::json::value& b);

}  // namespace kapi::patch::detail

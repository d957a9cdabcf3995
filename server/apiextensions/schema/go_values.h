#pragma once
// How Go prints and compares the values a decoded custom resource holds (map[string]interface{}, []interface{},
// string, int64, float64, bool, nil), so that field errors about them read exactly as kube-apiserver's do.
#include <boost/json/value.hpp>

#include <string>

namespace kapi::apiextensions::schema {

// fmt's %v of a number as kube's JSON decoding holds it: integers as int64, others as float64.
std::string go_number(const boost::json::value& number);

// How field.Error.ErrorBody() prints a BadValue: strings quoted, numbers and booleans bare, nil as "null",
// maps and slices with %#v (patch::detail::go_sharp_value).
std::string field_error_value(const boost::json::value& value);

// reflect.DeepEqual of two decoded JSON values: int64 and float64 never compare equal, objects regardless of
// member order.
bool go_deep_equal(const boost::json::value& a, const boost::json::value& b);

// basicCommonValidator's enum match: reflect.DeepEqual after converting the value to the enum member's Go type
// where Go allows that conversion (int64 and float64 both ways, truncating; an int64 to a one-rune string).
bool go_enum_matches(const boost::json::value& data, const boost::json::value& member);

// swag.IsFloat64AJSONInteger: a float holding an integer within JSON's exact range, allowing for rounding.
bool is_float_a_json_integer(double value);

// JSON's kind of a decoded value as kube-openapi names it: "object", "array", "string", "integer", "number",
// "boolean", "null".
std::string openapi_type_of(const boost::json::value& value);

}  // namespace kapi::apiextensions::schema

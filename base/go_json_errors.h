#pragma once
// encoding/json's UnmarshalTypeError as kube's answers quote it ("json: cannot unmarshal number 1.5 into Go struct
// field ContainerPort.spec.containers.ports.containerPort of type int32"), and the pieces it is made of.
#include <boost/json/fwd.hpp>

#include <string>
#include <string_view>

namespace kapi::base {

// How the error names a JSON value by its kind alone: "string", "number", "bool", "array", "object", "null".
std::string_view go_json_kind(const boost::json::value& value);

// A number as the error quotes it ("number 1.5"). Go quotes the body's own spelling; the parsed value is all that
// is left of a fraction here, so it is spelled the shortest way that reads back the same ("80" for 80.0, "100" for
// 1e2); integers are spelled exactly.
std::string go_number_literal(const boost::json::value& value);

struct GoUnmarshalTypeError {
  std::string value;  // "string", "number 1.5"
  std::string type;   // the Go type the value did not fit: "int64", "[]string", "v1.PodSpec"
  // For a struct field: the struct holding it, and the field's path from the root by JSON names, without map keys
  // or list indices ("spec.containers.ports.containerPort"). Both empty for a value outside any struct.
  std::string owner;
  std::string field;

  std::string message() const;
};

}  // namespace kapi::base

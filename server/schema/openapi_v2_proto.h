#pragma once
// /openapi/v2 as gnostic's protobuf (openapi.v2.Document, protos/gnostic/openapiv2.proto): the only form kubectl
// asks for, to validate manifests on the client (a `kind: List`, or a server without fieldValidation), to find a
// kind's patch type and for `explain --output=plaintext-openapiv2`. kube-openapi's handler makes it from the JSON
// document (ToProtoBinary: gnostic's ParseDocument, then proto.Marshal); this does the same from kapi's JSON.
//
// Compiled apart from libkapi (server/schema/meson.build) with the generated messages, so that this header does
// not include them and their generated directory stays off every other kapi object's include path.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kapi::schema {

// The Swagger 2.0 document `json` as a serialized openapi.v2.Document, converted as gnostic's NewDocument converts
// it: every object to its message, maps to Named* pairs in the order of the JSON keys, and free-form values
// (default, enum, example, the "x-" vendor extensions) to Any.yaml. Members that Swagger 2.0 does not define are
// left out, where gnostic would refuse the document. Throws boost::system::system_error when `json` is not JSON.
std::string openapi_v2_protobuf(std::string_view json);

// `value` as YAML, as gnostic writes an Any's yaml (block style, ending in a newline): what kube-openapi's
// proto models read vendor extensions back from with yaml.Unmarshal. Strings that YAML would read as something
// else, or that are not plain words, are double-quoted.
std::string gnostic_yaml(const boost::json::value& value);

}  // namespace kapi::schema

#pragma once
// JSON documents as CEL values, read where they lie (kube evaluates CEL over unstructured objects: JSON objects
// are maps with string keys, arrays are lists, integers int64 (uint64 beyond int64's range, as Boost.JSON parses
// them), other numbers double), and CEL values back to JSON.
//
// Contract:
// - value_of() converts nothing up front: lists and maps wrap the document and convert each element when it is
//   read, keeping the document alive for as long as any value taken from it.
// - json_value_of() converts one JSON value inside a document that `owner` keeps alive; schema-aware views (the CRD
//   helper's) can build on it for the elements they do not treat specially.
// - to_json() is the reverse: nullopt for values JSON cannot hold (errors, opaque values, optional.none()).
#include <memory>
#include <optional>

#include <boost/json/value.hpp>

#include "cel/value.h"

namespace kapi::cel {

Value value_of(std::shared_ptr<const boost::json::value> document);
Value json_value_of(const boost::json::value& value, const std::shared_ptr<const void>& owner);

// JSON of a CEL value, as cel-go's ConvertToNative(structpb.Value) writes it: bytes as base64, timestamps as
// RFC 3339 strings, durations as "1.5s", types by name, map keys as strings, optional.of(x) as x.
std::optional<boost::json::value> to_json(const Value& value);

}  // namespace kapi::cel

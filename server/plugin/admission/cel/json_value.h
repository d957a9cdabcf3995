#pragma once
// JSON documents as CEL values, read where they lie (kube hands cel-go unstructured maps: cel-go's native map and
// list adapters convert each element as an expression reads it). Numbers read as kube's JSON decoding leaves
// them: integers as int, others as double.
#include "cel/value.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>

namespace kapi::admission::cel_runtime {

// `value` read in place; `owner` keeps the document alive for as long as a value refers into it (null when the
// caller guarantees the document outlives every value, as a request's object outlives its admission).
cel::Value json_to_value(std::shared_ptr<const void> owner, const boost::json::value& value);

// An object as a map value (same ownership rule).
cel::Value json_to_value(std::shared_ptr<const void> owner, const boost::json::object& object);

// A document the value owns.
cel::Value owned_json_value(boost::json::value document);

}  // namespace kapi::admission::cel_runtime

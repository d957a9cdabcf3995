#pragma once
// Request objects, params and the like as CEL values, read where they lie (cel/json.h's views; kube hands cel-go
// unstructured maps). The request's objects are json::object, not json::value: their root gets a view of its own.
#include "cel/value.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>

namespace kapi::admission::cel_runtime {

// `object` read in place; `owner` keeps it alive for as long as a value refers into it (null when the caller
// guarantees the object outlives every value, as a request's object outlives its admission).
cel::Value json_to_value(std::shared_ptr<const void> owner, const boost::json::object& object);

// A document the value owns.
cel::Value owned_json_value(boost::json::value document);

}  // namespace kapi::admission::cel_runtime

#pragma once
// cel-spec's values (cel.expr.Value, ExprValue from value.proto / eval.proto) as kapi's Values, and the comparison
// the conformance tests ask for: exact (an int 1 is not a uint 1u nor a double 1.0), maps without order, and a NaN
// matching any NaN — cel-go's runner compares the two protos that way.
#include <optional>
#include <string>

#include "cel/expr/eval.pb.h"
#include "cel/expr/value.pb.h"
#include "cel/value.h"

namespace kapi::cel::conformance {

// Throws Unsupported (decls.h) for protobuf messages other than Timestamp and Duration, and for enums.
Value to_cel_value(const ::cel::expr::Value& value);
Value to_cel_value(const ::cel::expr::ExprValue& value);  // an error set becomes an error value

// nullopt when actual is expected, else what differs ("at [2]: want 1u, got 1").
std::optional<std::string> mismatch(const ::cel::expr::Value& expected, const Value& actual);

// The expected value in CEL's spelling, to print beside debug_string(actual).
std::string describe(const ::cel::expr::Value& value);

}  // namespace kapi::cel::conformance

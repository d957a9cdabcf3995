#pragma once
// Go's formatting of numbers and values where cel-go's results and messages show it: fmt's %g / %v of a float64
// (string(1.5), "no such key: 2.5"), strconv.FormatFloat(x, 'f', -1, 64) (string(duration)), and %v of a CEL value
// in error messages ("no such key: a", "index out of bounds: 3").
#include <string>

#include "cel/value.h"

namespace kapi::cel {

std::string go_format_value(const Value& value);   // fmt.Sprintf("%v", value) of a cel-go ref.Val

}  // namespace kapi::cel

#pragma once
// cel-go's string.format and strings.quote (ext/formatting.go and ext/strings.go, v0.22), with the en_US locale
// cel-go formats %f and %e in (golang.org/x/text: grouped digits, "∞", and "1.0 × 10⁰⁰" scientific notation).
#include <span>
#include <string>
#include <string_view>

#include "cel/ast.h"
#include "cel/compile.h"
#include "cel/value.h"

namespace kapi::cel::ext {

// `<string>.format(<list>)`: args[0] the format string, args[1] the list of arguments.
Value string_format(std::span<const Value> args);
// strings.quote: a double-quoted string with CEL's escapes; malformed UTF-8 becomes U+FFFD.
std::string quote_string(std::string_view text);
// cel-go's conversion of a value to string (string(x)) for %s: "1e+06" for doubles, "6347s" for durations.
// Empty when the value has no string form; `error` then says why.
std::string value_to_format_string(const Value& value, std::string& error);

// cel-go's stringFormatValidator, the AST validator ext.Strings installs (kube keeps it on): a format() call whose
// format string is a literal and whose argument is a list literal is checked at compile time, each clause against
// its argument's checked type, with the runtime's messages ("error during formatting: decimal clause can only be
// used on integers, was given string") and "too many arguments supplied to string.format (expected 1, got 2)".
// Issues are appended to `issues`, positioned at the offending node. Compile paths run it after check().
void validate_format_calls(const CheckedAst& ast, Issues& issues);

}  // namespace kapi::cel::ext

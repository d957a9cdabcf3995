#pragma once
// How property names become CEL identifiers and back (apiserver/pkg/cel/escaping.go): reserved words become
// "__name__", and "__", ".", "-", "/" inside a name become "__underscores__", "__dot__", "__dash__", "__slash__".
// Names that cannot be escaped (leading digit, other characters) are not accessible from CEL.
#include <optional>
#include <string>
#include <string_view>

namespace kapi::apiextensions::cel {

std::optional<std::string> escape(std::string_view name);
std::optional<std::string> unescape(std::string_view escaped);

}  // namespace kapi::apiextensions::cel

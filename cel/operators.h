#pragma once
// CEL's operator and special function names, as cel-go's common/operators and overloads packages spell them.
#include <string_view>

namespace kapi::cel::operators {

inline constexpr std::string_view kConditional = "_?_:_";
inline constexpr std::string_view kLogicalAnd = "_&&_";
inline constexpr std::string_view kLogicalOr = "_||_";
inline constexpr std::string_view kLogicalNot = "!_";
inline constexpr std::string_view kEquals = "_==_";
inline constexpr std::string_view kNotEquals = "_!=_";
inline constexpr std::string_view kLess = "_<_";
inline constexpr std::string_view kLessEquals = "_<=_";
inline constexpr std::string_view kGreater = "_>_";
inline constexpr std::string_view kGreaterEquals = "_>=_";
inline constexpr std::string_view kAdd = "_+_";
inline constexpr std::string_view kSubtract = "_-_";
inline constexpr std::string_view kMultiply = "_*_";
inline constexpr std::string_view kDivide = "_/_";
inline constexpr std::string_view kModulo = "_%_";
inline constexpr std::string_view kNegate = "-_";
inline constexpr std::string_view kIndex = "_[_]";
inline constexpr std::string_view kOptIndex = "_[?_]";
inline constexpr std::string_view kOptSelect = "_?._";
inline constexpr std::string_view kIn = "@in";
inline constexpr std::string_view kNotStrictlyFalse = "@not_strictly_false";

// Macro names.
inline constexpr std::string_view kHas = "has";
inline constexpr std::string_view kAll = "all";
inline constexpr std::string_view kExists = "exists";
inline constexpr std::string_view kExistsOne = "exists_one";
inline constexpr std::string_view kMap = "map";
inline constexpr std::string_view kFilter = "filter";

}  // namespace kapi::cel::operators

#pragma once
// Helpers the kube and cel-go extension libraries share: building overloads, CEL's ordering of comparable values
// (cel-go's traits.Comparer), Go's rune view of strings, and plain error values (cel-go's types.NewErr).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/function.h"
#include "cel/value.h"

namespace kapi::cel::ext {

Overload member_overload(std::string id, std::vector<Type> params, Type result, FunctionImpl impl);
Overload global_overload(std::string id, std::vector<Type> params, Type result, FunctionImpl impl);

// types.NewErr(message): a generic error whose text is what kube reports.
Value error_value(std::string message);

Value string_list(std::vector<std::string> items);

// The Opaque behind a value when it is of type T, else null.
template <typename T>
const T* opaque_as(const Value& value) {
  const auto* opaque = value.get_if<std::shared_ptr<const Opaque>>();
  return opaque ? dynamic_cast<const T*>(opaque->get()) : nullptr;
}

// cel-go's Compare between values of comparable types (numbers across int/uint/double, bool, string, bytes,
// timestamp, duration): -1, 0 or 1; std::nullopt when the two cannot be compared (no such overload).
std::optional<int> compare_values(const Value& a, const Value& b);

// []rune(s) and string(runes): Go decodes each malformed byte as U+FFFD.
std::u32string to_runes(std::string_view text);
std::string from_runes(std::u32string_view runes);

}  // namespace kapi::cel::ext

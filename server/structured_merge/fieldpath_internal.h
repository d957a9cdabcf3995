#pragma once
// What Set's FieldsV1 reader needs of the path element parser beyond PathElement::parse: whether a name failed
// because its type letter is unknown (smd's ErrUnknownPathElementType, which FromJSON skips) or because it is
// malformed (an error), and smd's message for the latter.
#include "server/structured_merge/fieldpath.h"

#include <optional>
#include <string>
#include <string_view>

namespace kapi::structured_merge::detail {

struct ParsedPathElement {
  std::optional<PathElement> element;
  bool unknown_type = false;
  std::string error;  // when neither element nor unknown_type
};

ParsedPathElement parse_path_element(std::string_view serialized);

// The nesting FieldsV1 and its "k:"/"v:" values may have: far beyond any object's, within what recursion over the
// parsed text can take on a reactor thread's stack.
inline constexpr std::size_t kMaxFieldsDepth = 1000;

}  // namespace kapi::structured_merge::detail

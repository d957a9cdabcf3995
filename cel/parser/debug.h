#pragma once
// cel-go's debug printer (common/debug/debug.go) with an adorner: the text after each node or map/struct entry,
// as cel-go's parser tests adorn nodes with their ids, kinds or locations.
#include <cstdint>
#include <functional>
#include <string>

#include "cel/ast.h"

namespace kapi::cel::parser {

struct DebugAdorner {
  std::function<std::string(const Expr&)> expr;
  std::function<std::string(std::int64_t entry_id)> entry;  // map entries and struct fields
};

std::string adorned_debug_string(const Expr& expr, const DebugAdorner& adorner);

}  // namespace kapi::cel::parser

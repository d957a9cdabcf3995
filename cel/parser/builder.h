#pragma once
// Node construction shared by the grammar (parser.cc) and the macros (macros.cc), as cel-go's parserHelper and
// exprHelper do it: ids ascend from 1 in creation order and every node records the code-point offset it came
// from; nodes a macro creates take the position of the macro call.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/ast.h"
#include "cel/compile.h"
#include "cel/env.h"

namespace kapi::cel::parser {

class Builder {
 public:
  std::int64_t new_id(std::int32_t offset) {
    std::int64_t id = next_id_++;
    info_.positions[id] = offset;
    return id;
  }
  // Forgets an id nothing refers to any more (a macro call replaced by its expansion), reusing it when it was the
  // last one handed out, as cel-go's deleteID does.
  void delete_id(std::int64_t id) {
    info_.positions.erase(id);
    if (id == next_id_ - 1) --next_id_;
  }
  std::int32_t offset_of(std::int64_t id) const {
    auto it = info_.positions.find(id);
    return it == info_.positions.end() ? -1 : it->second;
  }

  static Expr constant(std::int64_t id, Constant value) { return Expr{id, std::move(value)}; }
  static Expr ident(std::int64_t id, std::string name) { return Expr{id, IdentExpr{std::move(name)}}; }
  static Expr select(std::int64_t id, Expr operand, std::string field, bool test_only = false) {
    return Expr{id, SelectExpr{std::make_unique<Expr>(std::move(operand)), std::move(field), test_only}};
  }
  static Expr call(std::int64_t id, std::string function, std::vector<Expr> args) {
    return Expr{id, CallExpr{nullptr, std::move(function), std::move(args)}};
  }
  static Expr member_call(std::int64_t id, std::string function, Expr target, std::vector<Expr> args) {
    return Expr{id, CallExpr{std::make_unique<Expr>(std::move(target)), std::move(function), std::move(args)}};
  }
  static Expr comprehension(std::int64_t id, std::string iter_var, Expr iter_range, std::string accu_var,
                            Expr accu_init, Expr loop_condition, Expr loop_step, Expr result,
                            std::string iter_var2 = {}) {
    return Expr{id, ComprehensionExpr{std::move(iter_var), std::make_unique<Expr>(std::move(iter_range)),
                                      std::move(accu_var), std::make_unique<Expr>(std::move(accu_init)),
                                      std::make_unique<Expr>(std::move(loop_condition)),
                                      std::make_unique<Expr>(std::move(loop_step)),
                                      std::make_unique<Expr>(std::move(result)), std::move(iter_var2)}};
  }

  SourceInfo& info() { return info_; }
  std::int64_t next_id() const { return next_id_; }

  // Nodes macros have copied in this parse, which the parser bounds (see expand_opt_map in macros.cc).
  std::int64_t copied_nodes() const { return copied_nodes_; }
  void add_copied_nodes(std::int64_t nodes) { copied_nodes_ += nodes; }

 private:
  SourceInfo info_;
  std::int64_t next_id_ = 1;
  std::int64_t copied_nodes_ = 0;
};

// The options' expression size limit in code points: cel-go's default for 0, none for a negative limit. It bounds
// the nodes macros may copy in one parse too (see expand_opt_map in macros.cc).
inline std::int64_t expression_size_limit(const ParserOptions& options) {
  return options.expression_size_code_point_limit == 0 ? 100'000 : options.expression_size_code_point_limit;
}

// A macro's failure: the node it blames and cel-go's message.
struct MacroError {
  std::int64_t expr_id = 0;
  std::string message;
};

struct MacroResult {
  std::optional<Expr> expansion;  // unset with no error: the macro declined, the call stays a call
  std::optional<MacroError> error;
};

// Expands `function(args)` (target unset) or `target.function(args)` when a macro of that name, argument count
// and style is enabled. Returns nothing when no macro matches; the target and arguments are then untouched.
// call_id is the id cel-go gives the call (its '(' token); the expansion's new nodes take its position.
std::optional<MacroResult> expand_macro(Builder& builder, const ParserOptions& options, std::int64_t call_id,
                                        std::string_view function, std::optional<Expr>& target,
                                        std::vector<Expr>& args);

}  // namespace kapi::cel::parser

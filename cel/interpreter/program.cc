// cel::Program: plans an expression once (cel-go's interpreter.NewInterpreter + Plan) and evaluates it with a
// cost tracker per call (cel.EvalOptions(cel.OptTrackCost) with cel.CostLimit), never sharing mutable state.
#include "cel/program.h"

#include "cel/interpreter/evaluator.h"
#include "cel/interpreter/plan.h"

namespace kapi::cel {

class Program::Impl {
 public:
  Impl(std::shared_ptr<const Env> env, std::shared_ptr<const void> ast, interp::Node root)
      : env(std::move(env)), ast(std::move(ast)), root(std::move(root)) {}

  std::shared_ptr<const Env> env;
  std::shared_ptr<const void> ast;  // the tree the plan was made from, kept for the program's life
  interp::Node root;
};

const Value* MapActivation::find(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? nullptr : &it->second;
}

Program Program::plan(std::shared_ptr<const Env> env, std::shared_ptr<const CheckedAst> ast) {
  interp::Node root = interp::plan_expr(*env, ast->root, ast.get());
  return Program(std::make_shared<const Impl>(std::move(env), std::move(ast), std::move(root)));
}

Program Program::plan_unchecked(std::shared_ptr<const Env> env, std::shared_ptr<const ParsedAst> ast) {
  interp::Node root = interp::plan_expr(*env, ast->root, nullptr);
  return Program(std::make_shared<const Impl>(std::move(env), std::move(ast), std::move(root)));
}

EvalResult Program::eval(const Activation& activation, const EvalOptions& options) const {
  interp::Evaluator evaluator(*impl_->env, activation, options.cost_limit);
  EvalResult result;
  try {
    result.value = evaluator.eval(impl_->root, nullptr);
  } catch (const interp::CostLimitExceeded&) {
    result.value = Value::error(ErrorCode::kCostLimitExceeded, "operation cancelled: actual cost limit exceeded");
  }
  result.cost = evaluator.cost();
  return result;
}

}  // namespace kapi::cel

// cel::Program: plans an expression once (cel-go's interpreter.NewInterpreter + Plan) and evaluates it with a
// cost tracker per call (cel.EvalOptions(cel.OptTrackCost) with cel.CostLimit), never sharing mutable state.
#include "cel/program.h"

#include "cel/interpreter/evaluator.h"
#include "cel/interpreter/plan.h"

namespace kapi::cel {

class Program::Impl {
 public:
  Impl(std::shared_ptr<const Env> env, std::shared_ptr<const void> ast, interp::Node root, PlanOptions options)
      : env(std::move(env)), ast(std::move(ast)), root(std::move(root)), options(options) {}

  std::shared_ptr<const Env> env;
  std::shared_ptr<const void> ast;  // the tree the plan was made from, kept for the program's life
  interp::Node root;
  PlanOptions options;
};

const Value* MapActivation::find(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? nullptr : &it->second;
}

Program Program::plan(std::shared_ptr<const Env> env, std::shared_ptr<const CheckedAst> ast,
                      const PlanOptions& options) {
  interp::Node root = interp::plan_expr(*env, ast->root, ast.get(), options.optimize);
  return Program(std::make_shared<const Impl>(std::move(env), std::move(ast), std::move(root), options));
}

Program Program::plan_unchecked(std::shared_ptr<const Env> env, std::shared_ptr<const ParsedAst> ast,
                                const PlanOptions& options) {
  interp::Node root = interp::plan_expr(*env, ast->root, nullptr, options.optimize);
  return Program(std::make_shared<const Impl>(std::move(env), std::move(ast), std::move(root), options));
}

EvalResult Program::eval(const Activation& activation, const EvalOptions& options) const {
  interp::Evaluator evaluator(*impl_->env, activation, options.cost_limit,
                              impl_->options.presence_test_has_cost);
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

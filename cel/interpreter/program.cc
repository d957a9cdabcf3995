// Placeholder until the interpreter lands (cel/interpreter is the evaluator's home).
#include "cel/program.h"

namespace kapi::cel {

class Program::Impl {};

const Value* MapActivation::find(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? nullptr : &it->second;
}

Program Program::plan(std::shared_ptr<const Env>, std::shared_ptr<const CheckedAst>) {
  return Program(std::make_shared<const Impl>());
}

Program Program::plan_unchecked(std::shared_ptr<const Env>, std::shared_ptr<const ParsedAst>) {
  return Program(std::make_shared<const Impl>());
}

EvalResult Program::eval(const Activation&, const EvalOptions&) const {
  return EvalResult{Value::error(ErrorCode::kGeneric, "CEL interpreter not built yet"), 0};
}

}  // namespace kapi::cel

// kube's evaluationActivation and its Evaluate (k8s.io/apiserver/pkg/admission/plugin/cel/activation.go), ForInput
// (condition.go) and the lazy `variables` map of composition.go (variableAccessor.Callback).
#include "server/plugin/admission/cel/evaluation.h"

#include <limits>

namespace kapi::admission::cel_runtime {

namespace {

constexpr std::string_view kOutOfBudget =
    "validation failed due to running out of cost budget, no further validation rules will be run";

std::string error_message(const cel::Value& value) { return value.get<cel::Error>().message; }

}  // namespace

// kube's lazy.MapValue of the variables: a variable is evaluated when an expression first reads it.
class AdmissionActivation::Variables final : public cel::Map {
 public:
  Variables(const std::vector<AdmissionCompiler::Variable>& variables, const AdmissionActivation& activation)
      : variables_(variables), activation_(activation), values_(variables.size()) {}

  std::size_t size() const override { return variables_.size(); }
  std::optional<cel::Value> find(const cel::Value& key) const override {
    const std::string* name = key.get_if<std::string>();
    if (!name) return std::nullopt;
    // A later variable of the same name replaces an earlier one, as kube's map of compiled variables does.
    for (std::size_t index = variables_.size(); index-- > 0;)
      if (variables_[index].name == *name) return value_of(index);
    return std::nullopt;
  }
  cel::Value key_at(std::size_t index) const override { return cel::Value(variables_[index].name); }

  std::uint64_t take_cost() const { return std::exchange(cost_, 0); }

 private:
  cel::Value value_of(std::size_t index) const {
    if (values_[index]) return *values_[index];
    const AdmissionCompiler::Variable& variable = variables_[index];
    cel::Value value;
    if (variable.compiled.error) {
      value = cel::Value::error(cel::ErrorCode::kGeneric, "composited variable \"" + variable.name +
                                                              "\" fails to compile: " + variable.compiled.error->detail);
    } else if (!variable.compiled.program) {
      value = cel::Value::error(cel::ErrorCode::kGeneric,
                                "unable to get evaluation details of variable \"" + variable.name + "\"");
    } else {
      cel::EvalResult result = variable.compiled.program->eval(activation_, cel::EvalOptions{kPerCallLimit});
      cost_ += result.cost;
      value = result.value.is_error()
                  ? cel::Value::error(result.value.get<cel::Error>().code,
                                      "composited variable \"" + variable.name +
                                          "\" fails to evaluate: " + error_message(result.value))
                  : std::move(result.value);
    }
    values_[index] = value;
    return value;
  }

  const std::vector<AdmissionCompiler::Variable>& variables_;
  const AdmissionActivation& activation_;
  mutable std::vector<std::optional<cel::Value>> values_;
  mutable std::uint64_t cost_ = 0;
};

AdmissionActivation::AdmissionActivation(Inputs inputs, const std::vector<AdmissionCompiler::Variable>* variables)
    : inputs_(std::move(inputs)) {
  if (variables) {
    // The map refers back to this activation by reference: the activation outlives every evaluation that reads it.
    lazy_ = std::make_shared<Variables>(*variables, *this);
    variables_ = cel::Value(std::shared_ptr<const cel::Map>(lazy_));
  }
}

const cel::Value* AdmissionActivation::find(std::string_view name) const {
  if (name == "object") return &inputs_.object;
  if (name == "oldObject") return &inputs_.old_object;
  if (name == "params") return &inputs_.params;
  if (name == "request") return &inputs_.request;
  if (name == "namespaceObject") return &inputs_.namespace_object;
  if (name == "variables") return &variables_;
  if (authorizer_hidden_) return nullptr;
  if (name == "authorizer") return inputs_.authorizer ? &*inputs_.authorizer : nullptr;
  if (name == "authorizer.requestResource") return inputs_.resource_authorizer ? &*inputs_.resource_authorizer : nullptr;
  return nullptr;
}

std::uint64_t AdmissionActivation::take_variables_cost() const { return lazy_ ? lazy_->take_cost() : 0; }

Evaluations evaluate(const std::vector<const CompiledExpression*>& expressions, const AdmissionActivation& activation,
                     std::int64_t budget) {
  Evaluations out;
  out.results.resize(expressions.size());
  std::int64_t remaining = budget;
  for (std::size_t index = 0; index < expressions.size(); ++index) {
    const CompiledExpression* compiled = expressions[index];
    if (!compiled) continue;
    EvaluationResult& result = out.results[index];
    result.present = true;
    if (compiled->error) {
      result.error = "compilation error: " + compiled->error->detail;
      continue;
    }
    if (!compiled->program) {
      result.error = "unexpected internal error compiling expression";
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    cel::EvalResult evaluated = compiled->program->eval(activation, cel::EvalOptions{kPerCallLimit});
    result.elapsed = std::chrono::steady_clock::now() - start;
    // Variables read for the first time are paid for by the expression that read them.
    const std::uint64_t variables_cost = activation.take_variables_cost();
    if (variables_cost > static_cast<std::uint64_t>(remaining)) {
      out.error = std::string(kOutOfBudget);
      out.remaining_budget = -1;
      return out;
    }
    remaining -= static_cast<std::int64_t>(variables_cost);
    if (evaluated.cost > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        static_cast<std::int64_t>(evaluated.cost) > remaining) {
      out.error = std::string(kOutOfBudget);
      out.remaining_budget = -1;
      return out;
    }
    remaining -= static_cast<std::int64_t>(evaluated.cost);
    if (evaluated.value.is_error())
      result.error = "expression '" + compiled->expression + "' resulted in error: " + error_message(evaluated.value);
    else
      result.value = std::move(evaluated.value);
  }
  out.remaining_budget = remaining;
  return out;
}

}  // namespace kapi::admission::cel_runtime

// kube's validator.Validate (k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go): the
// decision of each validation, its message (messageExpression, else message, else "failed expression: ..."),
// and the audit annotations' values, with the failure policy turning errors into denials or nothing.
#include "server/plugin/admission/validating_admission_policy/validator.h"


namespace kapi::admission::policy {
namespace {

using cel_runtime::Evaluations;

std::string trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(kSpace);
  return std::string(text.substr(begin, end - begin + 1));
}

Decision error_decision(const CompiledPolicy& policy, std::string message) {
  return Decision{.deny = !policy.fail_open, .evaluation_error = true, .message = std::move(message), .reason = {}};
}

std::string denial_message(const Validation& validation, const cel_runtime::EvaluationResult* message_result) {
  std::string message;
  if (message_result && message_result->value && message_result->value->is<std::string>()) {
    message = trim(message_result->value->get<std::string>());
    // Too long or several lines: the static message is used instead.
    if (message.size() > kMaxMessageExpressionBytes || message.find('\n') != std::string::npos) message.clear();
  }
  if (message.empty() && !validation.message.empty()) message = trim(validation.message);
  if (message.empty()) message = "failed expression: " + trim(validation.expression.expression);
  return message;
}

}  // namespace

std::string_view error_type(const Decision& decision) {
  if (!decision.deny && !decision.evaluation_error) return "no_error";
  if (decision.message.starts_with("compilation")) return "compile_error";
  if (decision.message.starts_with("validation failed due to running out of cost budget")) return "out_of_budget";
  return "invalid_error";
}

ValidateResult validate(const CompiledPolicy& policy, cel_runtime::AdmissionActivation& activation) {
  ValidateResult out;
  activation.hide_authorizer(false);
  if (!policy.match_conditions.empty()) {
    const auto start = std::chrono::steady_clock::now();
    const cel_runtime::MatchResult& matched = out.matched.emplace(
        cel_runtime::match(policy.match_conditions, activation, policy.fail_open));
    out.match_elapsed = std::chrono::steady_clock::now() - start;
    if (matched.error) {
      out.decisions.push_back(error_decision(policy, *matched.error));
      return out;
    }
    if (!matched.matches) return out;
  }

  std::vector<const cel_runtime::CompiledExpression*> expressions;
  for (const Validation& validation : policy.validations) expressions.push_back(&validation.expression);
  Evaluations results = cel_runtime::evaluate(expressions, activation, cel_runtime::kRuntimeCostBudget);
  if (results.error) {
    out.decisions.push_back(error_decision(policy, *results.error));
    return out;
  }

  // Message expressions see params but not the authorizer, with what the validations left of the budget.
  std::vector<const cel_runtime::CompiledExpression*> message_expressions;
  for (const Validation& validation : policy.validations)
    message_expressions.push_back(validation.message_expression ? &*validation.message_expression : nullptr);
  activation.hide_authorizer(true);
  Evaluations messages = cel_runtime::evaluate(message_expressions, activation, results.remaining_budget);

  for (std::size_t index = 0; index < policy.validations.size(); ++index) {
    const Validation& validation = policy.validations[index];
    const cel_runtime::EvaluationResult& result = results.results[index];
    const cel_runtime::EvaluationResult* message_result =
        index < messages.results.size() ? &messages.results[index] : nullptr;
    if (result.error) {
      out.decisions.push_back(error_decision(policy, *result.error));
    } else if (messages.error) {
      out.decisions.push_back(error_decision(policy, "failed messageExpression: " + *messages.error));
    } else if (!result.value || !result.value->is<bool>() || !result.value->get<bool>()) {
      out.decisions.push_back(Decision{.deny = true,
                                       .evaluation_error = false,
                                       .message = denial_message(validation, message_result),
                                       .reason = validation.reason.empty() ? "Invalid" : validation.reason});
    } else {
      out.decisions.push_back(Decision{});
    }
    out.decisions.back().elapsed = result.elapsed;
  }

  // Audit annotations: params but no authorizer, with a budget of their own.
  std::vector<const cel_runtime::CompiledExpression*> annotation_expressions;
  for (const AuditAnnotation& annotation : policy.audit_annotations) annotation_expressions.push_back(&annotation.compiled);
  Evaluations annotations = cel_runtime::evaluate(annotation_expressions, activation, cel_runtime::kRuntimeCostBudget);
  activation.hide_authorizer(false);
  if (annotations.error) {
    out.decisions = {error_decision(policy, *annotations.error)};
    return out;
  }
  using Action = AuditAnnotationResult::Action;
  for (std::size_t index = 0; index < policy.audit_annotations.size(); ++index) {
    const AuditAnnotation& annotation = policy.audit_annotations[index];
    const cel_runtime::EvaluationResult& result = annotations.results[index];
    AuditAnnotationResult& published = out.audit_annotations.emplace_back();
    published.key = annotation.key;
    if (result.error) {
      published.action = policy.fail_open ? Action::Exclude : Action::Error;
      published.error = *result.error;
    } else if (result.value && result.value->is<std::string>()) {
      published.value = trim(result.value->get<std::string>());
      published.action = published.value.empty() ? Action::Exclude : Action::Publish;
    } else if (result.value && result.value->is_null()) {
      published.action = Action::Exclude;
    } else {
      published.action = Action::Error;
      published.error = "valueExpression '" + annotation.value_expression +
                        "' resulted in unsupported return type: " + (result.value ? result.value->type_name() : "") +
                        ". Return type must be either string or null.";
    }
  }
  return out;
}

}  // namespace kapi::admission::policy

// kube's denial wording (policy/validating/dispatcher.go dispatchInvocations and reasonToCode,
// publishValidationFailureAnnotation) and PolicyError (policy/generic/policy_dispatcher.go).
#include "server/plugin/admission/validating_admission_policy/errors.h"

#include "base/go_json_string.h"
#include "server/admission/errors.h"

#include <boost/json.hpp>

namespace kapi::admission::policy {
namespace {

int reason_to_code(const std::string& reason) {
  if (reason == "Forbidden") return 403;
  if (reason == "Invalid") return 422;
  if (reason == "RequestEntityTooLarge") return 413;
  if (reason == "Unauthorized") return 401;
  return 422;
}

}  // namespace

apierrors::ApiError denial(const Attributes& attributes, const std::string& policy, const std::string* binding,
                           const std::string& message, const std::string& reason) {
  const std::string text = binding ? "ValidatingAdmissionPolicy '" + policy + "' with binding '" + *binding +
                                         "' denied request: " + message
                                   : "ValidatingAdmissionPolicy '" + policy + "' denied request: " + message;
  apierrors::Status status = forbidden(attributes, text).status();
  status.reason = reason.empty() ? "Invalid" : reason;
  status.code = reason_to_code(status.reason);
  if (!status.details) status.details.emplace();
  status.details->causes.push_back(apierrors::StatusCause{.reason = {}, .message = text, .field = {}});
  return apierrors::ApiError(std::move(status));
}

std::string PolicyError::text() const {
  if (!binding.empty()) return "policy '" + policy + "' with binding '" + binding + "' denied request: " + message;
  return "policy \"" + policy + "\" denied request: " + message;
}

apierrors::ApiError policy_errors(const Attributes& attributes, const std::vector<PolicyError>& errors) {
  apierrors::Status status = forbidden(attributes, "admission request denied by policy").status();
  status.message = errors.front().text();
  if (!status.details) status.details.emplace();
  for (const PolicyError& error : errors)
    status.details->causes.push_back(apierrors::StatusCause{.reason = {}, .message = error.text(), .field = {}});
  return apierrors::ApiError(std::move(status));
}

std::string warning_text(const std::string& policy, const std::string& binding, const std::string& message) {
  return "Validation failed for ValidatingAdmissionPolicy '" + policy + "' with binding '" + binding + "': " + message;
}

std::string validation_failure_value(const std::string& policy, const std::string& binding, std::size_t index,
                                     const std::string& message, const std::vector<std::string>& actions) {
  boost::json::array validation_actions;
  for (const std::string& action : actions) validation_actions.emplace_back(action);
  boost::json::object failure{{"message", message},
                              {"policy", policy},
                              {"binding", binding},
                              {"expressionIndex", static_cast<std::int64_t>(index)},
                              {"validationActions", std::move(validation_actions)}};
  std::string out;
  base::append_go_json(out, boost::json::array{std::move(failure)});
  return out;
}

}  // namespace kapi::admission::policy

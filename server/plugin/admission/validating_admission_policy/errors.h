#pragma once
// What a ValidatingAdmissionPolicy answers with (kube's policy/validating/dispatcher.go and
// policy/generic/policy_dispatcher.go): the denial of a validation, the refusal for configuration errors, the
// Warn warning and the Audit annotation.
#include "server/admission/attributes.h"
#include "server/apierrors/errors.h"

#include <string>
#include <vector>

namespace kapi::admission::policy {

// `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <message>` (or `ValidatingAdmissionPolicy 'p'
// denied request: ...` without a binding) in admission.NewForbidden, with the decision's reason (Invalid when
// none) and its code (reasonToCode), the message repeated as a cause.
apierrors::ApiError denial(const Attributes& attributes, const std::string& policy, const std::string* binding,
                           const std::string& message, const std::string& reason);

// A configuration error (params not found, a selector that could not be evaluated, ...) as PolicyError.Error()
// words it: `policy 'p' with binding 'b' denied request: failed to configure binding: ...`.
struct PolicyError {
  std::string policy;
  std::string binding;  // empty: the policy's own configuration
  std::string message;  // "failed to configure policy: ..." / "failed to configure binding: ..."
  std::string text() const;
};
// The refusal for the configuration errors of policies that fail closed: 403 Forbidden with the first error as
// message and every error as a cause.
apierrors::ApiError policy_errors(const Attributes& attributes, const std::vector<PolicyError>& errors);

// The Warn action's warning.
std::string warning_text(const std::string& policy, const std::string& binding, const std::string& message);
// The Audit action's annotation value: [{"message","policy","binding","expressionIndex","validationActions"}].
std::string validation_failure_value(const std::string& policy, const std::string& binding, std::size_t index,
                                     const std::string& message, const std::vector<std::string>& actions);
inline constexpr std::string_view kValidationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure";

}  // namespace kapi::admission::policy

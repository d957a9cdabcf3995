#pragma once
// kube's pkg/apis/admissionregistration/validation for the v1 kinds, over JSON: the webhook configurations
// (validateValidatingWebhook, validateMutatingWebhook, the update options that tolerate what the stored object
// already has), the ValidatingAdmissionPolicy and its binding, and k8s.io/apiserver's webhook URL and service
// checks. The CEL expressions (match conditions, validations, message expressions, audit annotations, variables)
// are compiled as kube compiles them at write time (admission_cel.h), against `object` and `params` of type dyn.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apis::admissionregistration {

inline constexpr std::string_view kGroupName = "admissionregistration.k8s.io";

enum class WebhookKind { Validating, Mutating };

// ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration beyond metadata.
validation::ErrorList validate_webhook_configuration(const boost::json::object& configuration, WebhookKind kind);
// The ...Update forms: rules the stored object already breaks (side effects, admission review versions, duplicate
// names, invalid label values) are tolerated.
validation::ErrorList validate_webhook_configuration_update(const boost::json::object& configuration,
                                                            const boost::json::object& old, WebhookKind kind);

// webhook.ValidateWebhookURL (https forced) and ValidateWebhookService.
validation::ErrorList validate_webhook_url(const validation::Path& path, std::string_view url);
validation::ErrorList validate_webhook_service(const validation::Path& path, const boost::json::object& service);

// ValidateValidatingAdmissionPolicy (and ...Update, which skips unchanged match conditions) beyond metadata.
validation::ErrorList validate_admission_policy(const boost::json::object& policy);
validation::ErrorList validate_admission_policy_update(const boost::json::object& policy, const boost::json::object& old);
// ValidateValidatingAdmissionPolicyStatusUpdate.
validation::ErrorList validate_admission_policy_status(const boost::json::object& policy);
// ValidateValidatingAdmissionPolicyBinding beyond metadata.
validation::ErrorList validate_policy_binding(const boost::json::object& binding);

}  // namespace kapi::apis::admissionregistration

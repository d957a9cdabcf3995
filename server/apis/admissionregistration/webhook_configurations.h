#pragma once
// What the two webhook configuration kinds share: kube's pkg/registry/admissionregistration/
// mutatingwebhookconfiguration and validatingwebhookconfiguration strategies, which differ only in their kind.
#include "server/apis/admissionregistration/admission_validation.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis::admissionregistration {

ResourceStorage webhook_configurations(WebhookKind kind);

}  // namespace kapi::apis::admissionregistration

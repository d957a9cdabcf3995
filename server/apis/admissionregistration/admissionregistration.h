#pragma once
// admissionregistration.k8s.io/v1: the admission webhooks' configurations and the validating admission policies
// with their bindings, one file each in this folder. kapi stores and validates them; calling the webhooks and
// evaluating the policies is admission's work, not these resources'.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage mutatingwebhookconfigurations();
ResourceStorage validatingwebhookconfigurations();
// With /status (the type checking results a controller writes).
ResourceStorage validatingadmissionpolicies();
ResourceStorage validatingadmissionpolicybindings();

}  // namespace kapi::apis

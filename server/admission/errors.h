#pragma once
// The errors kube's admission plugins answer with (k8s.io/apiserver/pkg/admission/errors.go).
#include "server/admission/attributes.h"
#include "server/apierrors/errors.h"

#include <string>

namespace kapi::admission {

// admission.NewForbidden: 403 `<resource> "<name>" is forbidden: <message>`. Without a name on the request, the
// object's name, else its generateName, else "Unknown" (names are generated after admission).
apierrors::ApiError forbidden(const Attributes& attributes, std::string message);

}  // namespace kapi::admission

#pragma once
// apivalidation.ValidateCSIDriverName, which a CSIDriver's name and a CSINode's drivers share.
#include "server/validation/field_error.h"

#include <string_view>

namespace kapi::apis::csi {

// Required when empty, at most 63 characters, a DNS-1123 subdomain once lower-cased.
validation::ErrorList csi_driver_name_errors(std::string_view name, const validation::Path& path);

}  // namespace kapi::apis::csi

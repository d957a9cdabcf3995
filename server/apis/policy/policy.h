#pragma once
// policy/v1: PodDisruptionBudgets (the Eviction kind is pods/eviction's body, served by server/apis/core).
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage poddisruptionbudgets();

}  // namespace kapi::apis

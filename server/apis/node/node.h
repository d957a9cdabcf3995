#pragma once
// node.k8s.io/v1: RuntimeClasses.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage runtimeclasses();

}  // namespace kapi::apis

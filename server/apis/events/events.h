#pragma once
// events.k8s.io/v1.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

// The events.k8s.io/v1 Events: the stored core/v1 events, converted as kube converts them.
ResourceStorage events_api_events();

}  // namespace kapi::apis

#pragma once
// autoscaling: HorizontalPodAutoscalers, stored as autoscaling/v2 and served at v2 and v1.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage horizontalpodautoscalers_v2();
// The same objects through kube's v1 ⇄ v2 conversion (autoscaling/v1 keeps v2-only data in annotations).
ResourceStorage horizontalpodautoscalers_v1();

}  // namespace kapi::apis

#pragma once
// apps/v1: the workload controllers' resources, one file each in this folder.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage deployments();
ResourceStorage replicasets();
ResourceStorage statefulsets();
ResourceStorage daemonsets();
ResourceStorage controllerrevisions();

}  // namespace kapi::apis

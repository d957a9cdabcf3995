#pragma once
// batch/v1: Jobs and CronJobs, one file each in this folder.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage jobs();
ResourceStorage cronjobs();

}  // namespace kapi::apis

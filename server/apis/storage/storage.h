#pragma once
// storage.k8s.io/v1: StorageClasses, CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments, one file
// each in this folder.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage storageclasses();
ResourceStorage csidrivers();
ResourceStorage csinodes();
ResourceStorage csistoragecapacities();
ResourceStorage volumeattachments();

}  // namespace kapi::apis

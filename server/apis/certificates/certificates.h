#pragma once
// certificates.k8s.io/v1: certificate signing requests, one file each in this folder.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

// With /status (the signer's certificate) and /approval (the Approved and Denied conditions). Who may approve and
// sign, and who may ask for system:masters, the certificate admission plugins decide (server/plugin/admission).
ResourceStorage certificatesigningrequests();

}  // namespace kapi::apis

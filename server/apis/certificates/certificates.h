#pragma once
// certificates.k8s.io/v1: certificate signing requests, one file each in this folder.
#include "server/apis/certificates/signer_access.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {

// With /status (the signer's certificate) and /approval (the Approved and Denied conditions); approving and
// signing need the `approve` and `sign` verbs on the signer, as `signers` decides.
ResourceStorage certificatesigningrequests(std::shared_ptr<const certificates::SignerAccess> signers);

}  // namespace kapi::apis

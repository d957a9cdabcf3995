#pragma once
// networking.k8s.io/v1: Ingresses, IngressClasses and NetworkPolicies, one file each in this folder.
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage ingresses();
ResourceStorage ingressclasses();
ResourceStorage networkpolicies();

}  // namespace kapi::apis

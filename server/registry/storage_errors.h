#pragma once
// storage errors → the API errors kube-apiserver answers with (k8s.io/apiserver/pkg/registry/generic/registry
// interpretStorageError and storage/errors.go).
#include "server/apierrors/errors.h"
#include "server/registry/resource.h"
#include "storage/interface.h"

namespace kapi::registry {

// `operation` names the verb for errors that mention it ("get", "list", "create", ...).
apierrors::Status interpret_storage_error(const storage::StorageError& error, const ResourceDefinition& resource,
                                          std::string_view name, std::string_view operation);

inline constexpr std::string_view kObjectModifiedMessage =
    "the object has been modified; please apply your changes to the latest version and try again";

}  // namespace kapi::registry

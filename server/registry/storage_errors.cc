#include "server/registry/storage_errors.h"

namespace kapi::registry {

apierrors::Status interpret_storage_error(const storage::StorageError& error, const ResourceDefinition& resource,
                                          std::string_view name, std::string_view operation) {
  using storage::ErrorCode;
  switch (error.code()) {
    case ErrorCode::KeyNotFound:
      return apierrors::not_found(resource.group, resource.resource, name);
    case ErrorCode::KeyExists:
      return apierrors::already_exists(resource.group, resource.resource, name);
    case ErrorCode::ResourceVersionConflicts: {
      // A failed uid/resourceVersion precondition carries its own explanation; a lost race the standard one.
      std::string why = error.what();
      if (why.empty() || why.find("modified") != std::string::npos) why = kObjectModifiedMessage;
      return apierrors::conflict(resource.group, resource.resource, name, why);
    }
    case ErrorCode::InvalidArgument:
    case ErrorCode::InvalidObj:
      return apierrors::bad_request(error.what());
    case ErrorCode::Expired:
      return apierrors::resource_expired(error.what());
    case ErrorCode::TooLargeResourceVersion: {
      apierrors::Status status = apierrors::timeout(error.what(), 1);
      if (status.details) status.details->causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
      return status;
    }
    case ErrorCode::Timeout:
    case ErrorCode::Unreachable: {
      std::string qualified = resource.qualified_resource();
      apierrors::Status status{500, "ServerTimeout",
                               "The " + std::string(operation) + " operation against " + qualified +
                                   " could not be completed at this time, please try again.",
                               apierrors::StatusDetails{.name = std::string(operation), .group = resource.group,
                                                        .kind = resource.resource, .retry_after_seconds = 2}};
      return status;
    }
    case ErrorCode::Internal:
      break;
  }
  return apierrors::internal_error(error.what());
}

}  // namespace kapi::registry

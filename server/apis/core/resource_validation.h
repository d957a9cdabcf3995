#pragma once
// The validation of the core/v1 kinds whose rules live with their resource files (limitranges.cc,
// resourcequotas.cc, replicationcontrollers.cc, persistentvolumes.cc, persistentvolumeclaims.cc), as
// pkg/apis/core/validation names them; declared here for their unit tests. Metadata is checked by the Store.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apis::core {

validation::ErrorList validate_limit_range(const boost::json::object& limit_range);
validation::ErrorList validate_resource_quota(const boost::json::object& quota);
validation::ErrorList validate_resource_quota_update(const boost::json::object& quota, const boost::json::object& old);
validation::ErrorList validate_replication_controller(const boost::json::object& controller);
// ValidateReplicationControllerStatus, for writes of replicationcontrollers/status.
validation::ErrorList validate_replication_controller_status(const boost::json::object& controller);
validation::ErrorList validate_persistent_volume(const boost::json::object& volume);
validation::ErrorList validate_persistent_volume_update(const boost::json::object& volume,
                                                        const boost::json::object& old);
validation::ErrorList validate_persistent_volume_claim(const boost::json::object& claim);
validation::ErrorList validate_persistent_volume_claim_update(const boost::json::object& claim,
                                                              const boost::json::object& old);

}  // namespace kapi::apis::core

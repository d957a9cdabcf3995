#pragma once
// apiregistration.k8s.io/v1 APIService, as kube-aggregator's registry keeps it (pkg/registry/apiservice: the
// strategy, status strategy and table convertor; pkg/apis/apiregistration/validation; the v1 defaults): which
// server answers a group version, the local one (no spec.service) or an extension API server behind a Service.
// The aggregator serves it; this file only says what the resource is and how its writes are checked.
#include "server/registry/resource.h"
#include "server/registry/strategy.h"
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <memory>

namespace kapi::aggregator {

// Cluster-scoped "apiservices" (kind APIService, status subresource, category api-extensions), stored as kube
// stores it under /registry/apiregistration.k8s.io/apiservices/<name>.
registry::ResourceDefinition apiservices_definition();

// The strategy: on create the status is cleared and a local APIService is marked Available at once (kube's
// PrepareForCreate); an update keeps the stored status; the v1 default (spec.service.port 443) is applied on both;
// validation is ValidateAPIService and ValidateAPIServiceStatus; the printer is kube's (Name, Service, Available,
// Age).
std::shared_ptr<const registry::Strategy> apiservices_strategy();

// SetDefaults_ServiceReference: spec.service.port 443 when a service is given without one.
void apply_apiservice_defaults(boost::json::object& apiservice);
// ValidateAPIService beyond what the Store checks of ObjectMeta (the name as a path segment): the name must be
// "<spec.version>.<spec.group>", then the spec.
validation::ErrorList validate_apiservice(const boost::json::object& apiservice);
// ValidateAPIServiceStatus: each condition's status is True, False or Unknown.
validation::ErrorList validate_apiservice_status(const boost::json::object& apiservice);

}  // namespace kapi::aggregator

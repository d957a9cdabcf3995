#pragma once
// The ResourceQuota admission plugin's decision, apart from reading and writing quotas: kube's CheckRequest
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
#include "server/admission/attributes.h"
#include "server/plugin/admission/resourcequota/evaluators.h"

#include <boost/json/object.hpp>

#include <utility>
#include <vector>

namespace kapi::admission::quota {

// A limitedResources entry of the plugin's ResourceQuotaConfiguration: consuming such a resource (a usage name
// containing one of match_contains), or making a pod in one of match_scopes, needs a quota that covers it.
struct LimitedResource {
  std::string group;
  std::string resource;
  std::vector<std::string> match_contains;
  std::vector<ScopeRequirement> match_scopes;
};

// The limitedResources of the plugin's configuration (apiserver.config.k8s.io ResourceQuotaConfiguration).
std::vector<LimitedResource> limited_resources(const boost::json::value* configuration);

// A quota whose status.used the request changes, and its new usage.
struct QuotaCharge {
  std::size_t index;  // into the quotas checked
  ResourceList used;
};

// The charges `attributes` makes to `quotas` (the namespace's ResourceQuotas as stored); throws ApiError 403 when
// a quota refuses it (exceeded quota, constraints unmet, status unknown, negative usage).
std::vector<QuotaCharge> check_request(const std::vector<boost::json::object>& quotas, const Attributes& attributes,
                                       const Evaluator& evaluator, const std::vector<LimitedResource>& limited = {});

}  // namespace kapi::admission::quota

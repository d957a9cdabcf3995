#pragma once
// What quota counts for each kind of object: kube's quota evaluators (pkg/quota/v1/evaluator/core: pods,
// services, persistentvolumeclaims; k8s.io/apiserver/pkg/quota/v1/generic: the object-count evaluator) and how a
// quota's usage is summed over a namespace (quota.CalculateUsage, generic.CalculateUsageStats).
#include "server/admission/attributes.h"
#include "server/admission/plugin.h"
#include "server/plugin/admission/resourcequota/resources.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::quota {

// A ScopedResourceSelectorRequirement: spec.scopes become {scope, Exists}.
struct ScopeRequirement {
  std::string scope_name;
  std::string op;
  std::vector<std::string> values;
};

// getScopeSelectorsFromQuota: spec.scopes, then spec.scopeSelector.matchExpressions.
std::vector<ScopeRequirement> scope_requirements(const boost::json::object& quota);

class Evaluator {
 public:
  Evaluator(std::string group, std::string resource) : group_(std::move(group)), resource_(std::move(resource)) {}
  virtual ~Evaluator() = default;

  const std::string& group() const { return group_; }
  const std::string& resource() const { return resource_; }
  // Whether the request may change usage (Handles): creates, and the updates kube's evaluator charges for.
  virtual bool handles(const Attributes& attributes) const { return attributes.operation == Operation::Create; }
  // The resource names of `input` this evaluator measures (MatchingResources).
  virtual std::vector<std::string> matching_resources(const std::vector<std::string>& input) const = 0;
  // Whether `item` falls in a scope (MatchesScopeFunc); only pods have scopes.
  virtual bool matches_scope(const ScopeRequirement& /*scope*/, const boost::json::object& /*item*/) const {
    return false;
  }
  // The "must specify ..." message when `item` lacks what the quota's resources require (Constraints).
  virtual std::optional<std::string> constraints(const std::vector<std::string>& /*required*/,
                                                 const boost::json::object& /*item*/) const {
    return std::nullopt;
  }
  virtual ResourceList usage(const boost::json::object& item) const = 0;

 private:
  std::string group_;
  std::string resource_;
};

// "count/<resource>[.<group>]" (ObjectCountQuotaResourceNameFor).
std::string object_count_name(std::string_view group, std::string_view resource);

// The evaluator of a group/resource: pods, services and persistentvolumeclaims have their own, every other
// resource is counted (configmaps, secrets, replicationcontrollers and resourcequotas under their legacy names too).
std::unique_ptr<Evaluator> evaluator_for(std::string_view group, std::string_view resource);

// Resources quota never counts (install.DefaultIgnoredResources): virtual ones and events.
bool ignored_resource(std::string_view group, std::string_view resource);

// generic.Matches: the quota limits one of the evaluator's resources (in status.hard) and `item` is in every
// scope of the quota.
bool matches(const Evaluator& evaluator, const boost::json::object& quota, const boost::json::object& item);

// A quota's usage in its namespace, for the resources of spec.hard that kapi can measure (quota.CalculateUsage):
// each evaluator's usage summed over the objects of the namespace (read from the watch caches) in the quota's
// scopes. Resources whose objects are not served here are left out.
asio::awaitable<ResourceList> calculate_usage(const StoreLookup& stores, const boost::json::object& quota);

}  // namespace kapi::admission::quota

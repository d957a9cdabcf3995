#pragma once
// The ClusterRole aggregation controller (kube-controller-manager's pkg/controller/clusterroleaggregation), run
// inside kapi like the namespace controller: a ClusterRole with an aggregationRule holds the rules of every other
// ClusterRole its selectors match, in name order and without repeats. Any ClusterRole change makes every
// aggregated role recomputed; a role whose rules already agree is not written.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

// The rules `role` aggregates from `roles` (by name, `role` among them or not); std::nullopt when it has no
// aggregationRule or a selector does not convert.
std::optional<boost::json::array> aggregated_rules(const boost::json::object& role,
                                                   const std::map<std::string, boost::json::object>& roles);

class ClusterRoleAggregationController {
 public:
  ClusterRoleAggregationController(registry::Store& cluster_roles, base::Logger& logger,
                                   std::shared_ptr<const base::StopSignal> stopping);

  // Follows the cluster roles until `stopping` is requested.
  asio::awaitable<void> run();

 private:
  // Writes the aggregated roles whose stored rules differ from what they aggregate now.
  asio::awaitable<void> sync();

  registry::Store& cluster_roles_;
  base::Logger& logger_;
  std::shared_ptr<const base::StopSignal> stopping_;
  std::map<std::string, boost::json::object> roles_;  // by name, as the watch last told
};

}  // namespace kapi::controllers

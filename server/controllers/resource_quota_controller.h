#pragma once
// The resource quota controller (kube-controller-manager's pkg/controller/resourcequota), run inside kapi like the
// namespace controller: each ResourceQuota's status.hard follows spec.hard and status.used is recomputed from the
// objects of its namespace when the quota is created or its limits change, when an object it counts is deleted
// (or a pod finishes, a service or claim changes), and on a periodic full resync (kube's
// --resource-quota-sync-period, 5 minutes), which also catches what no event here reports (count/<resource> of
// other resources). Between those, the ResourceQuota admission plugin keeps status.used current on each create.
#include "base/stop_signal.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

class ResourceQuotaController {
 public:
  // What a quota's namespace uses now of the resources of its spec.hard that can be measured (quota.CalculateUsage),
  // as a status.used map; given by the layer that knows the quota evaluators.
  using Usage = std::function<asio::awaitable<boost::json::object>(const boost::json::object& quota)>;

  // `counted`: the resources whose deletions and changes make their namespace's quotas recomputed.
  ResourceQuotaController(registry::Store& quotas, std::vector<registry::Store*> counted, Usage usage,
                          base::Logger& logger, std::shared_ptr<const base::StopSignal> stopping,
                          std::chrono::seconds resync_period = std::chrono::minutes(5));

  // Follows the quotas and counted resources until `stopping` is requested; everything runs on one strand.
  asio::awaitable<void> run();

  // The status a quota should have given its namespace's measured usage (status.used merged with `measured`,
  // masked to spec.hard; status.hard = spec.hard), as syncResourceQuota computes it.
  static boost::json::object status_for(const boost::json::object& quota, const boost::json::object& measured);

 private:
  asio::awaitable<void> follow_quotas();
  asio::awaitable<void> follow_counted(registry::Store& store);
  asio::awaitable<void> resync_periodically();
  asio::awaitable<void> sync_namespace(const std::string& namespace_);
  // Writes the quota's status if it differs from the one computed now; retried when the quota changed meanwhile.
  asio::awaitable<void> sync(boost::json::object quota);

  registry::Store& quotas_;
  std::vector<registry::Store*> counted_;
  Usage usage_;
  base::Logger& logger_;
  std::shared_ptr<const base::StopSignal> stopping_;
  std::chrono::seconds resync_period_;
  // namespace → name → quota, as the watch last told (touched only on the controller's strand).
  std::map<std::string, std::map<std::string, boost::json::object>> quotas_by_namespace_;
};

}  // namespace kapi::controllers

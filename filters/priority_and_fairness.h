#pragma once
// WithPriorityAndFairness (kube's pkg/server/filters/priority-and-fairness.go): each request is classified by the
// FlowSchemas into a priority level and waits there for its seats, at most a quarter of its deadline (15 s when it
// has none, never more than a minute); a request that is refused gets 429 with a Retry-After that grows while its
// level keeps refusing. Responses name the
// FlowSchema and priority level by UID in X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID.
// A WATCH holds its seats only until its response starts; other long-running requests are not limited.
// kapi's addition: a request admitted to a limited level runs in its reactor's low-priority lane, behind exempt
// work (server/http/low_priority_lane.h); kube's Go scheduler has no such order, so its exempt requests wait
// behind executing ones for CPU.
#include "filters/filter.h"
#include "server/flowcontrol/controller.h"
#include "server/flowcontrol/dropped_requests.h"
#include "server/metrics/registry.h"

#include <memory>

namespace kapi::filters {

class PriorityAndFairnessFilter final : public Filter {
 public:
  PriorityAndFairnessFilter(std::shared_ptr<flowcontrol::Controller> controller, metrics::Registry& metrics)
      : controller_(std::move(controller)), metrics_(metrics) {}
  std::string_view name() const override { return "priorityandfairness"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override;

 private:
  std::shared_ptr<flowcontrol::Controller> controller_;
  metrics::Registry& metrics_;
  flowcontrol::DroppedRequestsTracker dropped_;
};

}  // namespace kapi::filters

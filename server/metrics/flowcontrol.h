#pragma once
// API priority and fairness metrics with kube-apiserver's names (k8s.io/apiserver/pkg/util/flowcontrol/metrics).
#include "server/metrics/families.h"

namespace kapi::metrics {

struct FlowControlFamilies {
  FlowControlFamilies();
  void render(std::string& out) const;

  CounterFamily dispatched_requests;   // apiserver_flowcontrol_dispatched_requests_total
  CounterFamily rejected_requests;     // apiserver_flowcontrol_rejected_requests_total
  GaugeFamily current_inqueue_requests;     // apiserver_flowcontrol_current_inqueue_requests
  GaugeFamily current_executing_requests;   // apiserver_flowcontrol_current_executing_requests
  GaugeFamily current_executing_seats;      // apiserver_flowcontrol_current_executing_seats
  HistogramFamily request_wait_duration;    // apiserver_flowcontrol_request_wait_duration_seconds
  HistogramFamily request_execution;        // apiserver_flowcontrol_request_execution_seconds
  HistogramFamily work_estimated_seats;     // apiserver_flowcontrol_work_estimated_seats
  GaugeFamily nominal_limit_seats;          // apiserver_flowcontrol_nominal_limit_seats
  GaugeFamily current_limit_seats;          // apiserver_flowcontrol_current_limit_seats
  GaugeFamily lower_limit_seats;            // apiserver_flowcontrol_lower_limit_seats
  GaugeFamily upper_limit_seats;            // apiserver_flowcontrol_upper_limit_seats
};

}  // namespace kapi::metrics

#include "server/metrics/flowcontrol.h"

namespace kapi::metrics {
namespace {

const std::vector<std::string> kFlowLabels = {"flow_schema", "priority_level"};

}  // namespace

FlowControlFamilies::FlowControlFamilies()
    : dispatched_requests("apiserver_flowcontrol_dispatched_requests_total",
                          "[BETA] Number of requests executed by API Priority and Fairness subsystem", kFlowLabels),
      rejected_requests("apiserver_flowcontrol_rejected_requests_total",
                        "[BETA] Number of requests rejected by API Priority and Fairness subsystem",
                        {"flow_schema", "priority_level", "reason"}),
      current_inqueue_requests("apiserver_flowcontrol_current_inqueue_requests",
                               "[BETA] Number of requests currently pending in queues of the API Priority and "
                               "Fairness subsystem",
                               kFlowLabels),
      current_executing_requests("apiserver_flowcontrol_current_executing_requests",
                                 "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) "
                                 "execution stage in the API Priority and Fairness subsystem",
                                 kFlowLabels),
      current_executing_seats("apiserver_flowcontrol_current_executing_seats",
                              "[BETA] Concurrency (number of seats) occupied by the currently executing (initial "
                              "stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness "
                              "subsystem",
                              kFlowLabels),
      request_wait_duration("apiserver_flowcontrol_request_wait_duration_seconds",
                            "[BETA] Length of time a request spent waiting in its queue",
                            {"execute", "flow_schema", "priority_level"},
                            {0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}),
      request_execution("apiserver_flowcontrol_request_execution_seconds",
                        "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request "
                        "execution in the API Priority and Fairness subsystem",
                        {"flow_schema", "priority_level", "type"},
                        {0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}),
      work_estimated_seats("apiserver_flowcontrol_work_estimated_seats",
                           "[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with "
                           "requests in API Priority and Fairness",
                           kFlowLabels, {1, 2, 4, 10}),
      nominal_limit_seats("apiserver_flowcontrol_nominal_limit_seats",
                          "[BETA] Nominal number of execution seats configured for each priority level",
                          {"priority_level"}),
      current_limit_seats("apiserver_flowcontrol_current_limit_seats",
                          "[ALPHA] current derived number of execution seats available to each priority level",
                          {"priority_level"}),
      lower_limit_seats("apiserver_flowcontrol_lower_limit_seats",
                        "[ALPHA] Configured lower bound on number of execution seats available to each priority "
                        "level",
                        {"priority_level"}),
      upper_limit_seats("apiserver_flowcontrol_upper_limit_seats",
                        "[ALPHA] Configured upper bound on number of execution seats available to each priority "
                        "level",
                        {"priority_level"}) {}

void FlowControlFamilies::render(std::string& out) const {
  dispatched_requests.render(out);
  rejected_requests.render(out);
  current_inqueue_requests.render(out);
  current_executing_requests.render(out);
  current_executing_seats.render(out);
  request_wait_duration.render(out);
  request_execution.render(out);
  work_estimated_seats.render(out);
  nominal_limit_seats.render(out);
  current_limit_seats.render(out);
  lower_limit_seats.render(out);
  upper_limit_seats.render(out);
}

}  // namespace kapi::metrics

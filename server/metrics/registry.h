#pragma once
// Prometheus metrics with kube-apiserver's names, exposed as text on /metrics. One registry per server
// (no globals); every family is safe to update from any reactor thread.
#include "server/metrics/authentication.h"
#include "server/metrics/authorization.h"
#include "server/metrics/families.h"
#include "server/metrics/flowcontrol.h"

#include <string>

namespace kapi::metrics {

// The families kapi's filters and handlers record into.
class Registry {
 public:
  Registry();
  std::string render() const;

  CounterFamily request_total;             // apiserver_request_total
  HistogramFamily request_duration;        // apiserver_request_duration_seconds
  GaugeFamily current_inflight;            // apiserver_current_inflight_requests
  HistogramFamily filter_duration;         // apiserver_request_filter_duration_seconds
  CounterFamily dropped_requests;          // apiserver_dropped_requests_total
  CounterFamily request_terminations;      // apiserver_request_terminations_total
  CounterFamily panics;                    // apiserver_request_aborts_total
  CounterFamily audit_events;              // apiserver_audit_event_total
  CounterFamily audit_errors;              // apiserver_audit_error_total
  CounterFamily audit_levels;              // apiserver_audit_level_total
  CounterFamily audit_requests_rejected;   // apiserver_audit_requests_rejected_total
  FlowControlFamilies flowcontrol;         // apiserver_flowcontrol_*
  AuthenticationFamilies authentication;   // the token cache, JWT authenticators, --authentication-config reloads
  AuthorizationFamilies authorization;     // decisions, webhooks, --authorization-config reloads
  GaugeFamily unavailable_apiservice;      // aggregator_unavailable_apiservice
  CounterFamily unavailable_apiservice_total;  // aggregator_unavailable_apiservice_total
  HistogramFamily admission_step_duration;        // apiserver_admission_step_admission_duration_seconds
  HistogramFamily admission_controller_duration;  // apiserver_admission_controller_admission_duration_seconds
  HistogramFamily admission_webhook_duration;     // apiserver_admission_webhook_admission_duration_seconds
  CounterFamily admission_webhook_rejections;     // apiserver_admission_webhook_rejection_count
  CounterFamily admission_webhook_requests;       // apiserver_admission_webhook_request_total
  CounterFamily admission_webhook_fail_open;      // apiserver_admission_webhook_fail_open_count
  CounterFamily match_condition_errors;           // apiserver_admission_match_condition_evaluation_errors_total
  CounterFamily match_condition_exclusions;       // apiserver_admission_match_condition_exclusions_total
  HistogramFamily match_condition_duration;       // apiserver_admission_match_condition_evaluation_seconds
  CounterFamily policy_checks;                    // apiserver_validating_admission_policy_check_total
  HistogramFamily policy_check_duration;          // apiserver_validating_admission_policy_check_duration_seconds
  CounterFamily pod_security_evaluations;        // pod_security_evaluations_total
  CounterFamily pod_security_exemptions;         // pod_security_exemptions_total
  CounterFamily pod_security_errors;             // pod_security_errors_total
  // The in-process controller manager's (kube-controller-manager's names).
  GaugeFamily leader_election_master_status;      // leader_election_master_status
  GaugeFamily running_managed_controllers;        // running_managed_controllers
  CounterFamily root_ca_cert_publisher_syncs;     // root_ca_cert_publisher_sync_total
};

}  // namespace kapi::metrics

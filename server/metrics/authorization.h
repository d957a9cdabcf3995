#pragma once
// Authorization metrics with kube-apiserver 1.32's names, labels and buckets: each authorizer's terminal decisions
// (k8s.io/apiserver/pkg/authorization/metrics), the webhook authorizer's round-trips
// (plugin/pkg/authorizer/webhook/metrics), its match conditions (pkg/authorization/cel/metrics.go) and the reloads
// of --authorization-config (pkg/server/options/authorizationconfig/metrics). Label names are listed sorted, as
// Prometheus writes them.
#include "server/metrics/families.h"

#include <string>

namespace kapi::metrics {

struct AuthorizationFamilies {
  AuthorizationFamilies();
  void render(std::string& out) const;

  CounterFamily decisions;                        // apiserver_authorization_decisions_total {decision,name,type}
  CounterFamily webhook_evaluations;              // apiserver_authorization_webhook_evaluations_total {name,result}
  HistogramFamily webhook_duration;               // apiserver_authorization_webhook_duration_seconds {name,result}
  CounterFamily webhook_fail_open;                // apiserver_authorization_webhook_evaluations_fail_open_total
  CounterFamily match_condition_errors;           // apiserver_authorization_match_condition_evaluation_errors_total
  CounterFamily match_condition_exclusions;       // apiserver_authorization_match_condition_exclusions_total
  HistogramFamily match_condition_duration;       // apiserver_authorization_match_condition_evaluation_seconds
  CounterFamily config_reloads;                   // apiserver_authorization_config_controller_automatic_reloads_total
  GaugeFamily config_reload_timestamp;  // apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds
};

}  // namespace kapi::metrics

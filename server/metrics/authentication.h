#pragma once
// Authentication metrics with kube-apiserver 1.32's names, labels and buckets: the token cache's
// (k8s.io/apiserver/pkg/authentication/token/cache/stats.go), the JWT authenticator's latency
// (plugin/pkg/authenticator/token/oidc/metrics.go) and the reloads of --authentication-config
// (pkg/server/options/authenticationconfig/metrics). Label names are listed sorted, as Prometheus writes them.
#include "server/metrics/families.h"

#include <string>

namespace kapi::metrics {

struct AuthenticationFamilies {
  AuthenticationFamilies();
  void render(std::string& out) const;

  CounterFamily token_cache_requests;            // authentication_token_cache_request_total {status}
  HistogramFamily token_cache_request_duration;  // authentication_token_cache_request_duration_seconds {status}
  CounterFamily token_cache_fetches;             // authentication_token_cache_fetch_total {status}
  GaugeFamily token_cache_active_fetches;        // authentication_token_cache_active_fetch_count {status}
  HistogramFamily jwt_authenticator_latency;     // apiserver_authentication_jwt_authenticator_latency_seconds
  CounterFamily config_reloads;                  // apiserver_authentication_config_controller_automatic_reloads_total
  GaugeFamily config_reload_timestamp;  // apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds
};

}  // namespace kapi::metrics

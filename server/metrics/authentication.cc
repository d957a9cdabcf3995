#include "server/metrics/authentication.h"

namespace kapi::metrics {
namespace {

// prometheus.DefBuckets.
const std::vector<double> kDefaultBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

}  // namespace

AuthenticationFamilies::AuthenticationFamilies()
    // stats.go gives these no help text: component-base still prefixes the stability level.
    : token_cache_requests("authentication_token_cache_request_total", "[ALPHA] ", {"status"}),
      token_cache_request_duration("authentication_token_cache_request_duration_seconds", "[ALPHA] ", {"status"},
                                   kDefaultBuckets),
      token_cache_fetches("authentication_token_cache_fetch_total", "[ALPHA] ", {"status"}),
      token_cache_active_fetches("authentication_token_cache_active_fetch_count", "[ALPHA] ", {"status"}),
      jwt_authenticator_latency("apiserver_authentication_jwt_authenticator_latency_seconds",
                                "[ALPHA] Latency of jwt authentication operations in seconds. This is the time spent "
                                "authenticating a token for cache miss only (i.e. when the token is not found in the "
                                "cache).",
                                {"jwt_issuer_hash", "result"},
                                {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      config_reloads("apiserver_authentication_config_controller_automatic_reloads_total",
                     "[ALPHA] Total number of automatic reloads of authentication configuration split by status and "
                     "apiserver identity.",
                     {"apiserver_id_hash", "status"}),
      config_reload_timestamp("apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds",
                              "[ALPHA] Timestamp of the last automatic reload of authentication configuration split "
                              "by status and apiserver identity.",
                              {"apiserver_id_hash", "status"}) {}

void AuthenticationFamilies::render(std::string& out) const {
  token_cache_requests.render(out);
  token_cache_request_duration.render(out);
  token_cache_fetches.render(out);
  token_cache_active_fetches.render(out);
  jwt_authenticator_latency.render(out);
  config_reloads.render(out);
  config_reload_timestamp.render(out);
}

}  // namespace kapi::metrics

#include "filters/chain.h"

#include "filters/audit.h"
#include "filters/audit_id.h"
#include "filters/authentication.h"
#include "filters/authorization.h"
#include "filters/cache_control.h"
#include "filters/cors.h"
#include "filters/hsts.h"
#include "filters/http_log.h"
#include "filters/impersonation.h"
#include "filters/latency_tracker.h"
#include "filters/max_in_flight.h"
#include "filters/panic_recovery.h"
#include "filters/priority_and_fairness.h"
#include "filters/probabilistic_goaway.h"
#include "filters/received_timestamp.h"
#include "filters/request_deadline.h"
#include "filters/request_info.h"
#include "filters/timeout.h"
#include "filters/wait_group.h"
#include "filters/warning_recorder.h"

namespace kapi::filters {

Chain build_handler_chain(const ChainConfig& config, Handler servers) {
  std::vector<std::unique_ptr<Filter>> stages;
  stages.push_back(std::make_unique<AuditIdFilter>());
  stages.push_back(std::make_unique<PanicRecoveryFilter>(config.logger, config.metrics));
  stages.push_back(std::make_unique<ReceivedTimestampFilter>());
  stages.push_back(std::make_unique<RequestInfoFilter>(config.long_running));
  stages.push_back(std::make_unique<LatencyTrackerFilter>(config.metrics));
  stages.push_back(std::make_unique<HttpLogFilter>(config.logger));
  stages.push_back(std::make_unique<HstsFilter>(config.hsts_directives));
  stages.push_back(std::make_unique<CacheControlFilter>());
  stages.push_back(std::make_unique<WarningRecorderFilter>());
  if (config.goaway_chance > 0) stages.push_back(std::make_unique<ProbabilisticGoawayFilter>(config.goaway_chance));
  stages.push_back(std::make_unique<WaitGroupFilter>(config.lifecycle));
  stages.push_back(std::make_unique<RequestDeadlineFilter>(config.request_timeout));
  stages.push_back(std::make_unique<TimeoutFilter>(config.metrics));
  if (!config.cors_allowed_origins.empty()) stages.push_back(std::make_unique<CorsFilter>(config.cors_allowed_origins));
  stages.push_back(std::make_unique<AuthenticationFilter>(
      config.authenticator,
      with_failed_authentication_audit(AuthenticationFilter::write_unauthorized, config.audit, config.metrics),
      &config.logger));
  stages.push_back(std::make_unique<AuditFilter>(config.audit, config.metrics));
  stages.push_back(std::make_unique<ImpersonationFilter>(config.authorizer));
  if (config.priority_and_fairness)
    stages.push_back(std::make_unique<PriorityAndFairnessFilter>(config.priority_and_fairness, config.metrics));
  else
    stages.push_back(std::make_unique<MaxInFlightFilter>(config.max_requests_inflight,
                                                         config.max_mutating_requests_inflight, config.metrics));
  stages.push_back(std::make_unique<AuthorizationFilter>(config.authorizer));
  return Chain(std::move(stages), std::move(servers));
}

}  // namespace kapi::filters

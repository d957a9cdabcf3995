#pragma once
// DefaultBuildHandlerChain: the one place that orders the common filter stages, outermost first.
#include "base/log.h"
#include "filters/audit.h"
#include "filters/filter.h"
#include "filters/long_running.h"
#include "server/lifecycle.h"
#include "server/authentication/request_authenticator.h"
#include "server/authorization/modes.h"
#include "server/metrics/registry.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kapi::flowcontrol {
class Controller;
}

namespace kapi::filters {

struct ChainConfig {
  ChainConfig(base::Logger& logger, metrics::Registry& metrics, server::Lifecycle& lifecycle)
      : logger(logger), metrics(metrics), lifecycle(lifecycle) {}
  base::Logger& logger;
  metrics::Registry& metrics;
  server::Lifecycle& lifecycle;
  LongRunningCheck long_running;
  // Who sent each request; by default client certificates, then anonymous.
  std::shared_ptr<const authentication::RequestAuthenticator> authenticator =
      authentication::RequestAuthenticator::build({});
  // Who may do what; by default everyone everything (kube-apiserver's --authorization-mode=AlwaysAllow).
  std::shared_ptr<const authorization::Authorizer> authorizer = authorization::build_authorizer({"AlwaysAllow"});
  // The audit policy and sink (--audit-policy-file, --audit-log-path); by default nothing is audited.
  AuditSettings audit;
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(60);
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  // API priority and fairness in place of max-in-flight (--enable-priority-and-fairness); none: max-in-flight.
  std::shared_ptr<flowcontrol::Controller> priority_and_fairness;
  std::vector<std::string> cors_allowed_origins;
  std::vector<std::string> hsts_directives;
  double goaway_chance = 0;  // --goaway-chance, where HTTP/2 is served
};

Chain build_handler_chain(const ChainConfig& config, Handler servers);

}  // namespace kapi::filters

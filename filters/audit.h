#pragma once
// WithAudit and WithFailedAuthenticationAudit (k8s.io/apiserver/pkg/endpoints/filters/audit.go, authn_audit.go):
// the audit policy decides each request's level; above None the request's events go to the sink —
// RequestReceived as it arrives, ResponseStarted when a long-running response (a watch) begins, ResponseComplete
// when it is done, Panic when an exception escapes the handler — unless the policy omits the stage.
//
// The stage runs after authentication and before impersonation, as kube's: the event's `user` is who sent the
// request, and its `impersonatedUser`, the authorization annotations and the response are read from the exchange
// when the later stages have filled them in.
#include "filters/filter.h"
#include "server/audit/log_backend.h"
#include "server/audit/policy.h"
#include "server/metrics/registry.h"

#include <memory>

namespace kapi::filters {

// What the audit stages need; without a policy or a sink nothing is audited (kube's "no audit when no policy or no
// backend").
struct AuditSettings {
  std::shared_ptr<const audit::Policy> policy;
  std::shared_ptr<audit::Sink> sink;
  bool enabled() const { return policy && sink; }
};

class AuditFilter final : public Filter {
 public:
  AuditFilter(AuditSettings settings, metrics::Registry& metrics)
      : settings_(std::move(settings)), metrics_(metrics) {}
  std::string_view name() const override { return "audit"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override;

 private:
  AuditSettings settings_;
  metrics::Registry& metrics_;
};

// Wraps the handler that answers a failed authentication (the 401) so that, when the policy's level for the
// request is above None, one ResponseStarted event with an empty user and kube's "Authentication failed, ..."
// message is recorded. Returns `unauthorized` itself when auditing is off.
Handler with_failed_authentication_audit(Handler unauthorized, AuditSettings settings, metrics::Registry& metrics);

}  // namespace kapi::filters

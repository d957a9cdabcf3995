#pragma once
// WithAudit and WithFailedAuthenticationAudit (k8s.io/apiserver/pkg/endpoints/filters/audit.go, authn_audit.go):
// the audit policy decides each request's level; above None the request's events go to the sink —
// RequestReceived as it arrives, ResponseStarted when a long-running response (a watch) begins, ResponseComplete
// when it is done, Panic when an exception escapes the handler — unless the policy omits the stage.
//
// The stage runs after authentication and before impersonation, as kube's: the event's `user` is who sent the
// request, and its `impersonatedUser`, the authorization annotations and the response are read from the exchange
// when the later stages have filled them in.
//
// Each stage's event is awaited by the backend (see server/audit/backend.h: at once when buffered, written first
// when blocking). A RequestReceived event a blocking-strict backend could not store fails the request with 500
// "failed to store audit event" (apiserver_audit_requests_rejected_total), as kube's.
#include "filters/filter.h"
#include "server/audit/backend.h"
#include "server/audit/policy.h"
#include "server/metrics/registry.h"

#include <memory>

namespace kapi::filters {

// What the audit stages need; without a policy or a backend nothing is audited (kube's "no audit when no policy or
// no backend").
struct AuditSettings {
  std::shared_ptr<const audit::Policy> policy;
  std::shared_ptr<audit::Backend> backend;
  bool enabled() const { return policy && backend; }
};

class AuditFilter final : public Filter {
 public:
  AuditFilter(AuditSettings settings, metrics::Registry& metrics)
      : settings_(std::move(settings)), metrics_(metrics) {}
  std::string_view name() const override { return "audit"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override;

 private:
  // A request the policy audits: its events sent at each stage around the rest of the chain.
  asio::awaitable<void> audited(Exchange& exchange, Next next, authorization::Attributes attributes,
                                audit::RequestAuditConfig config) const;

  AuditSettings settings_;
  metrics::Registry& metrics_;
};

// Wraps the handler that answers a failed authentication (the 401) so that, when the policy's level for the
// request is above None, one ResponseStarted event with an empty user and kube's "Authentication failed, ..."
// message is recorded. Returns `unauthorized` itself when auditing is off.
Handler with_failed_authentication_audit(Handler unauthorized, AuditSettings settings, metrics::Registry& metrics);

}  // namespace kapi::filters

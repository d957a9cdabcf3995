#include "server/metrics/registry.h"

#include <cstdint>
#include <cstddef>
#include <optional>

// jemalloc's control interface, when kapi-apiserver links jemalloc (meson.build); null in builds without it (the
// sanitizer builds, the tests), which then report no allocator figures.
extern "C" int mallctl(const char* name, void* old_value, std::size_t* old_length, void* new_value,
                       std::size_t new_length) __attribute__((weak));

namespace kapi::metrics {
namespace {

// Allocations requested from jemalloc since the process started, small and large, every thread's cache included
// (jemalloc merges its thread caches' counts when its statistics epoch is advanced). The bench divides its
// difference over a run by the requests served: the allocations per request.
std::optional<std::uint64_t> allocator_requests() {
  if (mallctl == nullptr) return std::nullopt;
  std::uint64_t epoch = 1;
  std::size_t length = sizeof epoch;
  if (mallctl("epoch", &epoch, &length, &epoch, sizeof epoch) != 0) return std::nullopt;
  std::uint64_t total = 0;
  for (const char* name : {"stats.arenas.4096.small.nrequests", "stats.arenas.4096.large.nrequests"}) {
    std::uint64_t count = 0;  // 4096: MALLCTL_ARENAS_ALL, every arena merged
    length = sizeof count;
    if (mallctl(name, &count, &length, nullptr, 0) != 0) return std::nullopt;
    total += count;
  }
  return total;
}

void render_allocator(std::string& out) {
  const auto requests = allocator_requests();
  if (!requests) return;
  out += "# HELP kapi_allocator_allocations_total Allocations requested from the memory allocator (jemalloc) since "
         "the process started.\n# TYPE kapi_allocator_allocations_total counter\nkapi_allocator_allocations_total ";
  out += std::to_string(*requests);
  out += '\n';
}

}  // namespace

Registry::Registry()
    : request_total("apiserver_request_total",
                    "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, "
                    "resource, scope, component, and HTTP response code.",
                    {"code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"}),
      request_duration("apiserver_request_duration_seconds",
                       "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, "
                       "version, resource, subresource, scope and component.",
                       {"component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"},
                       {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20,
                        30, 45, 60}),
      current_inflight("apiserver_current_inflight_requests",
                       "[STABLE] Maximal number of currently used inflight request limit of this apiserver per "
                       "request kind in last second.",
                       {"request_kind"}),
      filter_duration("apiserver_request_filter_duration_seconds",
                      "[ALPHA] Request filter latency distribution in seconds, for each filter type",
                      {"filter"}, {0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 5.0, 10.0, 15.0, 30.0}),
      dropped_requests("apiserver_dropped_requests_total",
                       "[ALPHA] Number of requests dropped with 'Try again later' response.", {"request_kind"}),
      request_terminations("apiserver_request_terminations_total",
                           "[ALPHA] Number of requests which apiserver terminated in self-defense.",
                           {"code", "component", "group", "resource", "scope", "subresource", "verb", "version"}),
      panics("apiserver_request_aborts_total",
             "[ALPHA] Number of requests which apiserver aborted possibly due to a timeout, for each group, version, "
             "verb, resource, subresource and scope",
             {"group", "resource", "scope", "subresource", "verb", "version"}),
      audit_events("apiserver_audit_event_total",
                   "[ALPHA] Counter of audit events generated and sent to the audit backend.", {}),
      audit_errors("apiserver_audit_error_total",
                   "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin "
                   "affected by the error.",
                   {"plugin"}),
      audit_levels("apiserver_audit_level_total",
                   "[ALPHA] Counter of policy levels for audit events (1 per request).", {"level"}),
      audit_requests_rejected("apiserver_audit_requests_rejected_total",
                              "[ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.",
                              {}),
      unavailable_apiservice("aggregator_unavailable_apiservice",
                             "[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService "
                             "name.",
                             {"name"}),
      unavailable_apiservice_total("aggregator_unavailable_apiservice_total",
                                   "[ALPHA] Counter of APIServices which are marked as unavailable broken down by "
                                   "APIService name and reason.",
                                   {"name", "reason"}),
      admission_step_duration("apiserver_admission_step_admission_duration_seconds",
                              "[STABLE] Admission sub-step latency histogram in seconds, broken out for each "
                              "operation and API resource and step type (validate or admit).",
                              {"operation", "rejected", "type"}, {0.005, 0.025, 0.1, 0.5, 1.0, 2.5}),
      admission_controller_duration("apiserver_admission_controller_admission_duration_seconds",
                                    "[STABLE] Admission controller latency histogram in seconds, identified by name "
                                    "and broken out for each operation and API resource and type (validate or "
                                    "admit).",
                                    {"name", "operation", "rejected", "type"}, {0.005, 0.025, 0.1, 0.5, 1.0, 2.5}),
      admission_webhook_duration("apiserver_admission_webhook_admission_duration_seconds",
                                 "[STABLE] Admission webhook latency histogram in seconds, identified by name and "
                                 "broken out for each operation and API resource and type (validate or admit).",
                                 {"name", "operation", "rejected", "type"},
                                 {0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}),
      admission_webhook_rejections("apiserver_admission_webhook_rejection_count",
                                   "[ALPHA] Admission webhook rejection count, identified by name and broken out for "
                                   "each admission type (validating or admit) and operation. Additional labels "
                                   "specify an error type (calling_webhook_error or apiserver_internal_error if an "
                                   "error occurred; no_error otherwise) and optionally a non-zero rejection code if "
                                   "the webhook rejects the request with an HTTP status code (honored by the "
                                   "apiserver when the code is greater or equal to 400). Codes greater than 600 "
                                   "are truncated to 600, to keep the metrics cardinality bounded.",
                                   {"error_type", "name", "operation", "rejection_code", "type"}),
      admission_webhook_requests("apiserver_admission_webhook_request_total",
                                 "[ALPHA] Admission webhook request total, identified by name and broken out for "
                                 "each admission type (validating or mutating) and operation. Additional labels "
                                 "specify whether the request was rejected or not and an HTTP status code. Codes "
                                 "greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
                                 {"code", "name", "operation", "rejected", "type"}),
      admission_webhook_fail_open("apiserver_admission_webhook_fail_open_count",
                                  "[ALPHA] Admission webhook fail open count, identified by name and broken out for "
                                  "each admission type (validating or mutating).",
                                  {"name", "type"}),
      match_condition_errors("apiserver_admission_match_condition_evaluation_errors_total",
                             "[ALPHA] Admission match condition evaluation errors count, identified by name of "
                             "resource containing the match condition and broken out for each kind containing "
                             "matchConditions (webhook or policy), operation and admission type (validate or admit).",
                             {"kind", "name", "operation", "type"}),
      match_condition_exclusions("apiserver_admission_match_condition_exclusions_total",
                                 "[ALPHA] Admission match condition evaluation exclusions count, identified by name "
                                 "of resource containing the match condition and broken out for each kind "
                                 "containing matchConditions (webhook or policy), operation and admission type "
                                 "(validate or admit).",
                                 {"kind", "name", "operation", "type"}),
      match_condition_duration("apiserver_admission_match_condition_evaluation_seconds",
                               "[ALPHA] Admission match condition evaluation time in seconds, identified by name and "
                               "broken out for each kind containing matchConditions (webhook or policy), operation "
                               "and type (validate or admit).",
                               {"kind", "name", "operation", "type"}, {0.005, 0.025, 0.1, 0.5, 1.0, 2.5}),
      policy_checks("apiserver_validating_admission_policy_check_total",
                    "[BETA] Validation admission policy check total, labeled by policy and further identified by "
                    "binding and enforcement action taken.",
                    {"enforcement_action", "error_type", "policy", "policy_binding"}),
      policy_check_duration("apiserver_validating_admission_policy_check_duration_seconds",
                            "[BETA] Validation admission latency for individual validation expressions in seconds, "
                            "labeled by policy and further including binding and enforcement action taken.",
                            {"enforcement_action", "error_type", "policy", "policy_binding"},
                            {0.0000005, 0.001, 0.01, 0.1, 1.0}),
      pod_security_evaluations("pod_security_evaluations_total",
                               "[ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt "
                               "requests.",
                               {"decision", "mode", "policy_level", "policy_version", "request_operation", "resource",
                                "subresource"}),
      pod_security_exemptions("pod_security_exemptions_total",
                              "[ALPHA] Number of exempt requests, not counting ignored or out of scope requests.",
                              {"request_operation", "resource", "subresource"}),
      pod_security_errors("pod_security_errors_total",
                          "[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the "
                          "latest restricted profile being used for evaluation.",
                          {"fatal", "request_operation", "resource", "subresource"}),
      leader_election_master_status("leader_election_master_status",
                                    "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 "
                                    "indicates backup, 1 indicates master. 'name' is the string used to identify the "
                                    "lease. Please make sure to group by name.",
                                    {"name"}),
      running_managed_controllers("running_managed_controllers",
                                  "[ALPHA] Indicates where instances of a controller are currently running",
                                  {"name", "manager"}),
      root_ca_cert_publisher_syncs("root_ca_cert_publisher_sync_total",
                                   "[ALPHA] Number of namespace syncs happened in root ca cert publisher.", {"code"}) {
  current_inflight.set({"mutating"}, 0);
  current_inflight.set({"readOnly"}, 0);
}

std::string Registry::render() const {
  std::string out;
  request_total.render(out);
  request_duration.render(out);
  current_inflight.render(out);
  filter_duration.render(out);
  dropped_requests.render(out);
  request_terminations.render(out);
  panics.render(out);
  audit_events.render(out);
  audit_errors.render(out);
  audit_levels.render(out);
  audit_requests_rejected.render(out);
  flowcontrol.render(out);
  authentication.render(out);
  authorization.render(out);
  unavailable_apiservice.render(out);
  unavailable_apiservice_total.render(out);
  admission_step_duration.render(out);
  admission_controller_duration.render(out);
  admission_webhook_duration.render(out);
  admission_webhook_rejections.render(out);
  admission_webhook_requests.render(out);
  admission_webhook_fail_open.render(out);
  match_condition_errors.render(out);
  match_condition_exclusions.render(out);
  match_condition_duration.render(out);
  policy_checks.render(out);
  policy_check_duration.render(out);
  pod_security_evaluations.render(out);
  pod_security_exemptions.render(out);
  pod_security_errors.render(out);
  leader_election_master_status.render(out);
  running_managed_controllers.render(out);
  root_ca_cert_publisher_syncs.render(out);
  render_allocator(out);
  return out;
}

}  // namespace kapi::metrics

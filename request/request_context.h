#pragma once
// What the filter chain learns about a request as it passes through, for the stages and handlers after it:
// the role of the values k8s.io/apiserver/pkg/endpoints/request keeps in a Go context.
#include "request/request_info_resolver.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::request {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct RequestContext {
  std::string audit_id;
  std::chrono::system_clock::time_point received_at{};
  std::chrono::steady_clock::time_point received_steady{};
  std::optional<RequestInfo> request_info;
  bool long_running = false;
  std::optional<UserInfo> user;
  // Who really sent the request when it acts as `user` through Impersonate-* headers (kube's audit records both).
  std::optional<UserInfo> impersonated_by;
  // Where the request deadline filter put the end of this request's time (none for long-running requests).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::vector<std::string> warnings;  // sent as `Warning: 299 - "..."` headers
  // The request has an audit event (the policy's level for it is above None). The filter chain's own annotations
  // are added only then, as audit.AddAuditAnnotation does nothing without an event.
  bool audited = false;
  // Annotations for the request's audit event (audit.AddAuditAnnotation), e.g. authorization.k8s.io/decision.
  std::map<std::string, std::string> audit_annotations;
  // The request's audit level records request bodies (Request or RequestResponse): annotations kube adds only at
  // that level (AddAnnotationWithLevel, e.g. a webhook's patch) are kept.
  bool audit_records_requests = false;
  // Time spent in each filter stage up to the handler, for apiserver_request_filter_duration_seconds.
  std::vector<std::pair<std::string_view, std::chrono::steady_clock::duration>> filter_latencies;
  std::chrono::steady_clock::time_point stage_entered{};
};

}  // namespace kapi::request

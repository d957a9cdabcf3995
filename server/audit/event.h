#pragma once
// One audit event (audit.k8s.io/v1 Event) and the JSON line kube-apiserver's log backend writes for it: the fields
// in the Go struct's order, empty ones left out as encoding/json's omitempty does, strings escaped as encoding/json
// escapes them (<, > and & as \u003c, \u003e, \u0026), timestamps as metav1.MicroTime.
#include "request/request_context.h"
#include "server/audit/policy.h"
#include "server/http/headers.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kapi::audit {

struct ObjectReference {
  std::string resource;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_group;
  std::string api_version;
  std::string resource_version;
  std::string subresource;
};

// The bounded part of a metav1.Status kube copies into the event.
struct ResponseStatus {
  std::string status;   // "Success" | "Failure"
  std::string message;
  std::string reason;
  std::string details;  // the Status's details as JSON text, "" when it had none
  int code = 0;
};

struct Event {
  Level level = Level::None;
  std::string audit_id;
  Stage stage = Stage::RequestReceived;
  std::string request_uri;
  std::string verb;
  request::UserInfo user;
  std::optional<request::UserInfo> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectReference> object_ref;
  std::optional<ResponseStatus> response_status;
  // Request and response bodies as the JSON text that came or went; the log backend writes them compacted (and
  // without metadata.managedFields when omit_managed_fields), off the request's thread.
  std::optional<std::string> request_object;
  std::optional<std::string> response_object;
  bool omit_managed_fields = false;
  std::chrono::system_clock::time_point request_received_timestamp{};
  std::chrono::system_clock::time_point stage_timestamp{};
  std::map<std::string, std::string> annotations;
};

// metav1.MicroTime's JSON form: "2006-01-02T15:04:05.000000Z" (UTC, microseconds).
std::string format_micro_time(std::chrono::system_clock::time_point time);

// The event as one line of JSON, without the newline. An embedded object that is not valid JSON is left out.
std::string to_json(const Event& event);

// audit.EventString: the event's one-line text form (--audit-log-format=legacy, and what plugin errors log),
// `<received, RFC3339Nano> AUDIT: id="…" stage="…" ip="…" method="…" user="…" groups="…" as="…" asgroups="…"
// user-agent="…" namespace="…" uri="…" response="…"`, without the newline.
std::string to_legacy_line(const Event& event);

// utilnet.SourceIPs: the X-Forwarded-For chain, then X-Real-Ip, then the connection's address (unless it is the
// chain's last), each normalised as Go prints an IP.
std::vector<std::string> source_ips(const http::Headers& headers, std::string_view remote_address);

}  // namespace kapi::audit

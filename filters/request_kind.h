#pragma once
// kube's two request kinds for in-flight limits and their metrics: read-only (get, list, watch, proxy) and
// mutating (everything else); the `request_kind` label of apiserver_current_inflight_requests and
// apiserver_dropped_requests_total.
#include <string_view>

namespace kapi::filters {

inline bool is_read_only_verb(std::string_view verb) {
  return verb == "get" || verb == "list" || verb == "watch" || verb == "proxy";
}

inline const char* request_kind(std::string_view verb) { return is_read_only_verb(verb) ? "readOnly" : "mutating"; }

}  // namespace kapi::filters

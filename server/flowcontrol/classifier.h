#pragma once
// Which FlowSchema a request matches and which flow it belongs to (kube's apf_filter match.go and the
// distinguisher of its controller): schemas are tried by ascending matchingPrecedence, then name; the first whose
// rules match wins.
#include "request/request_context.h"
#include "server/flowcontrol/configuration.h"

#include <string>
#include <vector>

namespace kapi::flowcontrol {

struct RequestDigest {
  const request::RequestInfo& info;
  const request::UserInfo& user;
};

bool matches(const FlowSchema& schema, const RequestDigest& request);

// The flow's distinguisher within its schema: the user's name, the namespace, or "" for one flow per schema.
std::string_view flow_distinguisher(const FlowSchema& schema, const RequestDigest& request);

// Puts schemas in matching order.
void sort_for_matching(std::vector<FlowSchema>& schemas);

}  // namespace kapi::flowcontrol

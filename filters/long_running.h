#pragma once
// BasicLongRunningRequestCheck: watches and proxy/attach/exec/log/portforward run as long as they need; they
// are exempt from request deadlines, max-in-flight and the shutdown wait group.
#include "request/request_info_resolver.h"

#include <set>
#include <string>

namespace kapi::filters {

struct LongRunningCheck {
  std::set<std::string, std::less<>> verbs{"watch", "proxy"};
  std::set<std::string, std::less<>> subresources{"attach", "exec", "proxy", "log", "portforward"};
  std::set<std::string, std::less<>> non_resource_paths;  // e.g. the testing stream endpoint

  bool operator()(const request::RequestInfo& info) const {
    if (!info.is_resource_request) return non_resource_paths.contains(info.path);
    return verbs.contains(info.verb) || subresources.contains(info.subresource);
  }
};

}  // namespace kapi::filters

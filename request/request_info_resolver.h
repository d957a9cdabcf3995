// RequestInfo: what a request is about, in Kubernetes terms (verb, group/version/resource, namespace, name), derived
// from the method, the URL path and the query alone. It is the common language of authorization, audit, priority and
// fairness, metrics and the long-running check. Mirrors k8s.io/apiserver/pkg/endpoints/request/requestinfo.go.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http/query.h"

namespace kapi::request {

struct RequestInfo {
  // Whether the request is for an API resource or subresource (as opposed to /healthz, /apis, /api/v1 ...).
  bool is_resource_request = false;
  // The URL path, percent-decoded (Go's URL.Path).
  std::string path;
  // The Kubernetes verb (get, list, watch, create, update, patch, delete, deletecollection, proxy) for resource
  // requests, possibly "" for an HTTP method with no Kubernetes meaning; the lowercased HTTP method otherwise.
  std::string verb;
  std::string api_prefix;
  std::string api_group;
  std::string api_version;
  std::string namespace_;
  std::string resource;
  std::string subresource;
  // The object named by the path, or by `fieldSelector=metadata.name=...` on a list or watch.
  std::string name;
  // The path segments from the resource on: resource/name/subresource/anything/else.
  std::vector<std::string> parts;
  // The unparsed selectors of a list, watch or deletecollection (AuthorizeWithSelectors); empty otherwise.
  std::string field_selector;
  std::string label_selector;

  // The `scope` label of apiserver_request_* metrics (metrics.CleanScope): "resource", "namespace", "cluster" or "".
  std::string_view scope() const;

  bool operator==(const RequestInfo&) const = default;
};

struct RequestInfoResult {
  RequestInfo info;
  // Set when the path cannot be understood ("/api/v1/watch"); info then holds what was known. kube-apiserver
  // answers such requests with 500 "failed to create RequestInfo: <error>".
  std::optional<std::string> error;
};

// RequestInfoFactory.
class RequestInfoResolver {
 public:
  struct Options {
    // Path prefixes of API requests, without slashes.
    std::set<std::string, std::less<>> api_prefixes{"api", "apis"};
    // Those prefixes that are followed directly by a version, not by a group.
    std::set<std::string, std::less<>> groupless_api_prefixes{"api"};
    // Feature gate AuthorizeWithSelectors (on by default since Kubernetes 1.32): fill field/label_selector.
    bool authorize_with_selectors = true;
  };

  RequestInfoResolver() = default;
  explicit RequestInfoResolver(Options options) : options_(std::move(options)) {}

  // `path` is the decoded URL path (Go's req.URL.Path), `query` the parsed query string.
  RequestInfoResult resolve(std::string_view method, std::string_view path, const http::QueryParams& query) const;

  // Convenience for a raw request target ("/api/v1/pods?watch=1"): splits off the query and percent-decodes the
  // path. std::nullopt if the path has an invalid %-escape (Go's server rejects such a request line with 400).
  std::optional<RequestInfoResult> resolve_target(std::string_view method, std::string_view target) const;

 private:
  Options options_;
};

}  // namespace kapi::request

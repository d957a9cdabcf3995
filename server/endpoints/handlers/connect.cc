// A rest.Connecter's request (handlers/rest.go: ConnectResource and getRequestOptions): a dry run is refused, the
// options are decoded from the query and admitted as a CONNECT, mutating then validating plugins, with the options
// as the object; only then does the subresource act (read the pod, dial its kubelet). pods/log is a streaming GET,
// neither refused for dryRun nor admitted.
#include "server/endpoints/handlers/admission.h"
#include "server/endpoints/handlers/handlers.h"

namespace kapi::endpoints::handlers {

namespace {

// getRequestOptions' subpath: what the URL has after the subresource, with a leading slash, and a trailing one
// when the request's path ends with one.
std::string subpath_of(const Scope& scope, const std::string& rest) {
  std::string subpath = rest;
  if (scope.request().path.ends_with('/') && !subpath.ends_with('/')) subpath.push_back('/');
  return subpath;
}

}  // namespace

asio::awaitable<void> connect(Scope scope, const registry::ConnectSubresource& subresource, std::string rest) {
  if (subresource.options) {
    if (scope.query().has("dryRun")) throw apierrors::ApiError(apierrors::bad_request("dryRun is not supported"));
    boost::json::object options = subresource.options(scope.query(), subpath_of(scope, rest));
    auto admitting = admit_connect(scope, subresource, options);
    co_await std::move(admitting);
  }
  // The request is named before the call: g++ 12 destroys a temporary argument of a co_await'ed call twice.
  registry::ConnectRequest request{scope.exchange, scope.store, scope.info.namespace_, scope.info.name, std::move(rest)};
  auto connecting = subresource.connect(std::move(request));
  co_await std::move(connecting);
}

}  // namespace kapi::endpoints::handlers

#pragma once
// kube-aggregator's proxyHandler for a remote APIService (pkg/apiserver/handler_proxy.go), with the parts of
// apimachinery's UpgradeAwareHandler, Go's httputil.ReverseProxy and client-go's auth-proxy round tripper it relies
// on: the request goes to one endpoint of the APIService's Service over TLS, carrying the requester's identity in
// X-Remote-* headers (the backend trusts them because the aggregator presents its front-proxy client certificate),
// and the backend's answer is streamed back as it arrives, so watches work.
#include "request/exchange.h"
#include "server/proxy/backend.h"
#include "server/http/headers.h"
#include "server/http/request.h"

#include <asio/awaitable.hpp>

#include <string>

namespace kapi::aggregator {

// Forwards the request to `backend` as kube-aggregator's proxyHandler does with an UpgradeAwareHandler, and writes
// the backend's response to exchange.response (streamed as it arrives, so watches work; a protocol upgrade the
// backend accepts with 101 is spliced to the client's connection).
//
// Answers the way kube's handler does, with http.Error's plain-text bodies (not Status objects):
//  - no user in the context: 500 "missing user";
//  - the backend cannot be reached, the TLS handshake fails, the response is malformed or the deadline passes
//    before the response starts: 503 "error trying to reach service: <why>";
//  - a 3xx with a Location from the backend: 502 "the backend attempted to redirect this request, which is not
//    permitted" (RejectForwardingRedirects).
// A failure after the response started drops the client's connection (a std::system_error is thrown), as Go's
// ReverseProxy aborts the handler, so the client sees a truncated response instead of a complete-looking one.
// Discovery requests (/apis/<group>/<version>) get kube's 5 s aggregatedDiscoveryTimeout; any request deadline in
// the context bounds the backend call too.
asio::awaitable<void> proxy_to_backend(request::Exchange& exchange, const proxy::Backend& backend);

// kube-aggregator's proxyError, Go's http.Error: the message as plain text with a newline, not sniffed. What a
// client gets for an APIService that is unavailable or whose Service has no endpoint ("service unavailable", 503).
asio::awaitable<void> write_proxy_error(http::ResponseWriter& response, int status, std::string_view message);

// The request-target sent to the backend: the request's path (escaped as it came) and its query re-encoded as
// kube's `req.URL.Query().Encode()` does (keys sorted, malformed pairs dropped).
std::string backend_target(const http::Request& request);

// The headers sent to the backend: the request's own minus hop-by-hop fields (and those Connection names), framing,
// credentials (Authorization, Impersonate-*) and any incoming X-Remote-* identity, plus ReverseProxy's
// X-Forwarded-For, the proxy transport's X-Forwarded-Uri/-Host/-Proto, and SetAuthProxyHeaders' X-Remote-User,
// X-Remote-Uid (when non-empty), one X-Remote-Group per group and one X-Remote-Extra-<escaped key> per extra value.
http::Headers backend_request_headers(const http::Request& request, const request::UserInfo& user,
                                      const proxy::Backend& backend);

}  // namespace kapi::aggregator

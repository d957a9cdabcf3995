#pragma once
// Relaying a backend's response to the client, as apimachinery's UpgradeAwareHandler
// (staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go) and Go's httputil.ReverseProxy do: the body
// streamed as it arrives, hop-by-hop headers dropped, and a 101 Switching Protocols spliced — the client's hijacked
// connection and the backend's copied both ways until either side ends (exec, attach, port-forward).
#include "server/http/headers.h"
#include "server/http/request.h"
#include "server/http/response_writer.h"
#include "server/proxy/backend_client.h"

#include <asio/awaitable.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::proxy {

// Go's hopHeaders in net/http/httputil (RFC 7230 section 6.1).
bool is_hop_by_hop(std::string_view name);
// The field names a Connection header lists: hop-by-hop too (removeHopByHopHeaders).
std::vector<std::string> connection_tokens(const http::Headers& headers);
bool named_in(const std::vector<std::string>& tokens, std::string_view name);

// httpstream.IsUpgradeRequest: any Connection value mentioning "upgrade".
bool is_upgrade_request(const http::Request& request);

// The backend's response headers the client gets: not hop-by-hop, not framing (the writer frames the body itself),
// and no CORS (the proxy transport's removeCORSHeaders: the server's own CORS handling applies).
void copy_response_headers(const http::Headers& from, http::Headers& to);

// Writes the backend's response whose head is `head` to `response`: a small Content-Length body whole, a longer or
// chunked one streamed piece by piece. A 101 hands the client's connection over and copies bytes both ways until
// either side closes (then both are closed). A failure after the response started throws, which drops the client's
// connection, as Go's ReverseProxy aborts the handler.
asio::awaitable<void> relay_response(http::ResponseWriter& response, BackendConnection& backend, ResponseHead head,
                                     bool head_request);

}  // namespace kapi::proxy

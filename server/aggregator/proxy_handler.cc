#include "server/aggregator/proxy_handler.h"

#include "server/proxy/backend_client.h"
#include "server/proxy/relay.h"
#include "server/http/query.h"

#include <asio/this_coro.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace kapi::aggregator {

namespace {

using Clock = std::chrono::steady_clock;

// handler_proxy.go's aggregatedDiscoveryTimeout for /apis/<group>/<version>.
constexpr auto kDiscoveryTimeout = std::chrono::seconds(5);
constexpr std::string_view kRedirectMessage = "the backend attempted to redirect this request, which is not permitted";

// client-go's headerKeyEscape: bytes that are not HTTP token characters, and '%', become %XX.
std::string header_key_escape(std::string_view key) {
  static constexpr std::string_view kTokenPunctuation = "!#$&'*+-.^_`|~";
  std::string out;
  for (unsigned char c : key) {
    bool legal = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 kTokenPunctuation.find(static_cast<char>(c)) != std::string_view::npos;
    if (legal) {
      out.push_back(static_cast<char>(c));
    } else {
      std::array<char, 4> escaped{};
      std::snprintf(escaped.data(), escaped.size(), "%%%02X", c);
      out.append(escaped.data(), 3);
    }
  }
  return out;
}

// The client's IP from "ip:port" or "[ip]:port" (ReverseProxy's net.SplitHostPort of RemoteAddr).
std::optional<std::string> client_ip(std::string_view remote_address) {
  if (remote_address.empty()) return std::nullopt;
  if (remote_address.front() == '[') {
    auto close = remote_address.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    return std::string(remote_address.substr(1, close - 1));
  }
  auto colon = remote_address.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::string(remote_address.substr(0, colon));
}

bool is_discovery_request(const request::Exchange& exchange) {
  const auto& info = exchange.context.request_info;
  if (!info || info->is_resource_request) return false;
  std::string_view path = info->path;
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return std::count(path.begin(), path.end(), '/') == 2;  // exactly three segments
}

}  // namespace

asio::awaitable<void> write_proxy_error(http::ResponseWriter& response, int status, std::string_view message) {
  response.headers().set("Content-Type", "text/plain; charset=utf-8");
  response.headers().set("X-Content-Type-Options", "nosniff");
  std::string body(message);
  body.push_back('\n');
  co_await response.write(status, std::move(body));
}

std::string backend_target(const http::Request& request) {
  // The path as the client escaped it, when it is a faithful escaping of the decoded path (Go's URL.EscapedPath
  // keeps RawPath then); otherwise the decoded path escaped afresh.
  std::string_view raw = request.target;
  if (auto scheme = raw.find("://"); scheme != std::string_view::npos && !raw.empty() && raw.front() != '/') {
    auto slash = raw.find('/', scheme + 3);
    raw = slash == std::string_view::npos ? std::string_view("/") : raw.substr(slash);
  }
  raw = raw.substr(0, raw.find('?'));
  std::string target;
  auto decoded = http::percent_decode(raw, false);
  if (!raw.empty() && decoded && *decoded == request.path)
    target = std::string(raw);
  else
    target = http::percent_encode_path(request.path.empty() ? std::string("/") : request.path);

  // handler_proxy.go: location.RawQuery = req.URL.Query().Encode() — sorted by key (stable, so each key's values
  // keep their order), every component QueryEscape'd.
  std::vector<http::QueryParams::Pair> pairs(request.query.begin(), request.query.end());
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string query;
  for (const auto& [key, value] : pairs) {
    if (!query.empty()) query.push_back('&');
    query.append(http::percent_encode_query_component(key)).append("=").append(http::percent_encode_query_component(value));
  }
  if (!query.empty()) target.append("?").append(query);
  return target;
}

http::Headers backend_request_headers(const http::Request& request, const request::UserInfo& user,
                                      const proxy::Backend& backend) {
  http::Headers out;
  const std::string backend_address = proxy::join_host_port(backend.host, backend.port);
  // The aggregator does not set UseLocationHost: the client's Host goes through, as Go's transport sends req.Host.
  if (auto host = request.headers.get("Host"); host && !host->empty())
    out.add("Host", std::string(*host));
  else
    out.add("Host", backend_address);

  auto named = proxy::connection_tokens(request.headers);
  std::vector<std::string_view> prior_forwarded_for;
  for (const auto& field : request.headers) {
    const auto& name = field.name;
    if (http::iequals(name, "X-Forwarded-For")) {
      prior_forwarded_for.emplace_back(field.value);
      continue;
    }
    if (proxy::is_hop_by_hop(name) || proxy::named_in(named, name) || http::iequals(name, "Host") ||
        http::iequals(name, "Content-Length") ||
        // Credentials were consumed by authentication and impersonation (kube's filters delete them); the
        // backend learns who is asking from the X-Remote-* headers below only.
        http::iequals(name, "Authorization") || http::starts_with_ignoring_case(name, "Impersonate-") ||
        http::iequals(name, "X-Remote-User") || http::iequals(name, "X-Remote-Uid") ||
        http::iequals(name, "X-Remote-Group") || http::starts_with_ignoring_case(name, "X-Remote-Extra-") ||
        http::iequals(name, "X-Forwarded-Uri") || http::iequals(name, "X-Forwarded-Host") ||
        http::iequals(name, "X-Forwarded-Proto"))
      continue;
    out.add(name, field.value);
  }

  // httputil.ReverseProxy: the client's address appended to any X-Forwarded-For it brought.
  if (auto ip = client_ip(request.remote_address)) {
    std::string forwarded;
    for (auto prior : prior_forwarded_for) forwarded.append(prior).append(", ");
    out.add("X-Forwarded-For", forwarded + *ip);
  } else {
    for (auto prior : prior_forwarded_for) out.add("X-Forwarded-For", std::string(prior));
  }
  // The proxy Transport's reverse-proxy headers (its PathPrepend is empty for the aggregator).
  out.add("X-Forwarded-Uri", request.path.empty() ? std::string("/") : request.path);
  out.add("X-Forwarded-Host", backend_address);
  out.add("X-Forwarded-Proto", "https");

  // SetAuthProxyHeaders.
  out.add("X-Remote-User", user.name);
  if (!user.uid.empty()) out.add("X-Remote-Uid", user.uid);
  for (const auto& group : user.groups) out.add("X-Remote-Group", group);
  for (const auto& [key, values] : user.extra)
    for (const auto& value : values) out.add("X-Remote-Extra-" + header_key_escape(key), value);
  return out;
}

asio::awaitable<void> proxy_to_backend(request::Exchange& exchange, const proxy::Backend& backend) {
  auto& request = exchange.request;
  auto& response = *exchange.response;
  if (!exchange.context.user) {
    co_await write_proxy_error(response, 500, "missing user");
    co_return;
  }
  const bool upgrade = proxy::is_upgrade_request(request);
  auto executor = co_await asio::this_coro::executor;
  proxy::BackendConnection connection(executor, backend);
  auto deadline = exchange.context.deadline.value_or(Clock::time_point::max());
  if (is_discovery_request(exchange)) deadline = std::min(deadline, Clock::now() + kDiscoveryTimeout);
  connection.set_deadline(deadline);

  proxy::ResponseHead head;
  std::string failure;
  try {
    // kube's proxy transport speaks HTTP/2 to backends that offer it, except for upgrades.
    co_await connection.connect(/*offer_http2=*/!upgrade);
    proxy::BackendRequest outgoing{request.method, backend_target(request),
                                   backend_request_headers(request, *exchange.context.user, backend), request.body};
    if (upgrade) {
      // UpgradeAwareHandler.tryUpgrade sends the upgrade as it came: Connection and Upgrade kept.
      for (auto protocol : request.headers.all("Upgrade")) outgoing.headers.add("Upgrade", std::string(protocol));
      outgoing.upgrade = true;
    }
    co_await connection.send(outgoing);
    head = co_await connection.read_head();
  } catch (const std::exception& error) {
    // The proxy transport wraps round-trip errors as NewServiceUnavailable("error trying to reach service: ..."),
    // and the aggregator's responder writes the message with http.Error.
    failure = error.what();
  }
  if (!failure.empty()) {
    const std::string message = "error trying to reach service: " + failure;  // no temporaries in a co_await (g++ 12)
    co_await write_proxy_error(response, 503, message);
    co_return;
  }

  if (head.status >= 300 && head.status <= 399) {
    auto location = head.headers.get("Location");
    if (location && !location->empty()) {
      // RejectForwardingRedirects: the redirect is replaced by a bare 502 (Go's server sniffs the type).
      connection.close();
      response.headers().set("Content-Type", "text/plain; charset=utf-8");
      std::string body(kRedirectMessage);
      co_await response.write(502, std::move(body));
      co_return;
    }
  }

  // Streamed or whole, and a 101 spliced to the client's connection (exec, attach, port-forward of aggregated
  // resources). A failure of either side after the response started throws out of here, which drops the client
  // connection and, with `connection`, the backend's.
  auto relaying = proxy::relay_response(response, connection, std::move(head), request.method == "HEAD");
  co_await std::move(relaying);
}

}  // namespace kapi::aggregator

// ClientManager.HookClient (k8s.io/apiserver/pkg/util/webhook/client.go) and the REST client's handling of the
// answer (k8s.io/client-go/rest/request.go: transformResponse, newUnstructuredResponseError), on kapi's proxy
// client: keep-alive TLS connections from a pool, as client-go's transport keeps them, the whole call (dial,
// handshake, request and response) bounded by the webhook's timeout.
#include "server/plugin/admission/webhook/client.h"

#include "server/aggregator/service_resolver.h"
#include "server/proxy/backend_client.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <charconv>
#include <exception>

namespace kapi::admission::webhook {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// The body of an answer is read whole; the proxy client's bound for a whole response.
constexpr std::size_t kMaxResponseBytes = 64 << 20;

struct Target {
  proxy::Backend backend;
  std::string host_header;  // host[:port] as the URL has it
  std::string path;
};

// "https://host[:port][/path]": validation admits only https URLs without query or fragment.
Target url_target(const std::string& url) {
  Target target;
  std::string_view rest = url;
  if (rest.starts_with("https://")) rest.remove_prefix(8);
  const std::size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  target.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  target.host_header = std::string(authority);
  std::string_view host = authority;
  std::uint16_t port = 443;
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    const std::string_view digits = authority.substr(colon + 1);
    std::from_chars(digits.data(), digits.data() + digits.size(), port);
  }
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  target.backend.host = std::string(host);
  target.backend.port = port;
  target.backend.server_name = std::string(host);
  return target;
}

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

// errors.NewGenericServerResponse's wording for a non-2xx answer that is not a Status.
std::string unexpected_response_message(int code, std::string_view body, bool text) {
  switch (code) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "the server has asked for the client to provide credentials";
    case 403: return "the server does not allow access to the requested resource";
    case 404: return "the server could not find the requested resource";
    case 405: return "the server does not allow this method on the requested resource";
    case 409: return "the server reported a conflict";
    case 422: return "the server rejected our request due to an error in our request";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504: return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default: break;
  }
  if (code >= 500) {
    std::string message = text ? trim(body.substr(0, 1024)) : "unknown";
    std::string quoted = json::serialize(json::value(message));  // %q of a plain message
    return "an error on the server (" + quoted + ") has prevented the request from succeeding";
  }
  return "the server responded with the status code " + std::to_string(code) +
         " but did not return more information";
}

bool is_json_media_type(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  return media.empty() || trim(media) == "application/json" || trim(media) == "application/yaml";
}

}  // namespace

asio::awaitable<std::string> post_review(const Webhook& webhook, std::string body, ServiceStores stores,
                                         proxy::ConnectionPool& pool) {
  Target target;
  std::string url;
  if (webhook.url) {
    target = url_target(*webhook.url);
    url = "https://" + target.host_header + target.path;
  } else if (webhook.service) {
    const ServiceTarget& service = *webhook.service;
    target.backend.server_name = service.name + "." + service.namespace_ + ".svc";
    target.host_header = target.backend.server_name + ":" + std::to_string(service.port);
    target.path = service.path.empty() ? "/" : service.path;
    url = "https://" + target.host_header + (service.path.empty() ? "" : service.path);
  } else {
    throw CallFailure("could not get REST client: webhook has no clientConfig url or service", 500);
  }
  const std::string timeout = std::to_string(webhook.timeout_seconds) + "s";
  url += "?timeout=" + timeout;
  target.path += "?timeout=" + timeout;
  const std::string prefix = "failed to call webhook: Post \"" + url + "\": ";

  try {
    target.backend.tls = webhook.tls.get();
  } catch (const std::exception& error) {
    throw CallFailure(std::string("could not get REST client: ") + error.what(), 500);
  }
  const auto deadline = Clock::now() + std::chrono::seconds(webhook.timeout_seconds);

  if (webhook.service) {
    // The dial of "<name>.<namespace>.svc:<port>" goes to an endpoint of the Service; a resolution error is the
    // dial's error.
    if (!stores.services || !stores.endpoints) throw CallFailure(prefix + "services are not served", 0);
    aggregator::ServiceReference reference{webhook.service->namespace_, webhook.service->name, webhook.service->port};
    aggregator::Resolution resolution = co_await aggregator::resolve_endpoint(*stores.services, *stores.endpoints, reference);
    if (const auto* failed = std::get_if<aggregator::ResolveError>(&resolution)) throw CallFailure(prefix + failed->message, 0);
    const auto& endpoint = std::get<aggregator::ResolvedEndpoint>(resolution);
    target.backend.host = endpoint.host;
    target.backend.port = endpoint.port;
  }

  std::string failure;
  proxy::BackendResponse response;
  try {
    proxy::BackendRequest request{"POST", target.path, {}, std::move(body)};
    request.headers.set("Host", target.host_header);
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", "application/json, */*");
    request.headers.set("User-Agent", "kube-apiserver-admission");
    auto exchanging = pool.exchange(target.backend, std::move(request), deadline, kMaxResponseBytes);
    response = co_await std::move(exchanging);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty()) throw CallFailure(prefix + failure, 0);

  const std::string content_type(response.headers.get("Content-Type").value_or(""));
  const std::string& response_body = response.body;
  if (response.status < 200 || response.status > 206) {
    // A Status body is the error itself; anything else is described by its code.
    if (is_json_media_type(content_type)) {
      if (std::optional<json::object> status = registry::parse_json_object(response_body);
          status && registry::string_field(*status, "kind") == "Status") {
        throw CallFailure("failed to call webhook: " + std::string(registry::string_field(*status, "message")),
                          response.status);
      }
    }
    const bool text = content_type.starts_with("text/") || content_type.empty();
    throw CallFailure("failed to call webhook: " + unexpected_response_message(response.status, response_body, text),
                      response.status);
  }
  if (!is_json_media_type(content_type))
    throw CallFailure("failed to call webhook: serializer for " + content_type + " doesn't exist", 0);
  co_return response_body;
}

}  // namespace kapi::admission::webhook

// ClientManager.HookClient (k8s.io/apiserver/pkg/util/webhook/client.go) and the REST client's handling of the
// answer (k8s.io/client-go/rest/request.go: transformResponse, newUnstructuredResponseError), on kapi's proxy
// client: keep-alive TLS connections from a pool, as client-go's transport keeps them, the whole call (dial,
// handshake, request and response) bounded by the webhook's timeout.
#include "server/plugin/admission/webhook/client.h"

#include "server/aggregator/service_resolver.h"
#include "server/proxy/backend_client.h"
#include "server/registry/object_meta.h"
#include "server/webhook/generic_webhook.h"

#include <boost/json.hpp>

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
  const kapi::webhook::ParsedUrl parsed = kapi::webhook::parse_url(url);
  Target target;
  target.backend.host = parsed.host;
  target.backend.port = parsed.port;
  target.backend.server_name = parsed.host;
  target.host_header = parsed.host_header;
  target.path = parsed.path;
  return target;
}

using kapi::webhook::is_json_media_type;
using kapi::webhook::unexpected_response_message;

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

#include "bench/scenarios/kube_api.h"

#include "bench/client/kubeconfig.h"
#include "bench/scenarios/scenario.h"

#include <stdexcept>

namespace kapi::bench {

namespace {

// --server alone: plain HTTP, or TLS that verifies nothing (nginx's baseline over HTTPS).
ServerAddress plain_server_address(const ScenarioOptions& options) {
  if (!options.server.starts_with("https://"))
    return parse_server_url(options.server.empty() ? "http://127.0.0.1:8080" : options.server);
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  tls->set_verify_mode(asio::ssl::verify_none);
  return parse_server_url(options.server, std::move(tls));
}

ServerAddress kubeconfig_server_address(const ScenarioOptions& options) {
  const auto credentials = load_kubeconfig(options.kubeconfig);
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  if (!credentials.client_cert_pem.empty()) {
    tls->use_certificate_chain(asio::buffer(credentials.client_cert_pem));
    tls->use_private_key(asio::buffer(credentials.client_key_pem), asio::ssl::context::pem);
  }
  // The CA is checked (unless the kubeconfig skips it); the name is not: benchmarks connect to loopback addresses
  // the certificate may not list.
  if (credentials.ca_pem.empty()) {
    tls->set_verify_mode(asio::ssl::verify_none);
  } else {
    tls->add_certificate_authority(asio::buffer(credentials.ca_pem));
    tls->set_verify_mode(asio::ssl::verify_peer);
  }
  auto address = parse_server_url(options.server.empty() ? credentials.server : options.server, std::move(tls));
  if (!credentials.token.empty()) address.authorization = "Bearer " + credentials.token;
  return address;
}

}  // namespace

ServerAddress server_address(const ScenarioOptions& options) {
  ServerAddress address = options.kubeconfig.empty() ? plain_server_address(options) : kubeconfig_server_address(options);
  address.http2 = options.http2;
  return address;
}

std::string configmap_json(std::string_view name, std::size_t object_bytes, std::string_view extra_key,
                           std::string_view extra_value) {
  std::string json = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")";
  json.append(name).append(R"("},"data":{)");
  if (!extra_key.empty()) json.append("\"").append(extra_key).append("\":\"").append(extra_value).append("\",");
  json.append(R"("payload":")");
  constexpr std::size_t kClosing = 3;  // "}}
  const std::size_t used = json.size() + kClosing;
  json.append(object_bytes > used ? object_bytes - used : 1, 'x');
  json.append("\"}}");
  return json;
}

std::string configmaps_path(std::string_view namespace_name) {
  return "/api/v1/namespaces/" + std::string(namespace_name) + "/configmaps";
}

std::string fill_body_template(std::string_view body_template, std::string_view name) {
  constexpr std::string_view kPlaceholder = "{name}";
  std::string body;
  body.reserve(body_template.size() + name.size());
  std::size_t from = 0;
  for (auto at = body_template.find(kPlaceholder); at != std::string_view::npos;
       at = body_template.find(kPlaceholder, from)) {
    body.append(body_template.substr(from, at - from)).append(name);
    from = at + kPlaceholder.size();
  }
  body.append(body_template.substr(from));
  return body;
}

namespace {

// POSTs `body` to `collection`; an object that already exists is fine.
asio::awaitable<void> ensure_created(HttpTransport& connection, std::string collection, std::string body,
                                     std::string what) {
  HttpRequest request{.method = "POST", .target = std::move(collection), .body = std::move(body)};
  auto response = co_await connection.send(request, BodyHandling::keep);
  if (response.status != 201 && response.status != 409)
    throw std::runtime_error("creating " + what + ": HTTP " + std::to_string(response.status) + " " +
                             response.body.substr(0, 300));
}

}  // namespace

asio::awaitable<void> ensure_namespace(HttpTransport& connection, std::string_view namespace_name) {
  std::string collection = "/api/v1/namespaces";
  std::string body =
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(namespace_name) + "\"}}";
  std::string what = "namespace " + std::string(namespace_name);
  co_await ensure_created(connection, std::move(collection), std::move(body), std::move(what));
}

asio::awaitable<void> ensure_default_service_account(HttpTransport& connection, std::string_view namespace_name) {
  std::string collection = "/api/v1/namespaces/" + std::string(namespace_name) + "/serviceaccounts";
  std::string body = R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})";
  std::string what = "the default service account of " + std::string(namespace_name);
  co_await ensure_created(connection, std::move(collection), std::move(body), std::move(what));
}

std::string resource_version_of(std::string_view object_json) {
  constexpr std::string_view kKey = R"("resourceVersion":")";
  const auto at = object_json.find(kKey);
  if (at == std::string_view::npos) return {};
  const auto start = at + kKey.size();
  const auto end = object_json.find('"', start);
  return end == std::string_view::npos ? std::string() : std::string(object_json.substr(start, end - start));
}

ConnectionPool::ConnectionPool(asio::any_io_executor executor, ServerAddress server, std::size_t slots)
    : executor_(std::move(executor)), server_(std::move(server)), connections_(slots) {}

HttpTransport& ConnectionPool::at(std::size_t slot) {
  // Over HTTP/2 the slots share connections of up to 1000 streams, as one client-go process multiplexes its
  // requests over one connection.
  constexpr std::size_t kStreamsPerConnection = 1000;
  auto& connection = connections_.at(server_.http2 ? slot / kStreamsPerConnection : slot);
  if (!connection) connection = connect_to(executor_, server_);
  return *connection;
}

asio::awaitable<Outcome> ConnectionPool::send(std::size_t slot, const HttpRequest& request, std::string* body) {
  auto& connection = at(slot);
  const std::size_t sent_before = connection.bytes_sent();
  auto response = co_await connection.send(request, body ? BodyHandling::keep : BodyHandling::discard);
  if (body) *body = std::move(response.body);
  // A shared HTTP/2 connection carries other slots' requests meanwhile: only the body is this request's own.
  const std::size_t sent = server_.http2 ? request.body.size() : connection.bytes_sent() - sent_before;
  co_return Outcome{.status = response.status,
                    .retry_after_seconds = response.retry_after_seconds,
                    .bytes_received = response.bytes_received,
                    .bytes_sent = sent};
}

asio::awaitable<LoadResult> fill_namespace(asio::any_io_executor executor, ServerAddress server,
                                           std::string namespace_name, std::size_t count, std::size_t object_bytes,
                                           std::size_t concurrency) {
  {
    HttpConnection connection(executor, server);
    co_await ensure_namespace(connection, namespace_name);
  }
  if (count == 0) co_return LoadResult{};
  auto pool = std::make_shared<ConnectionPool>(executor, server, concurrency);
  const std::string path = configmaps_path(namespace_name);
  Operation create = [pool, path, object_bytes](std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
    const std::string body = configmap_json("obj-" + std::to_string(sequence), object_bytes);
    HttpRequest request{.method = "POST", .target = path, .body = body};
    auto outcome = co_await pool->send(slot, request);
    if (outcome.status == 409) outcome.status = 200;  // kept from an earlier fill
    co_return outcome;
  };
  LoadOptions fill{.mode = LoadMode::closed,
                   .concurrency = concurrency,
                   .warmup = std::chrono::milliseconds(0),
                   .duration = std::chrono::hours(1),
                   .operation_limit = count};
  co_return co_await run_load(executor, fill, std::move(create));
}

}  // namespace kapi::bench

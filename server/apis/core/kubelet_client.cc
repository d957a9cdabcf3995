// Follows pkg/kubelet/client/kubelet_client.go (MakeTransport's TLS, NodeConnectionInfoGetter.GetConnectionInfo) and
// pkg/util/node/node.go (GetPreferredNodeAddress).
#include "server/apis/core/kubelet_client.h"

#include "server/apierrors/errors.h"
#include "server/pki/pem_io.h"
#include "server/registry/json_fields.h"

#include <asio/this_coro.hpp>

namespace kapi::apis::core {

namespace {

using namespace registry::fields;

// NoMatchError: "no preferred addresses found; known addresses: [{InternalIP 10.0.0.1}]".
std::string no_match_message(const json::array* addresses) {
  std::string known = "[";
  if (addresses)
    for (const auto& address : *addresses) {
      if (!address.is_object()) continue;
      if (known.size() > 1) known.append(" ");
      known.append("{")
          .append(string_at(address.as_object(), "type"))
          .append(" ")
          .append(string_at(address.as_object(), "address"))
          .append("}");
    }
  return "no preferred addresses found; known addresses: " + known + "]";
}

std::string preferred_address(const json::object& node, const std::vector<std::string>& types) {
  const json::array* addresses = array_at(object_at(node, "status"), "addresses");
  for (const auto& type : types) {
    if (addresses)
      for (const auto& address : *addresses)
        if (address.is_object() && string_at(address.as_object(), "type") == type)
          return std::string(string_at(address.as_object(), "address"));
    // The hostname label stands in for a missing Hostname address.
    if (type == "Hostname")
      if (auto label = string_at(object_at(object_at(node, "metadata"), "labels"), "kubernetes.io/hostname");
          !label.empty())
        return std::string(label);
  }
  throw apierrors::ApiError(apierrors::Status{500, "", no_match_message(addresses), std::nullopt});
}

}  // namespace

KubeletClientConfig make_kubelet_client_config(const std::string& ca_file, const std::string& client_cert_file,
                                               const std::string& client_key_file,
                                               std::vector<std::string> preferred_address_types,
                                               std::chrono::milliseconds timeout) {
  KubeletClientConfig config;
  // The insecure context reads the client certificate and key now, so that a bad file fails the start.
  config.insecure_tls = proxy::make_backend_tls("", true, client_cert_file, client_key_file);
  if (ca_file.empty()) {
    config.tls = proxy::LazyTlsContext([client_cert_file, client_key_file] {
      return proxy::make_backend_tls("", false, client_cert_file, client_key_file);
    });
  } else {
    config.tls = proxy::LazyTlsContext(
        proxy::make_backend_tls(pki::read_file(ca_file), false, client_cert_file, client_key_file));
  }
  if (!preferred_address_types.empty()) config.preferred_address_types = std::move(preferred_address_types);
  config.timeout = timeout;
  return config;
}

asio::awaitable<proxy::Backend> kubelet_backend(const ConnectConfig& config, std::string node_name,
                                                bool insecure_skip_tls_verify) {
  if (!config.objects || !config.kubelet.tls)
    throw apierrors::ApiError(apierrors::service_unavailable("kubelet connections are not configured"));
  auto reading = config.objects("nodes", "", node_name);
  std::optional<json::object> node = co_await std::move(reading);
  if (!node) throw apierrors::ApiError(apierrors::not_found("", "nodes", node_name));
  proxy::Backend backend;
  backend.host = preferred_address(*node, config.kubelet.preferred_address_types);
  const auto port = int_at(object_at(object_at(object_at(*node, "status"), "daemonEndpoints"), "kubeletEndpoint"),
                           "Port");
  backend.port = port && *port > 0 && *port < 65536 ? static_cast<std::uint16_t>(*port) : config.kubelet.default_port;
  // Go verifies the URL's host: the address itself, an IP against the certificate's IP SANs.
  backend.server_name = backend.host;
  backend.tls = insecure_skip_tls_verify ? config.kubelet.insecure_tls : config.kubelet.tls.get();
  backend.verify_server_name = !insecure_skip_tls_verify;
  co_return backend;
}

asio::awaitable<StartedRequest> start_request(const proxy::Backend& backend, proxy::BackendRequest request,
                                              std::chrono::milliseconds timeout) {
  auto executor = co_await asio::this_coro::executor;
  proxy::BackendClientLimits limits;
  limits.dial_timeout = timeout;
  limits.handshake_timeout = timeout;
  StartedRequest started{std::make_unique<proxy::BackendConnection>(executor, backend, limits), {}};
  // Dialling and the handshake each have the timeout (and say which ran out, as Go's dialer and
  // TLSHandshakeTimeout do), then the response head has it too; the body (a followed log, an exec session) may
  // take as long as it lasts.
  co_await started.connection->connect();
  started.connection->set_deadline(proxy::BackendConnection::Clock::now() + timeout);
  co_await started.connection->send(request);
  started.head = co_await started.connection->read_head();
  started.connection->set_deadline(proxy::BackendConnection::Clock::time_point::max());
  co_return started;
}

}  // namespace kapi::apis::core

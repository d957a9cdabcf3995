#pragma once
// How kube-apiserver reaches a node's kubelet and the pods and services it proxies to (pkg/kubelet/client/
// kubelet_client.go: KubeletClientConfig and NodeConnectionInfoGetter; pkg/util/node's GetPreferredNodeAddress), and
// the one round trip every connect subresource starts with.
#include "server/authentication/service_account.h"
#include "server/http/headers.h"
#include "server/proxy/backend.h"
#include "server/proxy/backend_client.h"

#include <asio/awaitable.hpp>
#include <asio/ssl/context.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kapi::apis::core {

// --kubelet-* flags, made once at start.
struct KubeletClientConfig {
  proxy::LazyTlsContext tls;  // --kubelet-certificate-authority, --kubelet-client-certificate/key
  std::shared_ptr<asio::ssl::context> insecure_tls;  // the same client certificate, the kubelet's not checked
  std::vector<std::string> preferred_address_types{"Hostname", "InternalDNS", "InternalIP", "ExternalDNS",
                                                   "ExternalIP"};
  std::chrono::milliseconds timeout{5000};  // --kubelet-timeout: for each of dialling, the handshake, the response head
  std::uint16_t default_port = 10250;       // when a node names no kubelet port
};

// What the connect subresources need: the kubelet client, and reads of the nodes, services and endpoints they lead
// to. Empty (no `objects`) until BuiltInApis fills it.
struct ConnectConfig {
  KubeletClientConfig kubelet;
  authentication::ObjectGetter objects;
  // For pods/proxy and services/proxy with scheme https: kube's proxy transport does not verify them either.
  std::shared_ptr<asio::ssl::context> proxy_tls;
};

// Builds the TLS contexts from the flags' files; throws std::runtime_error naming a file it cannot read.
KubeletClientConfig make_kubelet_client_config(const std::string& ca_file, const std::string& client_cert_file,
                                               const std::string& client_key_file,
                                               std::vector<std::string> preferred_address_types,
                                               std::chrono::milliseconds timeout);

// GetConnectionInfo: the node's kubelet as a backend — its preferred address and its daemonEndpoints port. Throws
// ApiError: 404 for a missing node, 500 when no address is of a preferred type.
asio::awaitable<proxy::Backend> kubelet_backend(const ConnectConfig& config, std::string node_name,
                                                bool insecure_skip_tls_verify = false);

// One request started on `backend`: dialled and the TLS handshake done, each within `timeout`, then sent and the
// response head read within `timeout` more. Throws std::exception with Go's wording of what failed.
struct StartedRequest {
  std::unique_ptr<proxy::BackendConnection> connection;
  proxy::ResponseHead head;
};
asio::awaitable<StartedRequest> start_request(const proxy::Backend& backend, proxy::BackendRequest request,
                                              std::chrono::milliseconds timeout);

}  // namespace kapi::apis::core

#pragma once
// Where and how kube-apiserver reaches what it proxies to. For the aggregator, the extension API server behind a
// remote APIService (kube-aggregator's remote.BuildTransportConfig): an endpoint address of the APIService's
// Service, the Service's DNS name for SNI and certificate verification, and a TLS client context trusting
// spec.caBundle and presenting the front-proxy client certificate (--proxy-client-cert-file /
// --proxy-client-key-file) by which the backend knows the aggregator. For the connect subresources, a kubelet
// (pkg/kubelet/client: its address verified against the --kubelet-certificate-authority, kapi known by its
// --kubelet-client-certificate), a pod or a service endpoint.
#include <asio/ssl/context.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace kapi::proxy {

// Where and how to reach one remote APIService's backend (one endpoint of its Service).
struct Backend {
  std::string host;          // endpoint IP address (IPv4 or IPv6 literal)
  std::uint16_t port = 0;
  std::string server_name;   // "<service>.<namespace>.svc": SNI, and the name verified in the backend's certificate
  std::shared_ptr<asio::ssl::context> tls;  // from make_backend_tls
  bool verify_server_name = true;  // false for insecureSkipTLSVerify
  bool use_tls = true;  // false: plain HTTP (`tls` is then only needed to build the connection, never used)
};

// "host:port", with an IPv6 literal in brackets (Go's net.JoinHostPort).
std::string join_host_port(std::string_view host, std::uint16_t port);

// A TLS 1.2+ client context: trusts only the PEM `ca_bundle` (verify peer) unless insecure_skip_verify; presents the
// aggregator's front-proxy client certificate and key when the paths are non-empty (throws std::runtime_error
// naming the file when they cannot be read).
// An empty ca_bundle (with verification on) trusts the system roots, as Go does with no RootCAs; a non-empty one
// with no certificate in it throws, as client-go's transport building fails then.
std::shared_ptr<asio::ssl::context> make_backend_tls(std::string_view ca_bundle_pem, bool insecure_skip_verify,
                                                     const std::filesystem::path& client_cert_file,
                                                     const std::filesystem::path& client_key_file);

// A client TLS context made on its first use, once, from any thread; copies share it. Trusting the system's roots
// reads a bundle of ~150 certificates (~25 ms): a server that may never dial such a backend (kubelets, when no
// --kubelet-certificate-authority is given) should not pay that at every start. Go's crypto/x509 also loads its
// system pool on first use.
class LazyTlsContext {
 public:
  using Maker = std::function<std::shared_ptr<asio::ssl::context>()>;
  LazyTlsContext() = default;  // none: get() returns null
  explicit LazyTlsContext(Maker make);
  explicit LazyTlsContext(std::shared_ptr<asio::ssl::context> made);

  // The context; made now if it is the first call. Throws what `make` throws (and tries again on the next call).
  std::shared_ptr<asio::ssl::context> get() const;
  explicit operator bool() const { return state_ != nullptr; }

 private:
  struct State {
    std::once_flag made;
    Maker make;
    std::shared_ptr<asio::ssl::context> context;
  };
  std::shared_ptr<State> state_;
};

}  // namespace kapi::proxy

#pragma once
// What kapi-bench needs from a kubeconfig to speak HTTPS with a client certificate: the current context's server
// URL, its CA, and its user's certificate and key (embedded *-data or file paths), as PEM.
#include <string>

namespace kapi::bench {

struct KubeconfigCredentials {
  std::string server;  // https://host:port
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
};

// Throws std::runtime_error when the file, its current context, or any of the fields above is missing.
KubeconfigCredentials load_kubeconfig(const std::string& path);

}  // namespace kapi::bench

#pragma once
// What kapi-bench needs from a kubeconfig to load a Kubernetes API server over HTTPS: the current context's server
// URL, its CA, and its user's credentials, as client-go reads them: a client certificate and key (embedded *-data
// or file paths, as PEM), a bearer token (token, tokenFile), or an exec credential plugin (users[].user.exec, run
// once at start as kubectl runs it: its ExecCredential's token, or certificate and key).
#include <string>

namespace kapi::bench {

struct KubeconfigCredentials {
  std::string server;  // https://host:port
  std::string ca_pem;  // empty with insecure-skip-tls-verify
  std::string client_cert_pem;  // with client_key_pem, or both empty
  std::string client_key_pem;
  std::string token;  // bearer token, or empty
};

// Throws std::runtime_error when the file, its current context, its CA or every credential is missing, or the exec
// plugin fails.
KubeconfigCredentials load_kubeconfig(const std::string& path);

}  // namespace kapi::bench

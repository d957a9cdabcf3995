#pragma once

// kapi's generated PKI. kube-apiserver users start kapi without TLS flags; on first start this writes into
// --cert-dir the CA, serving, admin, front-proxy and service-account material, plus admin.kubeconfig, and on every
// later start reuses what is there (nothing is regenerated, so a restart keeps every client's trust).
//
// Files (in cert_dir):
//   ca.crt/.key                  self-signed CA "kapi-ca", 10 years; signs the serving and admin certificates
//   apiserver.crt/.key           serving certificate "kapi-apiserver", serverAuth, localhost/hostname/kubernetes.*
//                                /loopback/advertise host/extra SANs
//   admin.crt/.key               client certificate CN=kapi-admin, O=system:masters
//   admin.kubeconfig             kubectl configuration for the admin, talking to https://<advertise_host>:<port>
//   front-proxy-ca.crt/.key      separate CA for the aggregator's request-header authentication
//   front-proxy-client.crt/.key  its client certificate "front-proxy-client"
//   sa.key/sa.pub                RSA-2048 service-account token signing pair
// Certificate keys are ECDSA P-256. Private keys (and the kubeconfig) are 0600, certificates 0644.
// admin.kubeconfig alone is derived rather than kept: it is rewritten when its rendering changes (another port or
// advertise host), so it always points at the running server.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "server/pki/kubeconfig.h"

namespace kapi::pki {

struct PkiOptions {
  std::filesystem::path cert_dir;
  // Host clients use to reach the server: the kubeconfig's server address and an extra serving SAN.
  std::string advertise_host = "127.0.0.1";
  uint16_t secure_port = 6443;
  // Extra serving-certificate SANs, e.g. the first service cluster IP; IP literals become IP SANs, the rest DNS SANs.
  std::vector<std::string> extra_sans;
  // --tls-cert-file / --tls-private-key-file: given together, they replace apiserver.crt/.key.
  std::optional<std::filesystem::path> tls_cert_file;
  std::optional<std::filesystem::path> tls_private_key_file;
  // --client-ca-file: replaces ca.crt as the client CA. kapi cannot sign for that CA, so no admin certificate or
  // admin.kubeconfig is produced then.
  std::optional<std::filesystem::path> client_ca_file;
};

// Paths of the material in use; an empty path means "not produced for these options" (see PkiOptions).
struct PkiMaterial {
  std::filesystem::path ca_cert;  // the generated CA; empty when the caller supplied both serving cert and client CA
  std::filesystem::path serving_cert;
  std::filesystem::path serving_key;
  std::filesystem::path client_ca;
  std::filesystem::path admin_cert;
  std::filesystem::path admin_key;
  std::filesystem::path admin_kubeconfig;
  std::filesystem::path front_proxy_ca;
  std::filesystem::path front_proxy_client_cert;
  std::filesystem::path front_proxy_client_key;
  std::filesystem::path service_account_key;
  std::filesystem::path service_account_pub;
};

// Creates what is missing, validates what exists (a certificate whose key is missing, a key that does not match its
// certificate, a leaf not signed by its CA are errors, never silently replaced) and returns the paths. Blocking file
// I/O and key generation: call it before the reactor starts, or from a pool. Throws std::runtime_error with a message
// naming the offending file.
PkiMaterial ensure_pki(const PkiOptions& options);

// "https://host:port", with an IPv6 host in brackets.
std::string https_url(std::string_view host, uint16_t port);

}  // namespace kapi::pki

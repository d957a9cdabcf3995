#pragma once
// The sample API server's own serving certificate, made with kapi's x509 builder: a CA of its own (ca.crt, what
// a test puts into the APIService's caBundle) and serving.crt/.key for the service's DNS names plus 127.0.0.1.
#include <filesystem>
#include <string>
#include <vector>

namespace kapi::sample_apiserver {

struct ServingFiles {
  std::filesystem::path ca_cert;
  std::filesystem::path cert;
  std::filesystem::path key;
};

// Reuses what `cert_dir` holds (so a restart keeps every client's trust); issues serving.crt/.key, and the CA
// first when it is missing too. Throws std::runtime_error on unreadable or mismatched files.
ServingFiles ensure_serving_pki(const std::filesystem::path& cert_dir, const std::vector<std::string>& dns_names);

}  // namespace kapi::sample_apiserver

#pragma once

// Key generation and X.509 issuance with the profile kube-apiserver's own helpers (client-go's cert package, kubeadm)
// produce: v3, 128-bit random serials, SHA-256 signatures, an hour of back-dating for clock skew.

#include <string>
#include <vector>

#include "server/pki/openssl_handles.h"

namespace kapi::pki {

struct SubjectAltName {
  enum class Kind { dns, ip };
  Kind kind;
  std::string value;

  friend bool operator==(const SubjectAltName&, const SubjectAltName&) = default;
};

// An IP literal (v4 or v6) becomes an IP SAN, a valid DNS name (wildcards allowed) a DNS SAN; anything else throws.
SubjectAltName parse_subject_alt_name(std::string_view text);

enum class CertificateUsage { certificate_authority, server_auth, client_auth };

struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> organizations;
  CertificateUsage usage = CertificateUsage::client_auth;
  int validity_days = 365;
  std::vector<SubjectAltName> subject_alt_names;
};

struct Issuer {
  X509* certificate;
  EVP_PKEY* key;
};

EvpPkeyPtr generate_ecdsa_p256_key();
EvpPkeyPtr generate_rsa_key(unsigned bits);

X509Ptr self_sign_certificate_authority(const CertificateRequest& request, EVP_PKEY* key);
X509Ptr issue_certificate(const CertificateRequest& request, EVP_PKEY* subject_public_key, const Issuer& issuer);

}  // namespace kapi::pki

#include "server/pki/x509_builder.h"

#include <stdexcept>

#include <arpa/inet.h>

#include <openssl/rsa.h>

namespace kapi::pki {
namespace {

constexpr int kSerialBits = 128;
constexpr long kBackdateSeconds = 60 * 60;

bool is_ip_literal(const std::string& text) {
  unsigned char address[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), address) == 1 || inet_pton(AF_INET6, text.c_str(), address) == 1;
}

bool is_dns_label(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
  for (char c : label) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '_';
    if (!allowed) return false;
  }
  return true;
}

bool is_dns_name(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.empty() || name.size() > 253) return false;
  while (true) {
    const auto dot = name.find('.');
    if (!is_dns_label(name.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    name.remove_prefix(dot + 1);
  }
}

void set_random_serial(X509* certificate) {
  BignumPtr serial(BN_new());
  // TOP_ONE pins the high bit, so every serial is exactly 128 bits: positive, never zero.
  if (!serial || BN_rand(serial.get(), kSerialBits, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate)) == nullptr) {
    throw_openssl_error("cannot generate a certificate serial number");
  }
}

X509NamePtr subject_name(const CertificateRequest& request) {
  X509NamePtr name(X509_NAME_new());
  if (!name) throw_openssl_error("cannot allocate an X.509 name");
  // Organization before common name: the RDN order Go's pkix.Name produces, so subjects print like kubeadm's.
  auto add = [&](int nid, const std::string& value) {
    if (X509_NAME_add_entry_by_NID(name.get(), nid, MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.data()),
                                   static_cast<int>(value.size()), -1, 0) != 1) {
      throw_openssl_error("cannot add '" + value + "' to a certificate subject");
    }
  };
  for (const auto& organization : request.organizations) add(NID_organizationName, organization);
  add(NID_commonName, request.common_name);
  return name;
}

void add_extension(X509* certificate, X509V3_CTX& context, int nid, const char* value) {
  X509ExtensionPtr extension(X509V3_EXT_nconf_nid(nullptr, &context, nid, value));
  if (!extension || X509_add_ext(certificate, extension.get(), -1) != 1) {
    throw_openssl_error(std::string("cannot add certificate extension ") + OBJ_nid2sn(nid) + "=" + value);
  }
}

void add_subject_alt_names(X509* certificate, const std::vector<SubjectAltName>& alt_names) {
  if (alt_names.empty()) return;
  GeneralNamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) throw_openssl_error("cannot allocate subject alternative names");
  for (const auto& alt_name : alt_names) {
    GeneralNamePtr name(GENERAL_NAME_new());
    if (!name) throw_openssl_error("cannot allocate a subject alternative name");
    if (alt_name.kind == SubjectAltName::Kind::ip) {
      ASN1_OCTET_STRING* address = a2i_IPADDRESS(alt_name.value.c_str());
      if (!address) throw_openssl_error("not an IP address: " + alt_name.value);
      GENERAL_NAME_set0_value(name.get(), GEN_IPADD, address);
    } else {
      ASN1_IA5STRING* dns = ASN1_IA5STRING_new();
      if (!dns || ASN1_STRING_set(dns, alt_name.value.data(), static_cast<int>(alt_name.value.size())) != 1) {
        ASN1_IA5STRING_free(dns);
        throw_openssl_error("cannot encode DNS name " + alt_name.value);
      }
      GENERAL_NAME_set0_value(name.get(), GEN_DNS, dns);
    }
    if (sk_GENERAL_NAME_push(names.get(), name.get()) == 0) throw_openssl_error("cannot add a subject alternative name");
    name.release();  // owned by the stack now
  }
  if (X509_add1_ext_i2d(certificate, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    throw_openssl_error("cannot add the subjectAltName extension");
  }
}

void add_usage_extensions(X509* certificate, X509V3_CTX& context, CertificateUsage usage) {
  switch (usage) {
    case CertificateUsage::certificate_authority:
      add_extension(certificate, context, NID_basic_constraints, "critical,CA:TRUE");
      add_extension(certificate, context, NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign");
      add_extension(certificate, context, NID_subject_key_identifier, "hash");
      return;
    case CertificateUsage::server_auth:
    case CertificateUsage::client_auth:
      add_extension(certificate, context, NID_basic_constraints, "critical,CA:FALSE");
      // ECDSA keys only sign; keyEncipherment would be meaningless for them.
      add_extension(certificate, context, NID_key_usage, "critical,digitalSignature");
      add_extension(certificate, context, NID_ext_key_usage,
                    usage == CertificateUsage::server_auth ? "serverAuth" : "clientAuth");
      add_extension(certificate, context, NID_authority_key_identifier, "keyid:always");
      return;
  }
}

// `issuer` null means self-signed.
X509Ptr build_and_sign(const CertificateRequest& request, EVP_PKEY* subject_public_key, const Issuer* issuer,
                       EVP_PKEY* signing_key) {
  X509Ptr certificate(X509_new());
  if (!certificate) throw_openssl_error("cannot allocate a certificate");
  X509* cert = certificate.get();
  const X509NamePtr subject = subject_name(request);
  X509_NAME* issuer_name = issuer ? X509_get_subject_name(issuer->certificate) : subject.get();
  if (X509_set_version(cert, X509_VERSION_3) != 1 || X509_set_subject_name(cert, subject.get()) != 1 ||
      X509_set_issuer_name(cert, issuer_name) != 1 || X509_set_pubkey(cert, subject_public_key) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert), -kBackdateSeconds) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert), request.validity_days, 0, nullptr) == nullptr) {
    throw_openssl_error("cannot fill in certificate " + request.common_name);
  }
  set_random_serial(cert);

  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer ? issuer->certificate : cert, cert, nullptr, nullptr, 0);
  add_usage_extensions(cert, context, request.usage);
  add_subject_alt_names(cert, request.subject_alt_names);

  if (X509_sign(cert, signing_key, EVP_sha256()) <= 0) throw_openssl_error("cannot sign certificate " + request.common_name);
  return certificate;
}

}  // namespace

SubjectAltName parse_subject_alt_name(std::string_view text) {
  std::string value(text);
  if (is_ip_literal(value)) return {SubjectAltName::Kind::ip, std::move(value)};
  if (is_dns_name(value)) return {SubjectAltName::Kind::dns, std::move(value)};
  throw std::invalid_argument("not an IP address or DNS name for a subject alternative name: '" + value + "'");
}

EvpPkeyPtr generate_ecdsa_p256_key() {
  EvpPkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) throw_openssl_error("cannot generate an ECDSA P-256 key");
  return key;
}

EvpPkeyPtr generate_rsa_key(unsigned bits) {
  EvpPkeyPtr key(EVP_RSA_gen(bits));
  if (!key) throw_openssl_error("cannot generate an RSA-" + std::to_string(bits) + " key");
  return key;
}

X509Ptr self_sign_certificate_authority(const CertificateRequest& request, EVP_PKEY* key) {
  return build_and_sign(request, key, nullptr, key);
}

X509Ptr issue_certificate(const CertificateRequest& request, EVP_PKEY* subject_public_key, const Issuer& issuer) {
  return build_and_sign(request, subject_public_key, &issuer, issuer.key);
}

}  // namespace kapi::pki

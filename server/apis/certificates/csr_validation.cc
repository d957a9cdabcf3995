#include "server/apis/certificates/csr_validation.h"

#include "base/base64.h"
#include "base/name_validation.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

namespace kapi::apis::certificates {
namespace {

namespace json = boost::json;
using registry::fields::array_or_empty;
using registry::fields::object_or_empty;
using registry::fields::string_at;
using validation::ErrorList;
using validation::Path;

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509ReqFree {
  void operator()(X509_REQ* request) const { X509_REQ_free(request); }
};
struct X509Free {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct EvpKeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct OpensslFree {
  void operator()(void* memory) const { OPENSSL_free(memory); }
};

// One PEM block as encoding/pem.Decode returns it: its type, whether it has headers, its bytes.
struct PemBlock {
  std::string type;
  bool has_headers = false;
  std::string bytes;
};

// The PEM blocks of `pem` in order, skipping text around them (pem.Decode skips what is not a block).
std::vector<PemBlock> pem_blocks(std::string_view pem) {
  std::vector<PemBlock> blocks;
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return blocks;
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &length) != 1) break;
    std::unique_ptr<char, OpensslFree> owned_name(name), owned_header(header);
    std::unique_ptr<unsigned char, OpensslFree> owned_data(data);
    blocks.push_back({name, header && header[0] != '\0',
                      std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length))});
  }
  return blocks;
}

// encoding/asn1's wording for DER that x509.ParseCertificateRequest/ParseCertificates refuse (close to Go's; the
// structure errors name Go's tags, which are not reproduced).
std::string asn1_error(std::string_view der) {
  if (der.empty()) return "asn1: syntax error: sequence truncated";
  if (static_cast<unsigned char>(der[0]) != 0x30) return "asn1: structure error: tags don't match";
  return "asn1: syntax error: data truncated";
}

std::unique_ptr<X509_REQ, X509ReqFree> parse_csr(std::string_view der, std::string& error) {
  const unsigned char* cursor = reinterpret_cast<const unsigned char*>(der.data());
  std::unique_ptr<X509_REQ, X509ReqFree> request(d2i_X509_REQ(nullptr, &cursor, static_cast<long>(der.size())));
  if (!request) {
    error = asn1_error(der);
    return nullptr;
  }
  if (cursor != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) {
    error = "asn1: syntax error: trailing data";
    return nullptr;
  }
  return request;
}

// certificates.ParseCSR: the first PEM block must be a CERTIFICATE REQUEST holding a PKCS#10 request.
std::unique_ptr<X509_REQ, X509ReqFree> parse_csr_pem(std::string_view pem, std::string& error) {
  std::vector<PemBlock> blocks = pem_blocks(pem);
  if (blocks.empty() || blocks.front().type != "CERTIFICATE REQUEST") {
    error = "PEM block type must be CERTIFICATE REQUEST";
    return nullptr;
  }
  return parse_csr(blocks.front().bytes, error);
}

// x509.CertificateRequest.CheckSignature's error for the key's algorithm.
std::string signature_error(const EVP_PKEY* key) {
  switch (EVP_PKEY_base_id(key)) {
    case EVP_PKEY_RSA: return "crypto/rsa: verification error";
    case EVP_PKEY_EC: return "x509: ECDSA verification failure";
    case EVP_PKEY_ED25519: return "x509: Ed25519 verification failure";
    default: return "x509: cannot verify signature: algorithm unimplemented";
  }
}

const std::vector<std::string>& valid_usages() {
  static const std::vector<std::string> usages = [] {
    std::vector<std::string> all{"signing", "digital signature", "content commitment", "key encipherment",
                                 "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only",
                                 "decipher only", "any", "server auth", "client auth", "code signing",
                                 "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user",
                                 "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"};
    std::sort(all.begin(), all.end());  // sets.String.List() order, as NotSupported lists them
    return all;
  }();
  return usages;
}

bool is_valid_usage(std::string_view usage) {
  const auto& usages = valid_usages();
  return std::find(usages.begin(), usages.end(), usage) != usages.end();
}

std::vector<std::string_view> strings_of(const json::array& array) {
  std::vector<std::string_view> out;
  for (const auto& value : array) out.push_back(value.is_string() ? std::string_view(value.as_string()) : "");
  return out;
}

const json::array& conditions_of(const json::object& csr) {
  return array_or_empty(object_or_empty(csr, "status"), "conditions");
}

std::string_view condition_type(const json::value& condition) {
  return condition.is_object() ? string_at(condition.as_object(), "type") : "";
}

json::array conditions_of_type(const json::object& csr, std::string_view type) {
  json::array out;
  for (const auto& condition : conditions_of(csr))
    if (condition_type(condition) == type) out.push_back(condition);
  return out;
}

bool has_duplicates(const std::vector<std::string_view>& values) {
  std::set<std::string_view> seen;
  for (auto value : values)
    if (!seen.insert(value).second) return true;
  return false;
}

// certificateValidationOptions: what an update may tolerate because the stored object already has it, and what
// the subresource written may set.
struct Options {
  bool allow_setting_approval_conditions = false;
  bool allow_setting_certificate = false;
  bool allow_both_approved_and_denied = false;
  bool allow_resetting_certificate = false;
  bool allow_legacy_signer_name = false;
  bool allow_duplicate_condition_types = false;
  bool allow_empty_condition_type = false;
  bool allow_arbitrary_certificate = false;
  bool allow_unknown_usages = false;
  bool allow_duplicate_usages = false;
};

Options options_for(const json::object& csr, const json::object* old) {
  Options options;
  if (!old) return options;
  const json::array& old_conditions = conditions_of(*old);
  std::vector<std::string_view> old_types;
  for (const auto& condition : old_conditions) old_types.push_back(condition_type(condition));
  const auto has_type = [&](std::string_view type) {
    return std::find(old_types.begin(), old_types.end(), type) != old_types.end();
  };
  options.allow_both_approved_and_denied = has_type("Approved") && has_type("Denied");
  options.allow_legacy_signer_name = string_at(object_or_empty(*old, "spec"), "signerName") == kLegacyUnknownSigner;
  options.allow_duplicate_condition_types = has_duplicates(old_types);
  options.allow_empty_condition_type = has_type("");
  const std::optional<std::string> certificate = bytes_member(object_or_empty(csr, "status"), "certificate");
  const std::optional<std::string> old_certificate = bytes_member(object_or_empty(*old, "status"), "certificate");
  options.allow_arbitrary_certificate = certificate.value_or("") == old_certificate.value_or("") ||
                                        certificate_pem_error(old_certificate.value_or("")).has_value();
  const std::vector<std::string_view> old_usages = strings_of(array_or_empty(object_or_empty(*old, "spec"), "usages"));
  options.allow_unknown_usages = std::any_of(old_usages.begin(), old_usages.end(),
                                             [](std::string_view usage) { return !is_valid_usage(usage); });
  options.allow_duplicate_usages = has_duplicates(old_usages);
  return options;
}

ErrorList validate_conditions(const Path& path, const json::object& csr, const Options& options) {
  ErrorList errors;
  std::set<std::string> seen_types;
  bool approved = false, denied = false;
  const json::array& conditions = conditions_of(csr);
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    static const json::object kNotAnObject;
    const json::object& condition = conditions[i].is_object() ? conditions[i].as_object() : kNotAnObject;
    const std::string_view type = string_at(condition, "type");
    const std::string_view status = string_at(condition, "status");
    const Path at = path.index(i);
    if (!options.allow_empty_condition_type && type.empty()) errors.push_back(validation::required(at.child("type")));
    // Approved, Denied and Failed may only be True.
    const bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    const std::vector<std::string> allowed =
        true_only ? std::vector<std::string>{"True"} : std::vector<std::string>{"False", "True", "Unknown"};
    if (status.empty()) errors.push_back(validation::required(at.child("status")));
    else if (std::find(allowed.begin(), allowed.end(), status) == allowed.end())
      errors.push_back(validation::not_supported(at.child("status"), status, allowed));
    if (!options.allow_both_approved_and_denied) {
      if (type == "Approved") {
        approved = true;
        if (denied)
          errors.push_back(validation::invalid(at.child("type"), type, "Approved and Denied conditions are mutually exclusive"));
      } else if (type == "Denied") {
        denied = true;
        if (approved)
          errors.push_back(validation::invalid(at.child("type"), type, "Approved and Denied conditions are mutually exclusive"));
      }
    }
    if (!options.allow_duplicate_condition_types && !seen_types.insert(std::string(type)).second)
      errors.push_back(validation::duplicate(at.child("type"), type));
  }
  return errors;
}

ErrorList validate_csr(const json::object& csr, const Options& options) {
  ErrorList errors;
  const json::object& spec = object_or_empty(csr, "spec");
  const Path spec_path("spec");
  const std::optional<std::string> request = bytes_member(spec, "request");
  if (std::optional<std::string> error = csr_pem_error(request.value_or("")))
    errors.push_back(validation::invalid_value(spec_path.child("request"), go_bytes_literal(request), *error));
  const std::vector<std::string_view> usages = strings_of(array_or_empty(spec, "usages"));
  if (usages.empty()) errors.push_back(validation::required(spec_path.child("usages"), "usages must be provided"));
  if (!options.allow_unknown_usages)
    for (std::size_t i = 0; i < usages.size(); ++i)
      if (!is_valid_usage(usages[i]))
        errors.push_back(validation::not_supported(spec_path.child("usages").index(i), usages[i], valid_usages()));
  if (!options.allow_duplicate_usages) {
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < usages.size(); ++i)
      if (!seen.insert(usages[i]).second) errors.push_back(validation::duplicate(spec_path.child("usages").index(i), usages[i]));
  }
  const std::string_view signer_name = string_at(spec, "signerName");
  if (!options.allow_legacy_signer_name && signer_name == kLegacyUnknownSigner)
    errors.push_back(validation::invalid(spec_path.child("signerName"), signer_name,
                                         "the legacy signerName is not allowed via this API version"));
  else
    for (auto& error : validate_signer_name(spec_path.child("signerName"), signer_name)) errors.push_back(std::move(error));
  if (std::optional<std::int64_t> seconds = registry::fields::int_at(spec, "expirationSeconds"); seconds && *seconds < 600)
    errors.push_back(validation::invalid_value(spec_path.child("expirationSeconds"), std::to_string(*seconds),
                                               "may not specify a duration less than 600 seconds (10 minutes)"));
  for (auto& error : validate_conditions(Path("status").child("conditions"), csr, options)) errors.push_back(std::move(error));
  if (!options.allow_arbitrary_certificate) {
    const std::optional<std::string> certificate = bytes_member(object_or_empty(csr, "status"), "certificate");
    if (std::optional<std::string> error = certificate_pem_error(certificate.value_or("")))
      errors.push_back(validation::invalid(Path("status").child("certificate"), "<certificate data>", *error));
  }
  return errors;
}

}  // namespace

std::optional<std::string> bytes_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value || !value->is_string()) return std::nullopt;
  base::Base64Decoded decoded = base::base64_decode_with_error(value->as_string());
  if (decoded.corrupt_at) return std::nullopt;
  return std::move(decoded.bytes);
}

std::string go_bytes_literal(const std::optional<std::string>& bytes) {
  if (!bytes) return "[]byte(nil)";
  std::string out = "[]byte{";
  char hex[8];
  for (std::size_t i = 0; i < bytes->size(); ++i) {
    std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned char>((*bytes)[i]));
    if (i) out += ", ";
    out += hex;
  }
  return out + "}";
}

std::optional<std::string> csr_pem_error(std::string_view pem) {
  std::string error;
  std::unique_ptr<X509_REQ, X509ReqFree> request = parse_csr_pem(pem, error);
  if (!request) return error;
  std::unique_ptr<EVP_PKEY, EvpKeyFree> key(X509_REQ_get_pubkey(request.get()));
  if (!key) return "x509: cannot verify signature: algorithm unimplemented";
  if (X509_REQ_verify(request.get(), key.get()) != 1) return signature_error(key.get());
  return std::nullopt;
}

std::optional<std::string> certificate_pem_error(std::string_view pem) {
  if (pem.empty()) return std::nullopt;
  const std::vector<PemBlock> blocks = pem_blocks(pem);
  for (const PemBlock& block : blocks) {
    if (block.type != "CERTIFICATE") return "only CERTIFICATE PEM blocks are allowed, found " + validation::quoted(block.type);
    if (block.has_headers) return std::string("no PEM block headers are permitted");
    // x509.ParseCertificates: one or more DER certificates back to back.
    const unsigned char* cursor = reinterpret_cast<const unsigned char*>(block.bytes.data());
    const unsigned char* end = cursor + block.bytes.size();
    if (cursor == end) return std::string("found CERTIFICATE PEM block containing 0 certificates");
    while (cursor < end) {
      std::unique_ptr<X509, X509Free> certificate(d2i_X509(nullptr, &cursor, end - cursor));
      if (!certificate) return asn1_error(std::string_view(reinterpret_cast<const char*>(cursor), end - cursor));
    }
  }
  if (blocks.empty()) return std::string("must contain at least one CERTIFICATE PEM block");
  return std::nullopt;
}

std::optional<std::vector<std::string>> csr_organizations(std::string_view pem) {
  std::string error;
  std::unique_ptr<X509_REQ, X509ReqFree> request = parse_csr_pem(pem, error);
  if (!request) return std::nullopt;
  std::vector<std::string> organizations;
  const X509_NAME* subject = X509_REQ_get_subject_name(request.get());
  for (int index = -1; (index = X509_NAME_get_index_by_NID(subject, NID_organizationName, index)) >= 0;) {
    const ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, value);
    if (length < 0) continue;
    std::unique_ptr<unsigned char, OpensslFree> owned(utf8);
    organizations.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
  }
  return organizations;
}

ErrorList validate_signer_name(const Path& path, std::string_view signer_name) {
  ErrorList errors;
  if (signer_name.empty()) {
    errors.push_back(validation::required(path, "signerName must be provided"));
    return errors;
  }
  const std::size_t slash = signer_name.find('/');
  if (slash == std::string_view::npos || signer_name.find('/', slash + 1) != std::string_view::npos) {
    errors.push_back(validation::invalid(path, signer_name,
                                         "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return errors;
  }
  const std::string_view domain = signer_name.substr(0, slash);
  const std::string_view signer_path = signer_name.substr(slash + 1);
  constexpr std::size_t kMaxDomainLength = 253;  // DNS1123SubdomainMaxLength
  if (domain.size() > kMaxDomainLength) errors.push_back(validation::too_long(path, kMaxDomainLength));
  std::size_t domain_labels = 0;
  bool label_failed = false;
  for (std::size_t start = 0;; ++domain_labels) {
    const std::size_t dot = domain.find('.', start);
    const std::string_view label = domain.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!label_failed) {
      // The first bad label is enough: the others would repeat the message.
      for (auto& message : validation::is_dns1123_label(label)) {
        errors.push_back(validation::invalid(path, domain, "validating label " + validation::quoted(label) + ": " + message));
        label_failed = true;
      }
    }
    if (dot == std::string_view::npos) {
      ++domain_labels;
      break;
    }
    start = dot + 1;
  }
  if (domain_labels < 2)
    errors.push_back(validation::invalid(path, domain, "should be a domain with at least two segments separated by dots"));
  for (std::size_t start = 0;;) {
    const std::size_t dot = signer_path.find('.', start);
    const std::string_view label =
        signer_path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    const std::vector<std::string> messages = validation::is_dns1123_subdomain(label);
    for (const auto& message : messages)
      errors.push_back(validation::invalid(path, signer_path, "validating label " + validation::quoted(label) + ": " + message));
    if (!messages.empty() || dot == std::string_view::npos) break;
    start = dot + 1;
  }
  // A DNS-1123 label, a '.' and a subdomain fit in the path segment.
  constexpr std::size_t kMaxSignerNameLength = kMaxDomainLength + (253 + 63 + 1) + 1;
  if (signer_name.size() > kMaxSignerNameLength) errors.push_back(validation::too_long(path, kMaxSignerNameLength));
  return errors;
}

ErrorList validate_csr_create(const json::object& csr) { return validate_csr(csr, options_for(csr, nullptr)); }

ErrorList validate_csr_update(const json::object& csr, const json::object& old, CsrWrite write) {
  Options options = options_for(csr, &old);
  options.allow_setting_certificate = write == CsrWrite::Status;
  options.allow_setting_approval_conditions = write == CsrWrite::Approval;
  ErrorList errors = validate_csr(csr, options);
  const Path conditions_path = Path("status").child("conditions");
  for (std::string_view type : {"Approved", "Denied", "Failed"})
    if (conditions_of_type(csr, type).size() < conditions_of_type(old, type).size())
      errors.push_back(validation::forbidden(conditions_path, "updates may not remove a condition of type " +
                                                                  validation::quoted(type)));
  if (!options.allow_setting_approval_conditions) {
    for (std::string_view type : {"Approved", "Denied"}) {
      const json::array now = conditions_of_type(csr, type), before = conditions_of_type(old, type);
      if (now.size() > before.size())
        errors.push_back(validation::forbidden(conditions_path, "updates may not add a condition of type " +
                                                                    validation::quoted(type)));
      else if (now.size() == before.size() && now != before)
        // kube appends diff.ObjectDiff of the conditions, which kapi does not reproduce.
        errors.push_back(validation::forbidden(conditions_path, "updates may not modify a condition of type " +
                                                                    validation::quoted(type)));
    }
  }
  const std::optional<std::string> certificate = bytes_member(object_or_empty(csr, "status"), "certificate");
  const std::optional<std::string> old_certificate = bytes_member(object_or_empty(old, "status"), "certificate");
  if (certificate.value_or("") != old_certificate.value_or("")) {
    if (!options.allow_setting_certificate)
      errors.push_back(validation::forbidden(Path("status").child("certificate"), "updates may not set certificate content"));
    else if (!options.allow_resetting_certificate && !old_certificate.value_or("").empty())
      errors.push_back(validation::forbidden(Path("status").child("certificate"),
                                             "updates may not modify existing certificate content"));
  }
  return errors;
}

}  // namespace kapi::apis::certificates

#pragma once
// kube's pkg/apis/certificates/validation (ValidateCertificateSigningRequestCreate, ...Update, ...StatusUpdate,
// ...ApprovalUpdate, ValidateCertificateSigningRequestSignerName) and certificates.ParseCSR, over a
// CertificateSigningRequest as JSON (spec.request and status.certificate base64, as encoding/json writes []byte).
// The PEM and X.509 parsing is OpenSSL's.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::certificates {

inline constexpr std::string_view kGroupName = "certificates.k8s.io";
inline constexpr std::string_view kKubeAPIServerClientSigner = "kubernetes.io/kube-apiserver-client";
inline constexpr std::string_view kLegacyUnknownSigner = "kubernetes.io/legacy-unknown";

// Which write is checked: the main resource, /status (may set status.certificate) or /approval (may set the
// Approved and Denied conditions).
enum class CsrWrite { Main, Status, Approval };

validation::ErrorList validate_csr_create(const boost::json::object& csr);
validation::ErrorList validate_csr_update(const boost::json::object& csr, const boost::json::object& old,
                                          CsrWrite write);
validation::ErrorList validate_signer_name(const validation::Path& path, std::string_view signer_name);

// certificates.ParseCSR and CheckSignature: the error kube reports for a PEM "CERTIFICATE REQUEST", or nullopt
// when it parses and its signature verifies.
std::optional<std::string> csr_pem_error(std::string_view pem);
// validateCertificate: status.certificate's rules (one or more CERTIFICATE blocks, no headers, each parsing);
// nullopt when it passes (an empty certificate passes).
std::optional<std::string> certificate_pem_error(std::string_view pem);
// The subject's organizations of a PEM CSR; nullopt when it does not parse.
std::optional<std::vector<std::string>> csr_organizations(std::string_view pem);

// The bytes of a []byte member as JSON holds it (base64); nullopt when absent or not base64.
std::optional<std::string> bytes_member(const boost::json::object& object, std::string_view key);
// Go's %#v of a []byte, as field errors print spec.request: []byte{0x2d, 0x2d} ([]byte(nil) when absent).
std::string go_bytes_literal(const std::optional<std::string>& bytes);

}  // namespace kapi::apis::certificates

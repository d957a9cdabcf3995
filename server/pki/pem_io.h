#pragma once

// PEM encoding of keys and certificates, and the file I/O the generated PKI needs (atomic, permission-exact writes).

#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "server/pki/openssl_handles.h"

namespace kapi::pki {

inline constexpr mode_t kPrivateFileMode = 0600;
inline constexpr mode_t kPublicFileMode = 0644;

std::string certificate_to_pem(X509* certificate);
// RSA keys as "RSA PRIVATE KEY" (PKCS#1), EC keys as "EC PRIVATE KEY" (SEC 1): the forms kubeadm writes.
std::string private_key_to_pem(const EVP_PKEY* key);
// SubjectPublicKeyInfo ("PUBLIC KEY"), what --service-account-key-file readers expect.
std::string public_key_to_pem(const EVP_PKEY* key);

// The first certificate of a PEM bundle; `source` names it in the error message.
X509Ptr parse_certificate_pem(std::string_view pem, std::string_view source);
// Encrypted keys are refused rather than prompting for a pass phrase on the terminal.
EvpPkeyPtr parse_private_key_pem(std::string_view pem, std::string_view source);
EvpPkeyPtr parse_public_key_pem(std::string_view pem, std::string_view source);

std::string read_file(const std::filesystem::path& path);
X509Ptr read_certificate_file(const std::filesystem::path& path);
EvpPkeyPtr read_private_key_file(const std::filesystem::path& path);

// Writes a sibling temporary file with `mode`, syncs it and renames it over `path`: a reader (or a crash) sees the
// old contents or the new, never a torn or briefly world-readable key.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents, mode_t mode);

}  // namespace kapi::pki
